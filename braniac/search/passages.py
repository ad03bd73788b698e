"""A long-term note cut into passages: one claim (a bullet), one archived event or one
paragraph, each with the events it cites and its stemmed content words. Passages are cached by
file identity, so warm turns reuse them."""
from __future__ import annotations

import math
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..infra import textutil
from ..infra.errors import NoteError
from ..infra.relative_times import resolve_relative
from ..infra.fsio import read_text
from ..vault import notes
from ..vault.layout import EVENT_ID_IN_TEXT, event_day
from ..vault.links import ANY_LINK
from .ranking import B, K1

if TYPE_CHECKING:
    from ..vault.store import VaultStore

MAX_PASSAGE_CHARS = 1500
ANSWER_WEIGHT = 0.2      # an assistant's answer word counts this much in an exchange's terms
ANSWER = "\n**AI:**"     # where an archived exchange's reply starts
_PERSON = "**User:**"     # and the person's words
_HEADING = re.compile(r"^#{1,6}\s")
_LINK_ONLY = re.compile(rf"^[-*+]\s+{ANY_LINK}\s*(?:—.*)?$|^_\(none yet\)_$")


@dataclass
class Passage:
    note_rank: int
    title: str
    path: str
    uuid: str
    text: str
    cites: frozenset[str]
    words: frozenset[str]       # stemmed content words
    counts: dict[str, float]    # term -> occurrences (an answer's words weigh less, see _counts)
    score: float = 0.0
    match: float = 0.0          # the BM25 part of the score, without the note's prior
    event: str | None = None    # the one event it stands for (an archived event, a claim citing one)

    def __post_init__(self) -> None:
        if self.event is None and len(self.cites) == 1:
            self.event = next(iter(self.cites))


_Parts = list[tuple[str, frozenset[str], frozenset[str], dict[str, float]]]   # (text, cites, words, counts)
_cache: dict[tuple[str, int], tuple[str, str, _Parts]] = {}
_CACHE_SIZE = 4096      # notes whose passages are kept


def matches(passages: list[Passage], weights: dict[str, float]) -> list[float]:
    """Each passage's BM25 match with weighted terms: a term weighs more the rarer it is among
    these passages (a name that is everywhere counts little), and long passages pay a little."""
    if not passages:
        return []
    terms = weights.keys()
    df: dict[str, int] = {}
    for p in passages:
        for t in p.words & terms:
            df[t] = df.get(t, 0) + 1
    n = len(passages)
    idf = {t: weights[t] * math.log(1 + n / (1 + c)) for t, c in df.items()}
    lengths = [sum(p.counts.values()) for p in passages]
    mean_len = max(sum(lengths) / n, 1)
    out = []
    for p, length in zip(passages, lengths):
        norm = K1 * (1 - B + B * length / mean_len)
        # fsum: exact, so equal matches stay equal whatever order the set gives (Python's hash seed)
        out.append(math.fsum(idf[t] * p.counts[t] * (K1 + 1) / (p.counts[t] + norm) for t in p.words & terms))
    return out


def content_terms(text: str) -> list[str]:
    """Content words (no stop words or conversational filler), lightly stemmed."""
    return list(map(textutil.stem, textutil.content_words(text)))


