"""Prompts that fit the model's context window (`model.context_tokens`, 4096 by default).

A prompt's room is the context less the reply's share and the template's own text. Memory goes
in whole events, newest first, until the room is full; an event is never cut in the middle (a
half event reads as a different fact). Promotion's analysis sends more events than fit in
several calls rather than leave any out (`batches`).

The estimate counts UTF-8 bytes / 3: about 1.3 times the tokens of English text for the
tokenizers of Qwen, Llama and Gemma, and about one token per character for Chinese or Japanese,
so it errs on the side of a prompt that fits. No tokenizer is loaded for it.
"""
from __future__ import annotations

from typing import Sequence, TypeVar

from ..vault import stm
from ..vault.layout import event_order
from .types import EventRecord

BYTES_PER_TOKEN = 3

# the longest reply each JSON task needs (sent as max_tokens): a small model that loops stops
# there; the answer gets a quarter of the context (1024 tokens at 4096, more for a larger model)
REPLY_TOKENS = {"search_queries": 160, "reflect": 400, "promote_analyze": 1000, "promote_synthesize": 900,
                "promote_summary": 400, "organize": 900}

# what every event costs beyond its text: the `### id` heading and the blank lines around it
EVENT_OVERHEAD = 12

T = TypeVar("T")


def tokens(text: str) -> int:
    return len(text.encode("utf-8", "replace")) // BYTES_PER_TOKEN + 1


def reply_tokens(task: str, context_tokens: int) -> int:
    if task not in REPLY_TOKENS:
        return context_tokens // 4
    return max(64, min(REPLY_TOKENS[task], context_tokens // 3))


# the fence around the memory, and the sum of parts estimated apart (each rounds up)
MARGIN = 32


def room(task: str, context_tokens: int, fixed: str) -> int:
    """Tokens left for memory in a prompt whose other text (template, identity, …) is `fixed`."""
    return context_tokens - reply_tokens(task, context_tokens) - tokens(fixed) - MARGIN


# the answer template's own words, around the working memory it frames
ANSWER_TEMPLATE_TOKENS = 400


def answer_room_chars(context_tokens: int) -> int:
    """Characters (of mostly ASCII text) the turn's working memory may take in the answer's
    prompt; in characters because working_memory.fit counts its own, rougher tokens."""
    return (context_tokens - reply_tokens("answer", context_tokens) - ANSWER_TEMPLATE_TOKENS) * BYTES_PER_TOKEN


def event_tokens(event: EventRecord) -> int:
    return tokens(event.id) + tokens(event.text) + EVENT_OVERHEAD


def newest_that_fit(events: Sequence[EventRecord], budget: int) -> tuple[list[EventRecord], int]:
    """The newest events whose sum fits `budget` (at least the newest one), in their given
    order, and how many older ones were left out. Event ids are UTC times: newest sorts last."""
    kept: set[str] = set()
    used = 0
    for event in sorted(events, key=lambda e: event_order(e.id), reverse=True):
        cost = event_tokens(event)
        if kept and used + cost > budget:
            break
        kept.add(event.id)
        used += cost
    chosen = [e for e in events if e.id in kept]
    return chosen, len(events) - len(chosen)


def batches(events: Sequence[EventRecord], budget: int) -> list[list[EventRecord]]:
    """The events in consecutive groups that each fit `budget` (an event larger than the
    budget goes alone, whole: the server then says it is too long, and the task falls back)."""
    groups: list[list[EventRecord]] = [[]]
    used = 0
    for event in events:
        cost = event_tokens(event)
        if groups[-1] and used + cost > budget:
            groups.append([])
            used = 0
        groups[-1].append(event)
        used += cost
    return [g for g in groups if g]


def first_that_fit(items: Sequence[T], budget: int, *, cost=lambda item: tokens(str(item)) + 1) -> list[T]:
    """The leading items whose sum fits `budget` (the known titles analysis is shown)."""
    kept, used = [], 0
    for item in items:
        used += cost(item)
        if used > budget:
            break
        kept.append(item)
    return kept


def short_term_that_fits(text: str, budget: int) -> str:
    """Short-term memory with its oldest events left out until it fits `budget` (its Summary
    and Structured Data stay: they are what the events have been condensed into)."""
    if tokens(text) <= budget:
        return text
    doc = stm.parse(text)
    events = doc.events            # newest first
    dropped: set[str] = set()
    rendered = text
    while events and tokens(rendered) > budget:
        # drop at once as many of the oldest as the excess needs, then measure again
        excess = tokens(rendered) - budget
        while events and excess > 0:
            oldest = events.pop()
            dropped.add(oldest.id)
            excess -= tokens(oldest.raw)
        doc.remove_events(dropped)
        # said before the sections, where it cannot read as part of an event
        rendered = f"(The {len(dropped)} oldest events are left out here for length.)\n\n" + doc.render()
    return rendered
