"""A query's best documents: BM25F × emergent importance, exactly, with what each searcher
read remembered for the next search."""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Callable

from . import ranking, scoring
from .filelist import CorruptIndex


@dataclass
class Hit:
    title: str
    path: str           # vault-relative
    uuid: str
    kind: str
    score: float
    excerpt: str

    def as_dict(self) -> dict:
        return {"title": self.title, "path": self.path, "uuid": self.uuid, "kind": self.kind,
                "score": round(self.score, 4), "excerpt": self.excerpt}


class HitFinder:
    """Ranks one index's documents. Plain words are scored straight from the postings (see
    scoring) and every matching note is weighed by importance; phrases, AND and NOT go through
    Whoosh's collector. Stored fields, the documents of each kind and the importance ceiling
    are remembered while they stay valid."""

    def __init__(self):
        self._fields: _StoredFields | None = None
        self._kinds: tuple[object, dict[str, frozenset[int]]] = (None, {})   # (searcher, kind -> docnums)
        self._ceiling_of: tuple | None = None

    def forget(self) -> None:
        """The index was closed: what its searchers read may describe files that are gone."""
        self._fields, self._kinds = None, (None, {})

    def best(self, searcher, q, limit: int, kind: str | None, exclude: tuple[str, ...],
             inbound: dict[str, int], reads: dict[str, int]) -> list[tuple[float, dict]]:
        """(score, stored fields) of the best documents, best first."""
        excluded = [k for k in exclude if not kind and searcher.doc_frequency("kind", k)]

        def importance(fields: dict) -> float:
            rel = fields.get("path")
            if rel is None:   # a stored-fields column cut short can read as no fields at all
                raise CorruptIndex("has a document without its stored fields")
            return ranking.importance(ranking.Signals(depth=fields.get("depth") or 0, inbound=inbound.get(rel, 0),
                                                      reads=reads.get(rel, 0)))

        terms = scoring.plain_terms(q, searcher.schema)
        if terms is None:
            return self._collector_search(searcher, q, limit, kind, excluded, importance)
        ranked = scoring.best(
            scoring.bm25f(searcher, terms), limit, lambda doc: importance(self._stored(searcher, doc)),
            self._ceiling(inbound, reads),
            allowed=self._kind_docs(searcher, kind) if kind else None,
            excluded=set().union(*(self._kind_docs(searcher, k) for k in excluded)))
        return [(score, self._stored(searcher, doc)) for score, doc in ranked]

    def _collector_search(self, searcher, q, limit: int, kind: str | None, excluded: list[str],
                          importance: Callable[[dict], float]) -> list[tuple[float, dict]]:
        """Phrases, AND, NOT: Whoosh's collector finds BM25F's best limit x RERANK_POOL hits,
        and importance re-ranks those."""
        from whoosh import query  # whoosh is imported on first use: it costs ~0.2 s

        filter_q = query.Term("kind", kind) if kind else None
        # no mask when nothing is excluded: checking it costs every matching note
        mask = query.Or([query.Term("kind", k) for k in excluded]) if excluded else None
        results = searcher.search(q, limit=max(limit, 1) * ranking.RERANK_POOL, filter=filter_q, mask=mask)
        scored = [(hit.score * importance(hit.fields()), hit.fields()) for hit in results]
        scored.sort(key=lambda item: -item[0])
        return scored

    def _stored(self, searcher, doc: int) -> dict:
        """A document's stored fields (remembered per segment, see _StoredFields)."""
        if self._fields is None or self._fields.searcher is not searcher:
            self._fields = _StoredFields(searcher, self._fields)
        return self._fields.get(doc)

    def _kind_docs(self, searcher, kind: str) -> frozenset[int]:
        """Document numbers of one kind, remembered while the searcher stays open (they change
        with it)."""
        if self._kinds[0] is not searcher:
            self._kinds = (searcher, {})
        memo = self._kinds[1]
        if kind not in memo:
            from whoosh import query  # whoosh is imported on first use: it costs ~0.2 s

            memo[kind] = frozenset(searcher.docs_for_query(query.Term("kind", kind)))
        return memo[kind]

    def _ceiling(self, inbound: dict[str, int], reads: dict[str, int]) -> float:
        # read_counts and the file list's inbound counts hand back the same dicts until something changed
        cached = self._ceiling_of
        if cached is None or cached[0] is not inbound or cached[1] is not reads:
            cached = self._ceiling_of = (inbound, reads, ranking.ceiling(inbound, reads))
        return cached[2]


class _StoredFields:
    """Stored fields by document number, remembered per segment. A segment never changes once
    written, so what was read survives the fresh searcher every commit brings (the chat gets
    one each turn, when reflection's short-term memory is re-indexed); a merge retires it."""

    def __init__(self, searcher, previous: "_StoredFields | None" = None):
        self.searcher = searcher
        before = previous.by_segment if previous is not None else {}
        self.by_segment: dict[str, dict[int, dict]] = {}
        self.bases: list[int] = []
        self.leaves: list[tuple[object, dict[int, dict]]] = []
        for leaf, base in searcher.reader().leaf_readers():
            segment = leaf.segment() if hasattr(leaf, "segment") else None
            key = segment.segment_id() if segment is not None else None
            memo = before.get(key, {}) if key else {}
            if key:
                self.by_segment[key] = memo
            self.bases.append(base)
            self.leaves.append((leaf, memo))

    def get(self, doc: int) -> dict:
        at = bisect.bisect_right(self.bases, doc) - 1
        leaf, memo = self.leaves[at]
        local = doc - self.bases[at]
        fields = memo.get(local)
        if fields is None:
            fields = memo[local] = leaf.stored_fields(local)
        return fields
