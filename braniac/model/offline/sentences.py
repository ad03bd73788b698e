"""A message cut into what the offline engine reads: who said it ("Ana: I moved to Lisbon")
and its sentences."""
from __future__ import annotations

import re

_SPEAKER = re.compile(r"^\s*([A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}):\s+(.+)$", re.S)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'“])|\n+")


def split_speaker(text: str) -> tuple[str | None, str]:
    match = _SPEAKER.match(text)
    if match and len(match.group(1)) <= 40:
        return match.group(1).strip(), match.group(2).strip()
    return None, text.strip()


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]
