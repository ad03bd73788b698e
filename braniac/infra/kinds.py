"""TRIED AND REVERTED: kinds of things (WordNet hypernyms, table built by bench/wordnet_kinds.py).

Knobs (environment): KINDS (the table), KIND_WEIGHT (passage-level weight of a kind match),
KIND_BOOST (the index's kinds field), KIND_FIELD_ALL=1 (every query word also searches the kinds
field), KIND_SEARCH=1 (the kind a question asks for, "What sports…", searches it), ONLY_ASKED=1
(passage-level matching only for the asked kind)."""
import json, os
from functools import lru_cache
from . import textutil
_T = None
W = float(os.environ.get("KIND_WEIGHT", "0.3"))
def _table():
    global _T
    if _T is None:
        _T = json.load(open(os.environ["KINDS"]))
    return _T

@lru_cache(maxsize=100000)
def kinds_of(word: str) -> frozenset:
    t = _table()
    found = t.get(word) or t.get(textutil.stem(word)) or ()
    out = set()
    for k in found:
        for tok in k.replace("-", "_").split("_"):
            if len(tok) >= 3 and tok not in textutil.STOP_WORDS:
                out.add(textutil.stem(tok))
    return frozenset(out)

def add_kinds(text, counts):
    if W <= 0:
        return counts
    extra = set()
    for w in set(textutil.content_words(text)):
        extra |= kinds_of(w)
    for t in extra:
        if t not in counts:
            counts[t] = W
    return counts


import re
_AUX = r"(?:does|did|do|has|have|had|is|are|was|were|can|could|would|will|should|might)"
_ASKED = re.compile(r"\b(?:what|which|how many|any)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?((?:[a-z-]+\s+){0,3}?[a-z-]+)\s+" + _AUX + r"\b", re.I)

def asked_kinds(prompt):
    m = _ASKED.search(prompt or "")
    if not m:
        return set()
    words = m.group(1).lower().split()
    if re.fullmatch(_AUX, words[0]) or words[0] in ("i", "you", "he", "she", "we", "they", "it"):
        return set()
    return {textutil.stem(w) for w in words if w not in textutil.STOP_WORDS and len(w) >= 3}
