"""A message cut into what the offline engine reads: who said it ("Ana: I moved to Lisbon")
and its sentences."""
from __future__ import annotations

import re

from ...infra.textutil import TITLES

_SPEAKER = re.compile(r"^\s*([A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}):\s+(.+)$", re.S)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'“])|\n+")
_ANY_CASE = re.compile(r"(?<=[.!?])\s+|\n+")
# a full stop that ends no sentence ("Dr. Lee", "e.g. Python", "Python vs. Go", "8 p.m. on Friday"); not "etc.",
# "No.", "St." or "Jr.", which end one as often ("I live on Main St.")
ABBREVIATIONS = frozenset({t.lower() for t in TITLES} | set("vs e.g i.e eg ie approx a.m p.m".split()))


def split_speaker(text: str) -> tuple[str | None, str]:
    match = _SPEAKER.match(text)
    if match and len(match.group(1)) <= 40:
        return match.group(1).strip(), match.group(2).strip()
    return None, text.strip()


def sentences(text: str, *, any_case: bool = False) -> list[str]:
    """The sentences of a text, a full stop after an abbreviation ending none. By default a
    sentence starts with a capital, a digit or a quote; `any_case`: also lowercase, as people
    type in a chat ("my new address is 12 rua augusta. can you keep that?")."""
    out, start = [], 0
    for boundary in (_ANY_CASE if any_case else _SENTENCE).finditer(text):
        piece = text[start:boundary.start()]
        if "\n" not in boundary.group(0) and _ends_with_abbreviation(piece):
            continue
        out.append(piece)
        start = boundary.end()
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]


def _ends_with_abbreviation(piece: str) -> bool:
    words = piece[-12:].split()   # the tail only: a piece grows while abbreviations join it
    # an abbreviation, or a name's initial ("Dr. M. Costa")
    return bool(words) and words[-1].endswith(".") and (words[-1].lower().rstrip(".") in ABBREVIATIONS
                                                        or re.fullmatch(r"[A-Z]\.", words[-1]) is not None)
