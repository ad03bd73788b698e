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

import os

from . import clock, notes, textutil
from .errors import NoteError
from .ltm import event_path
from .model.types import Excerpt

_K = {k: float(os.environ.get("BR_" + k, d)) for k, d in
      {"ALPHA": 0.0, "BETA": 0.0, "TOPEV": 30, "PERQ": 20, "POOL": 30, "PRIOR": 4.0, "QONLY": 0, "USEMATCH": 0, "IDF": 0, "ALPHAS": 0.0, "GENW": 1.0, "CTXW": 1.0, "DATEB": 0.0, "DAYPOOL": 0}.items()}

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
    match: float = 0.0


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
    per_query = int(_K["PERQ"]); pool = int(_K["POOL"])
    fused: dict[str, float] = {}
    hits_by_path = {}
    for query in queries:
        for rank, hit in enumerate(index.search(query, limit=per_query, sync=False, excerpts=False)):
            if hit.kind not in LTM_KINDS:
                continue
            fused[hit.path] = fused.get(hit.path, 0.0) + 1.0 / (RRF_K + rank + 1)
            hits_by_path.setdefault(hit.path, hit)
    ranked = sorted(fused, key=lambda p: -fused[p])[:max(pool, limit)]
    passages = []
    root = index.vault.root
    for rank, path in enumerate(ranked):
        hit = hits_by_path[path]
        passages += _load(root, path, hit.title, hit.uuid, rank)
    query_terms = _weights(queries, prompt)
    spans = textutil.date_spans(prompt or " ".join(queries), clock.now())
    if spans and _K["DAYPOOL"]:
        passages += _days(index.vault, spans, len(ranked), {c for p in passages for c in p.cites})
    _score(passages, query_terms, len(ranked), index)
    if _K["ALPHA"] or _K["BETA"]:
        passages = _spread(index, passages, query_terms, len(ranked))
    if spans and _K["DATEB"]:
        for p in passages:
            if p.score > 0 and any(start <= c[:10] <= end for c in p.cites for start, end in spans):
                p.score *= 1 + _K["DATEB"]
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


_GENERIC = frozenset(textutil.stem(w) for w in textutil.GENERIC_WORDS)


def _weights(queries: list[str], prompt: str) -> dict[str, float]:
    """Query terms and their weights: the prompt's own words count fully, words a query added
    (context standing in for a pronoun, related words) less, and frequent verbs and adjectives
    ("feel", "recently") little."""
    own = set(_terms(prompt)) if prompt else set()
    weights: dict[str, float] = {}
    for t in _terms(" ".join([*queries, prompt])):
        w = 1.0 if (t in own or not own) else _K["CTXW"]
        if t in _GENERIC:
            w *= _K["GENW"]
        weights[t] = max(weights.get(t, 0.0), w)
    return weights


def _load(root, path: str, title: str, uuid: str, rank: int) -> list[Passage]:
    full = root / path

    def load(full=full) -> str:
        try:
            return notes.read(full).body
        except NoteError:
            return ""
    return [Passage(rank, title, path, uuid, text, cites, words, counts)
            for text, cites, words, counts in _passages_of(full, load)]


def _days(vault, spans: list[tuple[str, str]], rank: int, have: set[str]) -> list[Passage]:
    """The archived events of the days a prompt names ("on 13 October, 2023"), for a short span."""
    from datetime import date, timedelta
    out: list[Passage] = []
    for start, end in spans:
        first, last = date.fromisoformat(start), date.fromisoformat(end)
        if (last - first).days > 2:
            continue
        day = first
        while day <= last:
            folder = vault.ltm_root / "events" / f"{day.year:04d}" / f"{day.month:02d}" / f"{day.day:02d}"
            for name in _day_events(folder):
                event_id = name[:13] + ":" + name[14:16] + ":" + name[17:]
                if event_id not in have:
                    have.add(event_id)
                    out += _load(vault.root, vault.relative(folder / f"{name}.md"), "", "", rank)
            day += timedelta(days=1)
    return out


_folders: dict[str, tuple[int, list[str]]] = {}


