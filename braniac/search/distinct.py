"""Each memory enters the working memory once (step 8 of retrieval.py): best first, a passage
is skipped when its events are already cited by a better one with hardly a word more, or when
a passage taken holds 90 % of its words. A part of an event (a digest's first sentence) gives
way to the fullest passage of that event, and a long answer of the assistant enters as its
window that matches the prompt (excerpts.py): what is compared is what enters.

What a passage taken holds is what it remembers: an archived exchange holds the person's words,
not the answer, which may quote memories (with their event ids, or in its own words) and must
not stand in for them. And an exchange repeats one taken when the person's words do: a question
asked again and again enters once. A number is part of what a passage holds: "My rent is 900
euros a month" repeats no "…now I pay 1,050 euros a month", it is the value that changed.
"""
from __future__ import annotations

import re

from ..infra import textutil
from .excerpts import trim_answer
from .passages import ANSWER, Passage, content_terms, said_terms

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def distinct(passages: list[Passage], limit: int, weights: dict[str, float]) -> list[Passage]:
    """Best first, skipping passages whose events are already cited or whose words repeat one
    taken. A passage that is part of a fuller one of the same event (a digest's first sentence,
    a claim that left out a short sentence) is replaced by the fuller one, at its own rank."""
    fullest: dict[str, Passage] = {}
    for p in passages:
        if p.event and (p.event not in fullest or len(p.words) > len(fullest[p.event].words)):
            fullest[p.event] = p
    chosen: list[Passage] = []
    held: list[frozenset[str]] = []          # the words each chosen passage stands for
    words_by_event: dict[str, set[str]] = {}
    postings: dict[str, list[int]] = {}       # term -> indexes in chosen of passages holding it
    max_passages = max(limit, 1) * 8
    for p in passages:
        if p.score <= 0:
            continue
        whole = fullest.get(p.event) if p.event else None
        if whole is not None and whole is not p and p.words <= whole.words:
            p = Passage(p.note_rank, whole.title, whole.path, whole.uuid, whole.text, whole.cites, whole.words,
                        whole.counts, p.score, p.match)
        text = trim_answer(p.text, weights)
        if text is not p.text:   # a long answer enters as its window: only the window's words are new
            p = Passage(p.note_rank, p.title, p.path, p.uuid, text, p.cites, frozenset(content_terms(text)), p.counts,
                        p.score, p.match, p.event)
        if p.cites and all(e in words_by_event for e in p.cites):
            known = set().union(*(words_by_event[e] for e in p.cites))
            if len(p.words - known) < 0.25 * max(len(p.words), 1):
                continue  # the same events, and hardly a word more
        # what it holds is what it remembers: an answer of braniac's quoting a memory holds not it
        own = said_terms(p.text, p.words) | _numbers(p.text)
        if _repeats(own, held, postings):
            continue
        held.append(own)
        for t in own:
            postings.setdefault(t, []).append(len(chosen))
        chosen.append(p)
        for event in p.cites:
            words_by_event.setdefault(event, set()).update(p.words)
        if len(chosen) >= max_passages:
            break
    return chosen


def _numbers(text: str) -> frozenset[str]:
    """The numbers a passage states, as terms of their own ("#900"), not an assistant's answer's;
    the days it is dated by (its heading, a claim's opening date and citations, "week of
    2023-05-29") are when, not what."""
    # (a path or an address is no value: "../events/2025/…", but "128/82" is one)
    return frozenset("#" + t for t in textutil.digit_tokens(text.partition(ANSWER)[0])
                     if not _DAY.match(t) and not ("/" in t and re.search(r"[a-z]", t)))


def _repeats(words: frozenset[str], held: list[frozenset[str]], postings: dict[str, list[int]]) -> bool:
    """Does a passage already taken hold 90 % of these words? Such a passage holds at least one of
    any (10 % + 1) of them, so only the passages holding one of the rarest few are compared."""
    need = 0.9 * max(len(words), 1)
    rare = sorted(words, key=lambda t: len(postings.get(t, ())))[:int(0.1 * len(words)) + 1]
    seen: set[int] = set()
    for t in rare:
        for i in postings.get(t, ()):
            if i not in seen:
                seen.add(i)
                if len(words & held[i]) >= need:
                    return True
    return False
