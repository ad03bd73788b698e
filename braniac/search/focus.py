"""Who said it: a question about a person is answered first by what that person said.

Events and claims carry their speaker ("Melanie: I signed up for a pottery class"). When the
prompt names people who speak in the passages found, their own statements rise above the
others' lines that only address or mention them ("Wow, Melanie! …").
"""
from __future__ import annotations

import re

from ..infra import textutil
from .passages import Passage

SPEAKER_LIFT = 0.5       # a person's own statement scores (1 + this) times (LoCoMo dev: +2.0 / +0.9 / +1.2 at 300 / 750 / 1500)
_SPEAKER = re.compile(r"^(?:### [^\n]*\n)?(?:\*\*User:\*\*\s*\"?|[-*] (?:[\d:-]+\s+—\s+)?)"
                      r"([A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}):\s")


def speaker(p: Passage) -> str | None:
    match = _SPEAKER.match(p.text)
    return match.group(1) if match else None


def lift_speakers(passages: list[Passage], prompt: str) -> None:
    if not prompt:
        return
    names = {w.lower() for n in textutil.entities(prompt) for w in n.split()}
    if not names:
        return
    for p in passages:
        if p.score > 0:
            who = speaker(p)
            if who and who.split()[0].lower() in names:
                p.score *= 1 + SPEAKER_LIFT
