"""From search queries to the long-term-memory excerpts that enter the working memory.

1. Each query is searched; the result lists are merged by reciprocal rank fusion (a note found
   by several queries rises).
2. The notes found are cut into passages: one claim (a bullet), one archived event, or one
   paragraph, each keeping the citations it carries.
3. Passages are ranked against the queries across all those notes (words weighted by how rare
   they are in the pool, so a name that is everywhere counts little), with the note's own rank
   as a prior, so the passage that answers wins over the first lines of a big note.
4. A passage whose events are already cited by a better one is skipped: the same claim kept in
   an entity note, a topic note, a digest and the events archive enters the working memory once.
"""
from __future__ import annotations

import math
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
NOTE_PRIOR = 4.0          # weight of the note's fused rank against the passage's own match
MAX_PASSAGE_CHARS = 1500
_EVENT_ID = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z")
_HEADING = re.compile(r"^#{1,6}\s")
_LINK_ONLY = re.compile(r"^[-*+]\s+\[[^\]]*\]\([^)]*\)\s*(?:—.*)?$|^_\(none yet\)_$")


@dataclass
class Retrieved:
    excerpts: list[Excerpt]
    paths: list[str]   # vault-relative paths of the LTM files read


@dataclass
class Passage:
    note_rank: int
    title: str
    path: str
    uuid: str
    text: str
    cites: frozenset[str]
    words: frozenset[str]       # stemmed terms, as the index analyzes them
    counts: dict[str, int]
    score: float = 0.0


_cache: dict[tuple[str, int], list[tuple[str, frozenset[str], frozenset[str], dict[str, int]]]] = {}
_CACHE_SIZE = 2048


def _terms(text: str) -> list[str]:
    """Content words (no stop words or conversational filler), lightly stemmed."""
    return [textutil.stem(w) for w in textutil.content_words(text)]


def _passages_of(path, body_loader) -> list[tuple[str, frozenset[str], frozenset[str], dict[str, int]]]:
    """A note's passages with their citations and terms, cached by file identity (warm turns reuse them)."""
    try:
        stat = path.stat()
    except OSError:
        return []
    key = (str(path), stat.st_mtime_ns ^ stat.st_size)
    cached = _cache.get(key)
    if cached is None:
        cached = []
        for text in split_passages(body_loader()):
            terms = _terms(text)
            counts: dict[str, int] = {}
            for t in terms:
                counts[t] = counts.get(t, 0) + 1
            cached.append((text, frozenset(_EVENT_ID.findall(text)), frozenset(counts), counts))
        if len(_cache) >= _CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = cached
    return cached


def retrieve(index: "SearchIndex", queries: list[str], *, limit: int = 8, per_query: int = 20,
             pool: int = 30, prompt: str = "") -> Retrieved:
    fused: dict[str, float] = {}
    hits_by_path = {}
    for query in queries:
        for rank, hit in enumerate(index.search(query, limit=per_query, sync=False)):
            if hit.kind not in LTM_KINDS:
                continue
            fused[hit.path] = fused.get(hit.path, 0.0) + 1.0 / (RRF_K + rank + 1)
            hits_by_path.setdefault(hit.path, hit)
    ranked = sorted(fused, key=lambda p: -fused[p])[:max(pool, limit)]
    passages = []
    for rank, path in enumerate(ranked):
        hit = hits_by_path[path]
        full = index.vault.root / path

        def load(full=full) -> str:
            try:
                return notes.read(full).body
            except NoteError:
                return ""
        for text, cites, words, counts in _passages_of(full, load):
            passages.append(Passage(rank, hit.title, path, hit.uuid, text, cites, words, counts))
    query_terms = set(_terms(" ".join([*queries, prompt])))
    _score(passages, query_terms, len(ranked), index)
    chosen = _distinct(sorted(passages, key=lambda p: -p.score), limit)
    excerpts, last_path = [], None
    for passage in chosen:
        # an archived event names itself (its ### id); other notes' titles are said once
        title = "" if passage.path == last_path or passage.text.startswith("### ") else passage.title
        excerpts.append(Excerpt(uuid=passage.uuid, path=passage.path, title=title, text=passage.text,
                                score=passage.score))
        last_path = passage.path
    used = list(dict.fromkeys(e.path for e in excerpts))
    return Retrieved(excerpts, used)


def split_passages(body: str) -> list[str]:
    """Claims (list items), archived events (### id blocks) and paragraphs, without headings,
    link-only lines or braniac's own reflection notes."""
    out: list[str] = []
    current: list[str] = []
    in_event = False

    def flush() -> None:
        text = "\n".join(current).strip()
        if text:
            out.append(text[:MAX_PASSAGE_CHARS])
        current.clear()

    for line in body.split("\n"):
        stripped = line.strip()
        if stripped.startswith("### ") and _EVENT_ID.search(stripped):
            flush()
            in_event = True
            current.append(stripped)
            continue
        if stripped.startswith("**Thoughts:**"):
            continue
        if _HEADING.match(stripped) or _LINK_ONLY.match(stripped):
            flush()
            in_event = False
            continue
        if not stripped:
            if not in_event:
                flush()
            continue
        if re.match(r"^[-*+] |^\d+\. ", stripped) and not in_event:
            flush()
        current.append(line.rstrip())
    flush()
    return out


def _score(passages: list[Passage], query_terms: set[str], notes_found: int, index: "SearchIndex") -> None:
    """Each passage's match with the query terms, a term weighing more the rarer it is among the
    passages found (a name that is everywhere counts little), long passages paying a little,
    plus the note's own rank as a prior."""
    if not passages:
        return
    df: dict[str, int] = {}
    for p in passages:
        for t in p.words & query_terms:
            df[t] = df.get(t, 0) + 1
    n = len(passages)
    idf = {t: math.log(1 + n / (1 + c)) for t, c in df.items()}
    lengths = [sum(p.counts.values()) for p in passages]
    mean_len = sum(lengths) / n
    k1, b = 1.2, 0.75
    for p, length in zip(passages, lengths):
        norm = k1 * (1 - b + b * length / max(mean_len, 1))
        match = sum(idf[t] * p.counts[t] * (k1 + 1) / (p.counts[t] + norm) for t in p.words & query_terms)
        prior = NOTE_PRIOR / (RRF_K + p.note_rank + 1) * RRF_K / max(notes_found, 1)
        p.score = match + prior if match > 0 else 0.0


def _distinct(passages: list[Passage], limit: int) -> list[Passage]:
    """Best first, skipping passages whose events are already cited or whose words repeat one taken."""
    chosen: list[Passage] = []
    words_by_event: dict[str, set[str]] = {}
    seen_words: list[frozenset[str]] = []
    max_passages = max(limit, 1) * 8
    for p in passages:
        if p.score <= 0:
            continue
        if p.cites and all(e in words_by_event for e in p.cites):
            known = set().union(*(words_by_event[e] for e in p.cites))
            if len(p.words - known) < 0.25 * max(len(p.words), 1):
                continue  # the same events, and hardly a word more
        if any(len(p.words & w) >= 0.9 * max(len(p.words), 1) for w in seen_words):
            continue
        chosen.append(p)
        for event in p.cites:
            words_by_event.setdefault(event, set()).update(p.words)
        seen_words.append(p.words)
        if len(chosen) >= max_passages:
            break
    return chosen
