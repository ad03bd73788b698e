"""The periods a prompt names, in retrieval ("yesterday", "on 13 October", "last week"): the
passages about them rise, and events come into the running that no word of the prompt finds.

A passage is about a day when it was said that day, or names it: a relative time promotion
resolved ("on Saturday (2025-03-08)", said on the Monday after) or a date written out. The
events of a short period (a day or two) all come into the running, and so do those of any
period a prompt asks about and nothing else ("What did I do last week?"), newest first; an
event told up to a week later about a day of the period ("On Saturday I hiked…") comes with them.
"""
from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING

from ..infra import textutil
from ..infra.date_spans import about_the_period, asks_what_was_said, period_stems
from ..vault.layout import event_rel
from .day_events import day_events, event_folder, person_day
from .passages import Passage, content_terms, note_passages

if TYPE_CHECKING:
    from ..vault.store import VaultStore

DATE_LIFT = 1.0           # an event on a date the prompt names scores (1 + DATE_LIFT) times
SHORT_SPAN_DAYS = 3       # a period this short ("yesterday") brings all its events into the running
DAY_FLOOR = 1e-3          # the score of such an event that matches no word of the prompt
MAX_DAY_EVENTS = 300      # events of one period read for that
TOLD_WITHIN_DAYS = 7      # how long after a day it is told about ("On Saturday…", said on Monday)


def asks_only_the_period(prompt: str) -> bool:
    """Does the prompt ask what went on in a period, and nothing narrower ("What did I do last
    week?", not "What did I eat last week?")?"""
    return not [t for t in content_terms(prompt) if t not in period_stems() and t not in textutil.generic_stems()
                and not t.isdigit()]


def lift_periods(vault: "VaultStore", passages: list[Passage], spans: list[tuple[str, str]], notes_found: int,
                 prompt: str) -> None:
    """Passages about a period the prompt names rise, and its events join them (see above)."""
    whole, said_then = asks_only_the_period(prompt), asks_what_was_said(prompt)
    have = {c for p in passages for c in p.cites}
    read = [(start, end) for start, end in spans if whole or _days_in(start, end) < SHORT_SPAN_DAYS]
    for start, end in read:
        passages += _events_of(vault, start, end, have, notes_found, said_then)
    for p in passages:
        said = [person_day(c) for c in p.cites]
        if about_the_period(said, p.text, spans, said_then=said_then):
            if p.score <= 0 and about_the_period(said, p.text, read, said_then=said_then):
                p.score = DAY_FLOOR
            p.score *= 1 + DATE_LIFT


def _events_of(vault: "VaultStore", start: str, end: str, have: set[str], notes_found: int,
               said_then: bool) -> list[Passage]:
    """The passages of the events of a period, newest first (at most MAX_DAY_EVENTS events), and
    those of events told within TOLD_WITHIN_DAYS after it that name one of its days."""
    first, last = date.fromisoformat(start), date.fromisoformat(end)
    found: list[Passage] = []
    taken = 0
    day = last + timedelta(days=TOLD_WITHIN_DAYS + 1)   # the person's day spans two UTC folders off UTC
    while day >= first - timedelta(days=1) and taken < MAX_DAY_EVENTS:
        for event in reversed(list(day_events(event_folder(vault, day.isoformat() + "T")))):
            if event in have or taken >= MAX_DAY_EVENTS:
                continue
            said = person_day(event)
            if said < start:
                continue
            parts = note_passages(vault, event_rel(event), notes_found)
            if not any(about_the_period([said], p.text, [(start, end)], said_then=said_then) for p in parts):
                continue   # said later about another day, or then about another
            have.add(event)
            taken += 1
            found += parts
        day -= timedelta(days=1)
    return found


def _days_in(start: str, end: str) -> int:
    return (date.fromisoformat(end) - date.fromisoformat(start)).days