def _day_events(folder) -> list[str]:
    """Event ids archived in one day's folder, in time order (cached by the folder's mtime)."""
    try:
        stamp = folder.stat().st_mtime_ns
    except OSError:
        return []
    key = str(folder)
    cached = _folders.get(key)
    if cached is None or cached[0] != stamp:
        ids = sorted(n[:-3] for n in os.listdir(folder) if n.endswith("Z.md"))
        cached = (stamp, ids)
        if len(_folders) >= _CACHE_SIZE:
            _folders.pop(next(iter(_folders)))
        _folders[key] = cached
    return cached[1]


def _neighbours(vault, event_id: str) -> tuple[str | None, str | None]:
    """The events archived just before and after one event on the same day (the question an
    answer replies to, the reply a question got)."""
    path = event_path(vault, event_id)
    ids = _day_events(path.parent)
    name = path.stem
    try:
        i = ids.index(name)
    except ValueError:
        return None, None

    def back(n: str) -> str:
        return n[:13] + ":" + n[14:16] + ":" + n[17:]
    return (back(ids[i - 1]) if i > 0 else None), (back(ids[i + 1]) if i + 1 < len(ids) else None)


def _spread(index, passages: list[Passage], query_terms: set[str], notes_found: int) -> list[Passage]:
    """Spreading activation along the conversation: an event next to a strong hit (the answer
    after a matching question, the question before a matching answer) is pulled in and lifted."""
    vault = index.vault
    own: dict[str, float] = {}
    for p in passages:
        if len(p.cites) == 1:
            (e,) = p.cites
            own[e] = max(own.get(e, 0.0), p.score)
    top = sorted(own, key=lambda e: -own[e])[:int(_K["TOPEV"])]
    have = set(own)
    near: dict[str, tuple[str | None, str | None]] = {}
    extra: list[Passage] = []
    for e in top:
        prev, nxt = _neighbours(vault, e)
        near[e] = (prev, nxt)
        for n in (prev, nxt):
            if n and n not in have:
                have.add(n)
                path = event_path(vault, n)
                rel = vault.relative(path)
                extra += _load(vault.root, rel, "", "", notes_found)
    if extra:
        passages = passages + extra
        _score(passages, query_terms, notes_found, index)
        own = {}
        for p in passages:
            if len(p.cites) == 1:
                (e,) = p.cites
                own[e] = max(own.get(e, 0.0), p.score)
    asks = {next(iter(p.cites)) for p in passages if len(p.cites) == 1 and "?" in p.text}
    if _K["USEMATCH"]:
        own = {}
        for p in passages:
            if len(p.cites) == 1:
                (e,) = p.cites
                own[e] = max(own.get(e, 0.0), p.match)
    if _K["QONLY"]:
        own_prev = {e: v for e, v in own.items() if e in asks}
    else:
        own_prev = own
    for p in passages:
        if len(p.cites) != 1:
            continue
        (e,) = p.cites
        prev, nxt = near.get(e) or _neighbours(vault, e)
        bonus = _K["ALPHA"] * own_prev.get(prev, 0.0) + _K["ALPHAS"] * (own.get(prev, 0.0) - own_prev.get(prev, 0.0)) + _K["BETA"] * own.get(nxt, 0.0) if (prev or nxt) else 0.0
        if bonus:
            p.score += bonus
    return passages


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
        for t in p.words & query_terms.keys():
            df[t] = df.get(t, 0) + 1
    n = len(passages)
    if _K["IDF"] == 1:
        idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
    else:
        idf = {t: math.log(1 + n / (1 + c)) for t, c in df.items()}
    lengths = [sum(p.counts.values()) for p in passages]
    mean_len = sum(lengths) / n
    k1, b = 1.2, 0.75
    for p, length in zip(passages, lengths):
        norm = k1 * (1 - b + b * length / max(mean_len, 1))
        match = sum(query_terms[t] * idf[t] * p.counts[t] * (k1 + 1) / (p.counts[t] + norm) for t in p.words & query_terms.keys())
        prior = _K["PRIOR"] / (RRF_K + p.note_rank + 1) * RRF_K / max(notes_found, 1)
        p.score = match + prior if match > 0 else 0.0
        p.match = match


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
