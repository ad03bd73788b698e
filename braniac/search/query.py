"""From a person's (or a model's) search text to a Whoosh query, and from a hit back to the
words it matched: the excerpt shown under each hit."""
from __future__ import annotations

import os
import re

from ..infra.errors import NoteError
from ..infra.fsio import MAX_TEXT_BYTES, open_regular
from ..vault import notes
from . import ranking
from .documents import analyzer, schema

_PARSER = None
_ANALYZER = None
# what a search looks at of its text: the parser's work grows fast with the number of words
MAX_QUERY_CHARS = 2000


def parse_query(text: str):
    """A Whoosh query for free text. Quotes make phrases; anything else is words, OR-ed (BM25F
    sums over the words, so a note matching more of them ranks higher). Never raises: odd
    syntax falls back to plain words."""
    from whoosh import query  # whoosh is imported on first use: it costs ~0.2 s

    text = (text or "").strip()[:MAX_QUERY_CHARS]
    if not text:
        return None
    parser = _parser()
    try:
        q = parser.parse(text)
    except Exception:
        q = None
    if q is None or q is query.NullQuery or not _has_terms(q):
        words = " ".join(re.findall(r"\w+", text, re.UNICODE))
        if not words:
            return None
        try:
            q = parser.parse(words)
        except Exception:
            return None
    if q is query.NullQuery or not _has_terms(q):
        return None
    return q


def _has_terms(q) -> bool:
    try:
        return any(True for _ in q.iter_all_terms())
    except Exception:
        return False


def _parser():
    global _PARSER
    if _PARSER is None:
        from whoosh import qparser  # whoosh is imported on first use: it costs ~0.2 s

        parser = qparser.MultifieldParser(["title", "tags", "body"], schema(), fieldboosts=ranking.FIELD_BOOSTS,
                                          group=qparser.OrGroup)
        # Not OrGroup.factory(0.9): its coordination bonus (Whoosh's CoordMatcher) multiplies
        # every score by (terms - 1) / terms, where terms counts only the query's words that
        # occur in the index; a one-word query matching one field then scores 0 for every
        # note, and neither BM25F nor emergent importance orders the results.
        # Only words, quotes and AND/OR/NOT: field names, wildcards, ranges and boosts in a
        # person's (or a model's) query would surprise more than help.
        for plugin in (qparser.FieldsPlugin, qparser.WildcardPlugin, qparser.RangePlugin, qparser.BoostPlugin,
                       qparser.GroupPlugin):
            parser.remove_plugin_class(plugin)
        _PARSER = parser
    return _PARSER


# ---------------------------------------------------------------------- excerpts

def query_words(q) -> set[str]:
    """The analyzed (lowercased, stemmed) words of a query's title and body terms."""
    words = set()
    for field, text in q.iter_all_terms():
        if field in ("title", "body", "tags"):
            words.add(text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text))
    return words


def excerpt(root: str, rel: str, words: set[str], maxchars: int = 240) -> str:
    """Up to two passages of the note's body around the query's words, in **bold**.

    A regular expression finds candidate words by the start of each query stem, and only
    those are stemmed to confirm them: Whoosh's highlighter analyzed every word of every
    hit's body, a fifth of the time of a search."""
    try:
        with open_regular(os.path.join(root, rel), root=root) as handle:
            text = handle.read(MAX_TEXT_BYTES).decode("utf-8", errors="replace")
    except (OSError, NoteError):
        return ""
    body = notes.body_of(text)
    found = _find_words(body, words)
    if not found:
        plain = " ".join(line for line in body.splitlines() if line.strip() and not line.startswith("#"))
        return " ".join(plain[:maxchars].split())
    fragments, end = [], -1
    for start, _stop in found:
        if start < end:
            continue
        lo = body.rfind(" ", 0, max(start - 60, 0)) + 1 if start > 60 else 0
        lo = max(lo, end)  # never repeat the end of the previous passage
        hi = body.find(" ", lo + maxchars)
        hi = len(body) if hi < 0 else hi
        marked, at = [], lo
        for s, e in found:
            if lo <= s and e <= hi:
                marked += [body[at:s], "**", body[s:e], "**"]
                at = e
        marked.append(body[at:hi])
        fragments.append(" ".join("".join(marked).split()))
        end = hi
        if len(fragments) == 2:
            break
    return " … ".join(fragments)


def _find_words(body: str, words: set[str], most: int = 24) -> list[tuple[int, int]]:
    """(start, end) of body words whose analyzed form is one of `words`, in order."""
    if not words:
        return []
    # A stem is nearly always a prefix of its words, less its last letter (happi/happy).
    prefixes = sorted({w[:-1] if len(w) > 3 else w for w in words}, key=len, reverse=True)
    pattern = re.compile(r"\b(?:%s)\w*" % "|".join(map(re.escape, prefixes)), re.IGNORECASE)
    found = []
    for checked, match in enumerate(pattern.finditer(body)):
        if set(_analyze(match.group(0))) & words:
            found.append(match.span())
        if len(found) >= most or checked > 50 * most:
            break  # enough for two passages, even in a long note full of near misses
    return found


def _analyze(word: str) -> list[str]:
    global _ANALYZER
    if _ANALYZER is None:
        _ANALYZER = analyzer()
    return [t.text for t in _ANALYZER(word)]
