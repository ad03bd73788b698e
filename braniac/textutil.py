"""Plain-text helpers shared by the offline engine and retrieval: words, entities, dates."""
from __future__ import annotations

import re
from functools import lru_cache

STOP_WORDS = frozenset("""
a about above after again against all also am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
don't down during each few for from further had hadn't has hasn't have haven't having he he'd he'll
he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't
it it's its itself let's me more most mustn't my myself no nor not of off on once only or other
ought our ours ourselves out over own same shan't she she'd she'll she's should shouldn't so some
such than that that's the their theirs them themselves then there there's these they they'd they'll
they're they've this those through to too under until up very was wasn't we we'd we'll we're we've
were weren't what what's when when's where where's which while who who's whom why why's with won't
would wouldn't you you'd you'll you're you've your yours yourself yourselves yes yeah ok okay oh
just really like well get got also would could should might must shall will may lot lots thing things
know think thought tell told say said going go went gone come came make made take took want wanted
one two much many even still back way good great nice sure thanks thank hey hi hello wow did does
""".split())

# Frequent verbs and adjectives: poor names for a topic note of their own.
GENERIC_WORDS = frozenset("""
moved move moving left leave leaving went going goes made make making love loved loves like liked likes feel feeling felt
think thinking know knew want wants wanted need needs needed said says saying told asked ask see saw seen
look looked looking try tried trying use used using work worked working start started starting keep kept
give gave find found call called come coming take taking took help helped helps really pretty little big
new old first last next time times day days week weeks month months year years today yesterday tomorrow
lot lots people person thing things stuff something anything everything nothing awesome amazing great
glad happy sure cool nice good bad best better right love great super totally definitely always never
sometimes also though even still maybe actually especially probably recently
""".split())

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)
_ENTITY = re.compile(r"\b([A-Z][\w'’-]*(?:\s+(?:of|de|van|von|the|and|&)?\s*[A-Z][\w'’-]*)*)")
_DATE = re.compile(
    r"\b(\d{4}-\d{2}-\d{2}|\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?,?\s+\d{4}"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{4}|\b(?:19|20)\d{2}\b)",
    re.IGNORECASE,
)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def content_words(text: str, min_length: int = 3) -> list[str]:
    """Lowercase words that carry meaning: no stop words, no short tokens."""
    return [w for w in words(text) if len(w) >= min_length and w not in STOP_WORDS and not w.isdigit()]


def keywords(text: str, limit: int = 12) -> list[str]:
    """Distinct content words in order of first appearance."""
    seen: dict[str, None] = {}
    for word in content_words(text):
        seen.setdefault(word, None)
        if len(seen) >= limit:
            break
    return list(seen)


_SENTENCE_START_COMMON = STOP_WORDS | {"what", "when", "where", "who", "why", "how", "which", "did", "does",
                                      "is", "are", "can", "could", "would", "should", "will", "has", "have",
                                      "do", "i", "my", "remember", "please", "tell", "user", "ai", "thoughts"}


_CALENDAR = frozenset("""january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday
today tomorrow yesterday""".split())
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[\"“(]\s*)$")


def entities(text: str, known: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Capitalized names (people, places, projects, tools). A capitalized word that only opens
    a sentence ("Remind me…") counts only if it is `known` as a name from elsewhere."""
    found: dict[str, None] = {}
    for match in _ENTITY.finditer(text):
        name = match.group(1).strip(" '’-")
        parts = name.split()
        at_start = bool(_SENTENCE_START.search(text[: match.start()]))
        while parts and (parts[0].lower() in _SENTENCE_START_COMMON or parts[0].lower() in _CALENDAR):
            parts = parts[1:]
            at_start = False
        parts = [p for p in parts if p.lower() not in _CALENDAR]
        if not parts:
            continue
        name = " ".join(parts)
        if at_start and len(parts) == 1 and name not in known:
            continue
        if len(name) >= 2 and name.lower() not in STOP_WORDS:
            found.setdefault(name, None)
    return list(found)


def names_in(texts: list[str]) -> set[str]:
    """Capitalized words seen in the middle of a sentence: the text's own vocabulary of names."""
    known: set[str] = set()
    for text in texts:
        for match in re.finditer(r"(?<=[a-z,]\s)([A-Z][\w'’-]+)", text):
            if match.group(1).lower() not in _CALENDAR and match.group(1).lower() not in STOP_WORDS:
                known.add(match.group(1))
    return known


def dates(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1) for m in _DATE.finditer(text)))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light stemmer, enough to match 'loves', 'loved' and 'loving' with 'love' when scoring
    overlap: strip one inflection, then a trailing 'e'."""
    base = word
    if len(word) > 4 and word.endswith(("ies", "ied")):
        base = word[:-3] + "y"
    else:
        for suffix in ("ingly", "edly", "ing", "ed", "ly", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
                base = word[: -len(suffix)]
                break
    if len(base) > 3 and base.endswith("e"):
        base = base[:-1]
    return base


def overlap(query_words: set[str], text: str) -> float:
    """Share of the query's (stemmed) content words found in text."""
    if not query_words:
        return 0.0
    found = {stem(w) for w in content_words(text)}
    return sum(1 for w in query_words if stem(w) in found) / len(query_words)
