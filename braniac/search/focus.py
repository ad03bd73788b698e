"""Who said it: a question about a person is answered first by what that person said.

Events and claims carry their speaker ("Melanie: I signed up for a pottery class"). When the
prompt names people who speak in the passages found, their own statements rise above the
others' lines that only address or mention them ("Wow, Melanie! …"). With several people named
("what do Jon and Gina have in common?"), the passages are taken in turn from each, so the
budget holds evidence about every one of them.
"""
from __future__ import annotations

import os
import re

from ..infra import textutil
from .passages import Passage

SPEAKER_LIFT = float(os.environ.get("BRANIAC_SPEAKER_LIFT", "0.5"))   # an own statement scores (1 + this) times
BALANCE = os.environ.get("BRANIAC_SPEAKER_BALANCE", "0") == "1"       # several people named: each one's best level
_SPEAKER = re.compile(r"^(?:### [^\n]*\n)?(?:\*\*User:\*\*\s*\"?|[-*] (?:[\d:-]+\s+—\s+)?)"
                      r"([A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}):\s")


def speaker(p: Passage) -> str | None:
    match = _SPEAKER.match(p.text)
    return match.group(1) if match else None


def lift_speakers(passages: list[Passage], prompt: str) -> None:
    if not SPEAKER_LIFT or not prompt:
        return
    names = {w.lower() for n in textutil.entities(prompt) for w in n.split()}
    if not names:
        return
    own: dict[str, list[Passage]] = {}
    for p in passages:
        if p.score > 0:
            who = speaker(p)
            if who and who.split()[0].lower() in names:
                p.score *= 1 + SPEAKER_LIFT
                own.setdefault(who.split()[0].lower(), []).append(p)
    if BALANCE and len(own) >= 2:
        top = max(p.score for ps in own.values() for p in ps)
        for ps in own.values():
            scale = top / max(p.score for p in ps)
            for p in ps:
                p.score *= scale
