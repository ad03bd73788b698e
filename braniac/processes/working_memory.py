"""Working memory: assembled for each turn, never stored.

It holds the core identity, a rolling summary of this conversation, the whole of short-term
memory, long-term-memory excerpts and the prompt. When it does not fit the token budget, parts
are cut in this order: the lowest-ranked LTM excerpts first, then the oldest turns of the
conversation summary, then the oldest short-term-memory events (in this copy only). The core
identity and the prompt are never cut.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..vault import stm
from ..model.types import STMEntry, WorkingMemory
from .handoff import is_wrap_up

CHARS_PER_TOKEN = 4  # a deliberately rough estimate; no tokenizer import on the hot path


def tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass
class Conversation:
    """The turns of the current session, and the rolling summary that goes into each prompt."""
    turns: list[tuple[str, str]] = field(default_factory=list)
    recent_turns: int = 3

    def add(self, user: str, ai: str) -> None:
        self.turns.append((user, ai))

    def summary(self, drop_oldest: int = 0) -> str:
        turns = self.turns[drop_oldest:]
        if not turns:
            return ""
        older, recent = turns[: -self.recent_turns], turns[-self.recent_turns:]
        lines = [f"- earlier, the user asked: {_clip(u, 120)} — answered: {_clip(a, 120)}" for u, a in older]
        lines += [f"User: {_clip(u, 600)}\nAI: {_clip(a, 900)}" for u, a in recent]
        return "\n".join(lines)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def said_lately(stm_text: str) -> list[str]:
    """Short-term memory's events as what the person said (`### id` and the User field): not
    braniac's answer or thoughts, not a turn that only asked something (the question is no
    memory, and its answer quoted others), not an assistant's wrap-up of a session."""
    out = []
    for event in stm.parse(stm_text).events:
        fields = event.fields
        said = fields.get("User", "").strip()
        if said and not is_wrap_up(fields) and not all(s.rstrip().endswith("?") for s in re.split(r"(?<=[.!?])\s+", said)):
            out.append(stm.render_event(event.id, {"User": fields["User"]}).strip())
    return out


def stm_entries(stm_text: str) -> list[STMEntry]:
    entries = []
    for event in stm.parse(stm_text).events:
        fields = event.fields
        entries.append(STMEntry(event.id, event.text, fields.get("User", "") or event.text))
    return entries


def fit(wm: WorkingMemory, conversation: Conversation | None, budget_tokens: int) -> WorkingMemory:
    """Cut parts, in the documented order, until the working memory fits the budget."""
    def size() -> int:
        return sum(tokens(t) for t in (wm.identity, wm.conversation, wm.short_term, wm.prompt)) + \
            sum(tokens(e.title) + tokens(e.text) + 20 for e in wm.excerpts)

    while size() > budget_tokens and wm.excerpts:
        wm.excerpts.pop()
    dropped = 0
    while size() > budget_tokens and conversation is not None and dropped < len(conversation.turns):
        dropped += 1
        wm.conversation = conversation.summary(drop_oldest=dropped)
    if size() > budget_tokens:
        doc = stm.parse(wm.short_term)
        events = doc.events   # newest first
        while size() > budget_tokens and events:
            # Drop at once as many of the oldest events as the excess needs (an event's text is
            # exactly what leaves the rendering), then re-measure: one event at a time, each
            # with a re-render, cost 0.15 s a turn with 200 events waiting for promotion.
            over = size() - budget_tokens
            excess = len(wm.short_term) - CHARS_PER_TOKEN * (tokens(wm.short_term) - over)
            dropped_ids: set[str] = set()
            while events and excess > 0:
                oldest = events.pop()
                dropped_ids.add(oldest.id)
                excess -= len(oldest.raw)
            doc.remove_events(dropped_ids)
            wm.short_term = doc.render()
            wm.stm_events = [e for e in wm.stm_events if e.id not in dropped_ids]
    return wm