def _passages_of(path: str, need_meta: bool) -> tuple[str | None, str | None, _Parts]:
    """A note's title, uuid and passages (with their citations and terms), cached by file
    identity so warm turns reuse them. The YAML is parsed only when the title and uuid are
    wanted (the index already has them for search hits); until then they are None. A note
    that cannot be read has no passages; one with broken YAML has its body's."""
    try:
        stat = os.stat(path)
    except OSError:
        return "", "", []
    key = (path, stat.st_mtime_ns ^ stat.st_size)
    cached = _cache.get(key)
    if cached is not None and (cached[0] is not None or not need_meta):
        return cached
    title = uuid = None
    try:
        text = read_text(Path(path))
    except (OSError, NoteError):
        text = None
    if need_meta:
        try:
            note = notes.parse(text, path=Path(path)) if text is not None else None
        except NoteError:
            note = None   # broken YAML: no title or uuid, but its words still count, as in search
        title, uuid = (note.title, note.uuid) if note is not None else ("", "")
    try:
        body = notes.split_frontmatter(text)[3] if text is not None else ""
    except NoteError:
        body = ""   # a frontmatter fence never closed: no telling where the body starts
    if cached is not None:
        parts = cached[2]
    else:
        parts = []
        for text in split_passages(body):
            if text.startswith("### "):
                text = _dated(text)
            counts = _counts(text)
            parts.append((text, _cited(text), frozenset(counts), counts))
    if len(_cache) >= _CACHE_SIZE and key not in _cache:
        _cache.pop(next(iter(_cache)))
    _cache[key] = cached = (title, uuid, parts)
    return cached


def is_exchange(text: str) -> bool:
    """Is this an archived event that holds the assistant's reply after the person's words?"""
    return text.startswith("### ") and ANSWER in text


def _cited(text: str) -> frozenset[str]:
    """The events a passage rests on: a claim's citations; an archived event itself (an answer
    of braniac's that quoted other events, with their ids, rests on none of them)."""
    return frozenset(EVENT_ID_IN_TEXT.findall(text.partition(ANSWER)[0] if text.startswith("### ") else text))


def said_terms(text: str, words: frozenset[str]) -> frozenset[str]:
    """A passage's terms that stand for what it remembers: in an archived exchange the person's
    words, not the assistant's answer (which may quote memories); elsewhere `words`, all of them."""
    if not is_exchange(text):
        return words
    return frozenset(content_terms(text.partition(ANSWER)[0].partition(_PERSON)[2]))


def _counts(text: str) -> dict[str, float]:
    """A passage's terms and how often each occurs. In an archived exchange the person's words
    say what it is about; the assistant's answer (a plan, code, a list, hundreds of words)
    matches almost any question a little, so its words count ANSWER_WEIGHT each (BEAM dev:
    +5.1 / +2.8 / 0.0 at 300 / 750 / 1500 words)."""
    if not is_exchange(text):
        return Counter(content_terms(text))
    said, _, answer = text.partition(ANSWER)
    counts: dict[str, float] = Counter(content_terms(said))
    for t, c in Counter(content_terms(answer)).items():
        counts[t] = counts.get(t, 0) + ANSWER_WEIGHT * c
    return counts


def _dated(event_text: str) -> str:
    """An archived event keeps the person's words as they were said; its passage adds, after
    each relative time ("last Friday"), the day it stood for on the event's own date."""
    found = EVENT_ID_IN_TEXT.search(event_text.split("\n", 1)[0])
    try:
        return resolve_relative(event_text, event_day(found.group(0))) if found else event_text
    except ValueError:
        return event_text


def note_passages(vault: "VaultStore", path: str, rank: int, title: str | None = None,
                  uuid: str | None = None) -> list[Passage]:
    """The passages of one note (vault-relative path); title and uuid as the index has them, or
    the note's own."""
    own_title, own_uuid, parts = _passages_of(os.path.join(vault.root, path), title is None or uuid is None)
    title = own_title if title is None else title
    uuid = own_uuid if uuid is None else uuid
    return [Passage(rank, title, path, uuid, text, cites, words, counts) for text, cites, words, counts in parts]


def event_passages(raw_events: list[str], path: str, title: str, rank: int) -> list[Passage]:
    """Events not yet archived (short-term memory's `### <id>` entries) as passages, read as an
    archived event is: for a host that has not seen them (recall over MCP)."""
    out = []
    for text in split_passages("\n\n".join(raw_events)):   # braniac's own Thoughts left out, as archived
        text = _dated(text) if text.startswith("### ") else text
        counts = _counts(text)
        out.append(Passage(rank, title, path, "", text, _cited(text), frozenset(counts), counts))
    return out


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
        if stripped.startswith("### ") and EVENT_ID_IN_TEXT.search(stripped):
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
