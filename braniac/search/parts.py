"""A question that needs two memories says so: "How many days passed between when I got my API
key and when I finished the wireframe?", "How many problems have I completed, and what accuracy
have I kept?". Ranked as one bag of words, the part that many passages match (deadlines,
drafts) fills a small context and the other part's one memory falls below it. So each part's
best passage is placed right behind the best passage of all.
"""
from __future__ import annotations

import re

from .passages import Passage, content_terms, matches

# "between A and B": two things, the second after the last "and" unless "and when"/"and the
# time" says where the second starts ("between when I focused on permutations and combinations,
# and when I improved my quiz score")
_BETWEEN = re.compile(r"\bbetween\s+(?P<span>.+?)\s*(?:[?.!]|$)", re.I)
_SECOND_THING = re.compile(r",?\s+and\s+(?=when\b|the (?:day|date|time)\b)", re.I)
_AND = re.compile(r",?\s+and\s+", re.I)
# two questions in one: "…, and what accuracy rate have I kept?", "…played in and how many years…"
_TWO_QUESTIONS = re.compile(r",?\s+and\s+(?=(?:what|when|where|which|who|how)\b)", re.I)
PART_SHARE = 0.5     # of a part's terms its best passage must hold
PART_TERMS = 2       # the fewest terms of each of two questions in one ("between my surgery and…": one)


def question_parts(prompt: str) -> list[str]:
    """The two things a question asks about together, or [] for a question about one."""
    found = _BETWEEN.search(prompt)
    if found:
        span = found["span"]
        split = _SECOND_THING.search(span) or (list(_AND.finditer(span)) or [None])[-1]
        if split is not None:
            return [span[:split.start()], span[split.end():]]
    halves = _TWO_QUESTIONS.split(prompt, maxsplit=1)
    # a question of one word ("…and how did he react?") says too little to pick a memory by
    if len(halves) != 2 or min(len(content_terms(half)) for half in halves) < PART_TERMS:
        return []
    return halves


def lift_parts(passages: list[Passage], prompt: str, weights: dict[str, float]) -> None:
    """Place the passage that best matches each part of a two-part question right behind the
    best passage of all (scores are raised, never lowered)."""
    parts = [frozenset(content_terms(part)) & weights.keys() for part in question_parts(prompt)]
    ranked = [p for p in passages if p.score > 0]
    if not ranked or len(parts) < 2 or not all(parts):
        return
    top = max(p.score for p in ranked)
    for n, part in enumerate(parts, start=1):
        scores = matches(ranked, {t: weights[t] for t in part})
        best = max(zip(scores, ranked), key=lambda pair: (pair[0], pair[1].score))[1] if any(scores) else None
        if best is not None and len(best.words & part) >= PART_SHARE * len(part):
            best.score = max(best.score, top * (1 - 1e-3 * n))
