"""Exact top-k search for word queries, scored straight from Whoosh's posting blocks.

Whoosh's collector scores each posting through a stack of matcher objects, a few µs apiece; a
three-word query touches ~2,700 postings at 10k notes, so that was most of a search. Here the
posting blocks Whoosh decodes anyway are summed in one loop, with Whoosh's own BM25F formula and
statistics (tests hold the scores to Whoosh's), and emergent importance then ranks every
matching note, not only a pool of BM25F's best. Phrases, AND and NOT are not plain sums of
term scores: hits.HitFinder sends those queries through Whoosh's collector.
"""
from __future__ import annotations

import heapq
import weakref
from itertools import accumulate, repeat
from typing import Callable, Container

from .ranking import B, K1


def plain_terms(q, schema) -> list[tuple[str, str, float]] | None:
    """(field, text, boost) for every term of a query that only ORs terms together (what the
    parser makes of plain words), or None when the query needs Whoosh's own matching."""
    from whoosh import query

    terms: list[tuple[str, str, float]] = []

    def walk(node, boost: float) -> bool:
        if type(node) is query.Term:
            if node.fieldname not in schema or not schema[node.fieldname].scorable:
                return False
            terms.append((node.fieldname, node.text, boost * node.boost))
            return True
        if type(node) is query.Or and not node.scale and not node.minmatch:
            return all(walk(sub, boost * node.boost) for sub in node.subqueries)
        return False

    return terms if walk(q, 1.0) and terms else None


def bm25f(searcher, terms: list[tuple[str, str, float]]) -> dict[int, float]:
    """Document number -> the BM25F score Whoosh would give, for every live matching document."""
    from whoosh.reading import TermNotFound

    scores: dict[int, float] = {}
    get = scores.get
    norms = _norms(searcher, {field for field, _text, _boost in terms})
    for leaf, base in searcher.reader().leaf_readers():
        deleted = leaf.deleted_docs_set if leaf.has_deletions() else ()
        for field, text, boost in terms:
            try:
                postings = leaf.postings(field, text)
            except TermNotFound:
                continue
            norm = _doc_norms(leaf, field, norms[field])
            c = boost * searcher.idf(field, text) * (K1 + 1)
            for ids, weights in _blocks(postings):
                if base or deleted:
                    for doc, tf in zip(ids, weights):
                        if doc not in deleted:
                            key = doc + base
                            scores[key] = get(key, 0.0) + c * tf / (tf + norm[doc])
                else:   # the common case, one segment without deletions: the tightest loop
                    for doc, tf in zip(ids, weights):
                        scores[doc] = get(doc, 0.0) + c * tf / (tf + norm[doc])
    return scores


def _norms(searcher, fields: set[str]) -> dict[str, tuple[float, list[float]]]:
    """Per field: (average length, the length part of BM25's denominator for each of the 256
    length bytes Whoosh stores)."""
    from whoosh.util.numeric import byte_to_length

    out = {}
    for field in fields:
        avg = searcher.avg_field_length(field) or 1
        out[field] = (avg, [K1 * ((1 - B) + B * byte_to_length(b) / avg) for b in range(256)])
    return out


_doc_norm_memo: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _doc_norms(leaf, field: str, norms: tuple[float, list[float]]) -> list[float]:
    """Each document's length part of the denominator, for one segment and field; remembered
    while the segment's reader lives and the average length is the same."""
    avg, table = norms
    memo = _doc_norm_memo.setdefault(leaf, {})
    cached = memo.get(field)
    if cached is None or cached[0] != avg:
        cached = memo[field] = (avg, [table[b] for b in _length_bytes(leaf, field)])
    return cached[1]


def best(scores: dict[int, float], limit: int, importance: Callable[[int], float], ceiling: float, *,
         allowed: Container[int] | None = None, excluded: Container[int] = ()) -> list[tuple[float, int]]:
    """The `limit` best (score × importance, docnum), best first, exactly. Documents are
    visited by falling BM25F score, and the walk stops once not even the most important note
    (`ceiling`) could beat the last of the best so far, so few documents need their
    importance looked up. Ties go to the lower document number, as in Whoosh."""
    if limit <= 0:
        return []
    queue = [(-score, doc) for doc, score in scores.items()]
    heapq.heapify(queue)
    top: list[tuple[float, int]] = []   # a min-heap of (final, -doc): top[0] is the weakest kept
    while queue:
        negative, doc = heapq.heappop(queue)
        if len(top) == limit and -negative * ceiling < top[0][0]:
            break
        if doc in excluded or (allowed is not None and doc not in allowed):
            continue
        item = (-negative * importance(doc), -doc)
        if len(top) < limit:
            heapq.heappush(top, item)
        elif item > top[0]:
            heapq.heapreplace(top, item)
    return [(final, -negative_doc) for final, negative_doc in sorted(top, reverse=True)]


# ---------------------------------------------------------------------- Whoosh internals, pinned

def _length_bytes(leaf, field: str) -> bytes:
    """One encoded length byte per document of a segment, for a field: read whole from the
    length column rather than asked document by document (or, failing that, asked politely)."""
    from whoosh.util.numeric import length_to_byte

    count = leaf.doc_count_all()
    try:
        column = _length_column(leaf, field)
    except (ImportError, AttributeError):
        return bytes(length_to_byte(leaf.doc_field_length(doc, field, 1) or 0) for doc in range(count))
    if column is None:
        # The term has postings here, so the segment wrote lengths for the field: the column
        # file is gone (another process's commit dropped this segment). An OSError makes the
        # search reopen the index and try again, rather than score every length as 1.
        raise FileNotFoundError(f"the length column of {field!r} vanished from a segment")
    raw = column._dbfile.get(column._basepos, column._count)
    return raw + bytes(max(count - len(raw), 0))   # documents after the last stored length: 0


def _length_column(leaf, field: str):
    """The whoosh3 codec's length column reader (whoosh-reloaded is pinned in pyproject.toml)."""
    from whoosh.codec.whoosh3 import LENGTHS_COLUMN, _lenfield
    return leaf._perdoc._cached_reader(_lenfield(field), LENGTHS_COLUMN)


def _codec_matcher():
    """The whoosh3 codec's posting matcher class, whose decoded blocks _blocks takes whole."""
    from whoosh.codec.whoosh3 import W3LeafMatcher
    return W3LeafMatcher


def _blocks(matcher):
    """(ids, weights) of a term's postings, a block at a time.

    Deletions are left to the caller, so Whoosh's filtering wrapper is looked through; the
    whoosh3 codec's block arrays are taken whole, any other matcher is walked posting by posting."""
    from whoosh.matching.wrappers import FilterMatcher

    while isinstance(matcher, FilterMatcher):
        matcher = matcher.child
    if isinstance(matcher, _codec_matcher()) and hasattr(matcher, "_next_block"):
        matcher.reset()
        while matcher.is_active():
            matcher._read_data()
            raw_ids, weights = matcher._data[0], matcher._data[1]
            # ids are stored as gaps; accumulate() undoes that in C (Whoosh's decoder is a generator)
            ids = raw_ids if matcher._byteids else accumulate(raw_ids)
            if weights is None or isinstance(weights, float):   # a block of equal weights
                weights = repeat(1.0 if weights is None else weights, matcher._blocklength)
            yield ids, weights
            matcher._next_block()
        return
    matcher.reset()
    ids, weights = [], []
    while matcher.is_active():
        ids.append(matcher.id())
        weights.append(matcher.weight())
        matcher.next()
    yield ids, weights
