"""A claim the person corrected by hand: one sentence of the event it cites, with a few words
replaced and the rest word for word (retrieval's currency makes the event history then)."""
from __future__ import annotations

import re

from ..infra import textutil
from .claims import as_said

CORRECTION_WORDS = 4        # the most words a hand correction replaces ("backend" -> "staff")
CORRECTION_KEPT = 0.6       # the share of the sentence it leaves as it was


def corrects(said: str, claim: str) -> bool:
    """Is a claim the person's correction of what they said (its very event): one sentence of it
    with a few words replaced and the rest word for word ("I work at Acme as a staff engineer" /
    "… a backend engineer")? A claim braniac wrote is a sentence of the event, or its own words
    throughout; neither replaces a few words and keeps the others."""
    new = re.findall(r"\w+", as_said(claim).lower())
    for sentence in re.split(r"(?<=[.!?])\s+", as_said(said)):
        old = re.findall(r"\w+", sentence.lower())
        head = 0
        while head < min(len(old), len(new)) and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        gone, put = old[head:len(old) - tail], new[head:len(new) - tail]
        # another word, not another form of the same ("I work" / "Works")
        stems_gone, stems_put = ({textutil.stem(w) for w in textutil.content_words(" ".join(x))}
                                 | {w for w in x if any(c.isdigit() for c in w)} for x in (gone, put))
        if stems_gone - stems_put and stems_put - stems_gone and len(gone) <= CORRECTION_WORDS and \
                len(put) <= CORRECTION_WORDS and head + tail >= CORRECTION_KEPT * max(len(old), len(new)):
            return True
    return False
