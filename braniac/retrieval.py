"""From search queries to the long-term-memory excerpts that enter the working memory.

Each query is searched; the result lists are merged by reciprocal rank fusion (a note found by
several queries rises); each note contributes the passages that share the most words with the
queries, not merely its first lines.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import notes, textutil
from .errors import NoteError
from .model.types import Excerpt

if TYPE_CHECKING:
    from .index import SearchIndex

LTM_KINDS = ("concrete", "events", "skills")  # _index.md files guide people and organization, not answers
RRF_K = 60
EXCERPT_CHARS = 1200
_LINK_ONLY = re.compile(r"^[-*+]\s+\[[^\]]*\]\([^)]*\)\s*(?:—.*)?$|^##\s+Related Memories$|^_\(none yet\)_$")
_BLOCK = re.compile(r"\n\s*\n|\n(?=\s*[-*+] |\s*\d+\. |#)")


@dataclass
class Retrieved:
    excerpts: list[Excerpt]
    paths: list[str]   # vault-relative paths of the LTM files read


def retrieve(index: "SearchIndex", queries: list[str], *, limit: int = 8, per_query: int = 10,
             excerpt_chars: int = EXCERPT_CHARS) -> Retrieved:
    fused: dict[str, float] = {}
    hits_by_path = {}
    for query in queries:
        for rank, hit in enumerate(index.search(query, limit=per_query, sync=False)):
            if hit.kind not in LTM_KINDS:
                continue
            fused[hit.path] = fused.get(hit.path, 0.0) + 1.0 / (RRF_K + rank + 1)
            hits_by_path.setdefault(hit.path, hit)
    ranked = sorted(fused, key=lambda p: -fused[p])[:limit]
    query_words = {w for q in queries for w in textutil.content_words(q)}
    excerpts, read = [], []
    for path in ranked:
        hit = hits_by_path[path]
        try:
            note = notes.read(index.vault.root / path)
        except NoteError:
            continue
        read.append(path)
        excerpts.append(Excerpt(uuid=hit.uuid, path=path, title=hit.title,
                                text=best_passages(note.body, query_words, excerpt_chars), score=fused[path]))
    return Retrieved(excerpts, read)


def best_passages(body: str, query_words: set[str], max_chars: int) -> str:
    """The paragraphs or list items of `body` that share the most words with the queries,
    kept in document order, within max_chars."""
    blocks = [b.strip() for b in _BLOCK.split(body) if b and b.strip() and not _LINK_ONLY.match(b.strip())]
    if not blocks:
        return ""
    if sum(len(b) for b in blocks) <= max_chars:
        return "\n\n".join(blocks)
    scored = sorted(range(len(blocks)), key=lambda i: (-textutil.overlap(query_words, blocks[i]), i))
    chosen, used = [], 0
    for i in scored:
        if used + len(blocks[i]) > max_chars and chosen:
            continue
        chosen.append(i)
        used += len(blocks[i])
        if used >= max_chars:
            break
    text = "\n\n".join(blocks[i] for i in sorted(chosen))
    return text[:max_chars]
