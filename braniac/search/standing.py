"""What the person asked for once and for all: "Always use APA 7th edition when I ask about
references", "I prefer lightweight, dependency-free solutions". A standing instruction or a
stated preference shapes every later answer on its subject, so a short statement of one that
matches the prompt rises above passages that match as well but only report what happened.

Only short statements (a sentence or two): inside a long message, an "I prefer" is an aside,
and lifting the whole message would push the facts a question needs out of a small context
(BEAM dev, lifting every such message: -5 points on knowledge updates at 300 words)."""
from __future__ import annotations

import re
from functools import lru_cache

from .currency import statement
from .passages import Passage, content_terms

STANDING_LIFT = 1.0       # such a statement scores (1 + this) times (BEAM dev: +0.9 / +2.4 / +1.7 at 300 / 750 / 1500 words)
STANDING_MAX_WORDS = 60   # the person's words of a statement that is only that
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+|,\s+(?=(?:so|and|but)\s)")
_CUES = ("always", "ever", "from now on", "prefer", "rather", "like you to")   # cheap test first
_STANDING = re.compile(
    r"^\W*(?:(?:please|so|and|but)[,\s]+)?(?:always|never|don['’]?t ever)\b"
    r"|\bfrom now on\b"
    r"|\bI(?:['’]d| would)? (?:prefer|rather)\b|\bI(?:['’]d| would) like you to\b|\bmake sure (?:to|you) always\b",
    re.IGNORECASE)
# the condition an instruction names: "…when I ask about triangle area calculations", "whenever I
# ask for references", "if I ask you about deadlines"
_WHEN_I_ASK = re.compile(r"\b(?:when(?:ever)?|if)\s+I\s+ask\s+(?:you\s+)?(?:about|for)\s+(?P<what>[^.;!?\n]+)", re.I)
CONDITION_SHARE = 0.5     # of the condition's words the prompt must hold for it to be met


@lru_cache(maxsize=16384)
def _states_standing(text: str) -> bool:
    """Does a passage's text (an archived exchange, a digest line, a person's own line) hold
    the person's statement of a standing instruction or preference? A topic note's copy keeps
    its date in front ("- 2025-06-02 — Always…"), so an instruction that opens a sentence is
    not found there: one instruction does not take two places in a small context (BEAM dev,
    lifting the copies as well: -0.6 at 300 words, knowledge updates -5)."""
    return is_standing(statement(text))


def is_standing(text: str) -> bool:
    """Does a short text state a standing instruction or a preference?"""
    lowered = text.lower()
    if not any(cue in lowered for cue in _CUES) or len(text.split()) > STANDING_MAX_WORDS:
        return False
    return any(_STANDING.search(s) for s in _SENTENCES.split(text))


def lift_standing(passages: list[Passage]) -> None:
    """Step 6 of retrieval.py: the passages that match the prompt and state what the person
    wants done rise."""
    for p in passages:
        if p.score > 0 and _states_standing(p.text):
            p.score *= 1 + STANDING_LIFT


def lift_applying(passages: list[Passage], asked: frozenset[str]) -> None:
    """An instruction whose condition the prompt meets ("Always compare several methods when I
    ask about triangle area calculations", asked "How do I find a triangle's area from its
    medians?") is placed first: it says how the answer must be given, and by words it matches
    the question less than any report on the subject does. Its copy in a topic note counts too;
    one memory still enters once (distinct.py)."""
    ranked = [p for p in passages if p.score > 0]
    if not ranked or not asked:
        return
    top = max(p.score for p in ranked)
    for p in ranked:
        condition = applies_when(p.text)
        if condition and len(condition & asked) >= CONDITION_SHARE * len(condition):
            p.score = max(p.score, top * (1 + 1e-3))


@lru_cache(maxsize=16384)
def applies_when(text: str) -> frozenset[str]:
    """The words of the condition a short standing instruction names, or none."""
    said = statement(text)
    if len(said.split()) > STANDING_MAX_WORDS or not any(cue in said.lower() for cue in _CUES):
        return frozenset()
    found = _WHEN_I_ASK.search(said)
    return frozenset(content_terms(found["what"])) if found else frozenset()
