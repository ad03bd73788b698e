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
        if "\n" not in boundary.group(0) and _ends_with_abbreviation(piece, text[boundary.end():boundary.end() + 1]):
            continue
        out.append(piece)
        start = boundary.end()
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]


def _ends_with_abbreviation(piece: str, following: str) -> bool:
    """Does the piece end with a full stop that ends no sentence? A title or "e.g." always; "8
    p.m." when the text goes on in lower case or with a number ("8 p.m. on Friday", not "6 p.m.
    My sister…"); a name's initial after a name or a title ("Dr. M. Costa", not "vitamin D.")."""
    words = piece[-24:].split()   # the tail only: a piece grows while abbreviations join it
    if not words or not words[-1].endswith("."):
        return False
    last = words[-1].lower().rstrip(".")
    if last in ("a.m", "p.m"):
        return following[:1].islower() or following[:1].isdigit()
    if re.fullmatch(r"[A-Z]\.", words[-1]):
        return len(words) > 1 and words[-2][:1].isupper()
    return last in ABBREVIATIONS
