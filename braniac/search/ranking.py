"""Emergent importance (vault-format.md §2: no score is stored): how a note's location, links and use lift its search rank.

braniac keeps no importance score in the files. It is derived, every time, from three things a
person can see: how deep the note sits in the hierarchy, how many other memory files link to
it, and how often it was read (logs/access.log and its rotated archives).

    score = bm25f × (1 + LINKS·ln(1 + inbound links) + READS·ln(1 + reads)) × DEPTH_DECAY^depth

BM25F itself weighs a match in the title and tags above one in the body (FIELD_BOOSTS).
Every weight lives here, in one place, BM25's own (K1, B) too.
"""
from __future__ import annotations

import math
from typing import NamedTuple


# BM25's term-frequency saturation and length normalization (Whoosh's defaults), for the
# index's BM25F (its searchers, and scoring's sums from the postings) and retrieval's passages
K1 = 1.2
B = 0.75
FIELD_BOOSTS = {"title": 3.0, "tags": 2.0, "body": 1.0}
LINKS = 0.15          # per ln(1 + inbound links)
READS = 0.10          # per ln(1 + reads recorded in the access logs)
DEPTH_DECAY = 0.97    # each folder level below memory/long_term/ costs 3 %
RERANK_POOL = 5       # queries with phrases/AND/NOT: re-rank the top limit × RERANK_POOL BM25F hits


class Signals(NamedTuple):   # a tuple: built for every note a search weighs, so it must be cheap
    depth: int = 0
    inbound: int = 0
    reads: int = 0


def importance(signals: Signals) -> float:
    boost = 1.0 + LINKS * math.log1p(signals.inbound) + READS * math.log1p(signals.reads)
    return boost * (DEPTH_DECAY ** signals.depth)


def ceiling(inbound: dict[str, int], reads: dict[str, int]) -> float:
    """An importance no note exceeds: the most links and the most reads any file has, at the
    top of the hierarchy. Search stops looking once BM25F × this cannot make the top."""
    return importance(Signals(depth=0, inbound=max(inbound.values(), default=0),
                              reads=max(reads.values(), default=0)))
