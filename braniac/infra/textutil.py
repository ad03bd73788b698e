"""Plain-text helpers shared by the offline engine and retrieval: words, entities, values, dates."""
from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Callable

from .markdown_prose import TITLES, opens_sentence  # noqa: F401  (textutil.TITLES for callers)
from .stemming import english_words, forms_by_word, irregular_base, stem  # noqa: F401  (textutil.stem for callers)

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
gonna wanna gotta yep yup nope kinda sorta lol haha btw omg
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

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
# a name is a few capitalized words ("Universidade de Lisboa"), not a run of thousands of them
_JOINERS = ("of", "de", "van", "von", "the", "and", "&")   # words inside a name ("Bank of England")
_ENTITY = re.compile(rf"\b([A-Z][\w'’-]*(?:\s+(?:{'|'.join(_JOINERS)})?\s*[A-Z][\w'’-]*){{0,6}})")
MAX_NAME_CHARS = 80
_DATE = re.compile(
    r"\b(\d{4}-\d{2}-\d{2}|\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?,?\s+\d{4}"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{4}|\b(?:19|20)\d{2}\b)",
    re.IGNORECASE,
)


def words(text: str) -> list[str]:
    """Lowercase words; a possessive 's is taken off ("Gina's store's" -> gina, store), so the
    owner matches the name; contractions ("it's", "don't") are kept whole for the stop words."""
    # map() and one comprehension: this runs over every passage retrieval reads
    lowered = map(str.lower, _WORD.findall(text))
    if "’" in text:
        lowered = (w.replace("’", "'") for w in lowered)
    return [w[:-2] if w[-2:] == "'s" and w not in STOP_WORDS else w for w in lowered]


_ACRONYM = re.compile(r"\b([A-Z]{2})s?\b")
_NOT_ACRONYMS = frozenset({"am", "pm", "ok"})


def content_words(text: str, min_length: int = 3) -> list[str]:
    """Lowercase words that carry meaning: no stop words, no short tokens, except two capitals
    that name something ("my GP", "I switched GPs", "HR"; not "IT", which reads as a stop word)."""
    found = [w for w in words(text) if len(w) >= min_length and w not in STOP_WORDS and not w.isdigit()]
    if min_length != 3 or not _ACRONYM.search(text):
        return found
    short = {a.lower() for a in _ACRONYM.findall(text)} - _NOT_ACRONYMS - STOP_WORDS
    return [w[:2] if len(w) == 3 and w[:2] in short and w[2] == "s" else w
            for w in words(text) if (len(w) >= min_length or w in short) and w not in STOP_WORDS and not w.isdigit()]


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
mon tue tues wed thu thur thurs fri sat sun today tomorrow yesterday""".split())


_STANDS_ALONE = re.compile(r"\s*[,!?.]")
_VERB_OF_A_REQUEST = re.compile(r"\s+(?:the|a|an|it|you|that|this|my|your|our|me|us|them|everyone)\b")
_I_WITH_A_VERB = frozenset({"i'm", "i've", "i'd", "i'll"})


def is_calendar(word: str) -> bool:
    """A month or a weekday, or its plural ("Tuesdays"), or today / tomorrow / yesterday."""
    lowered = word.lower()
    return lowered in _CALENDAR or lowered.endswith("s") and lowered[:-1] in _CALENDAR   # "Tuesdays"


def irregular_forms_in(text: str) -> list[str]:
    """The irregular forms of the words of `text` ("How much running did I do?" -> ["ran"]): a
    search index that stems by rule alone finds "Ran 8k" for them."""
    found: dict[str, None] = {}
    for word in content_words(text):
        for form in forms_by_word().get(stem(word), ()):
            found[form] = None
    return list(found)


def is_common_word(word: str) -> bool:
    """Is this an ordinary English word (a dictionary's lowercase entry, inflections included)?
    A capitalized word that opens a sentence is a name only if it is not one ("Tomas starts
    Monday" names Tomas; "Remind me…" names nobody)."""
    lowered = re.sub(r"'s$", "", word.lower().replace("’", "'"))
    return lowered in STOP_WORDS or lowered in english_words()


def entities(text: str, known: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Capitalized names (people, places, projects, tools). A capitalized word that opens a
    sentence counts if it is not an ordinary English word, or if it is `known` as a name from
    elsewhere (a word that is both, like "Bill", needs that evidence)."""
    found: dict[str, None] = {}
    for match in _ENTITY.finditer(text):
        name = match.group(1).strip(" '’-")
        parts = name.split()
        at_start = opens_sentence(text, match.start())
        # ("Will and I…" names Will where the texts know him: `known`)
        while parts and (parts[0].lower() in _SENTENCE_START_COMMON and parts[0] not in known or is_calendar(parts[0]) or _contracted(parts[0])
                         or at_start and len(parts) > 1 and parts[0] not in known
                         and (is_common_word(parts[0]) or len(parts) == 2 and parts[1] in known
                              and not re.search(r"['’]s$", parts[0]) and _STANDS_ALONE.match(text, match.end()))):
            # "Met Tomas at…", "Woah Joanna, …": the word that opens the sentence is not part of the name
            parts = parts[1:]
            at_start = False
        parts = [p for p in parts if not is_calendar(p)]
        if len(parts) > 1 and parts[0] in TITLES:
            parts = parts[1:]   # "Dr Silva" is Silva, as "Dr. Silva" is (one note, not two)
        # "Bill and I" and "Flask and I've" name Bill and Flask; "Henry I" and "World War I" keep their I
        speaker = next((k for k, p in enumerate(parts) if p.lower().replace("’", "'") in _I_WITH_A_VERB
                        or p == "I" and k and parts[k - 1].lower() in ("and", "&")), len(parts))
        parts = parts[:speaker]
        while parts and parts[-1].lower() in _JOINERS:
            parts.pop()
        if not parts:
            continue
        name = re.sub(r"['’]s$", "", " ".join(parts))  # "Gina's store" is about Gina
        if name in TITLES:
            continue  # "Dr. Okafor": the title's full stop parts it from the name, which is found on its own
        if name in ("AM", "PM") and re.search(r"\d\s*$", text[:match.start()]):
            continue  # "at 3 PM": a time of day
        if at_start and len(parts) == 1 and name not in known and \
                (is_common_word(name) or _STANDS_ALONE.match(text, match.end())):
            continue  # a word that opens a sentence and stands alone ("Woah, …") is no evidence of a name
        if at_start and len(parts) == 1 and is_common_word(name) and _VERB_OF_A_REQUEST.match(text, match.end()):
            continue  # "Mark the date", "Hope it stops raining", "Will you…": a verb, though Mark is known
        for one in _pair(name):
            if 2 <= len(one) <= MAX_NAME_CHARS and (one.lower() not in STOP_WORDS or one in known):
                found.setdefault(one, None)
    return list(found)


_CONTRACTED = re.compile(r"^([A-Za-z]+)['’](?:ve|d|re|ll|m)$|^([A-Za-z]+)n['’]t$")


def _contracted(word: str) -> bool:
    """"Must've", "Where'd", "How're", "Didn't": an ordinary word contracted, no name."""
    found = _CONTRACTED.match(word)
    return bool(found) and is_common_word(found.group(1) or found.group(2))


_AND = re.compile(r"\s+(?:and|&)\s+")


def joined(name: str) -> list[str]:
    """The two sides of a name joined by "and" or "&" ("Netflix and Hulu"), or the name alone."""
    return _AND.split(name, maxsplit=1)


def _pair(name: str) -> list[str]:
    """"Netflix and Hulu", "Amy & Carla", "Harry Potter and Game of Thrones": two names, unless a
    side is one ordinary word, which may be half of one name ("Pride and Prejudice", "Marks and
    Spencer"; so "Python and Flask" stays one here, and promotion splits it when its events name
    both alone), or both sides are the same ("Johnson and Johnson")."""
    sides = joined(name)
    if len(sides) == 1 or sides[0] == sides[1]:
        return [name]
    if any(" " not in side and is_common_word(side) for side in sides):
        return [name]
    return sides


def lowercase_uses(texts: list[str]) -> Counter:
    """How often each word is written in lowercase, over some texts."""
    return Counter(w for text in texts for w in _WORD.findall(text) if w.islower())


# a capitalized word after a lowercase one ("using Python and Flask"; not "Add Income", a list item)
_MID_SENTENCE_NAME = re.compile(r"\b[a-z]+,?\s+([A-Z][\w'’-]+)")


# a sentence that opens with someone doing what people do: "Will and I repainted…", "Hope said…"
_OPENS_WITH_SOMEONE = re.compile(r"(?:^|[.!?]\s+)([A-Z][a-z]+)\s+(?:and I\b|(?:said|says|thinks|thought|asked|asks|"
                                 r"told|texted|called|wants|wanted|agreed|suggested|promised)\b)")


def names_in(texts: list[str], *, given: Callable[[str], bool] = lambda word: False) -> set[str]:
    """The texts' own vocabulary of names: capitalized words seen in the middle of a sentence
    (a possessive's 's taken off: "for Grace's twins" knows Grace), and the given names (`given`)
    that open a sentence as someone who does what people do ("Will and I…", "Hope said…")."""
    known: set[str] = set()
    for text in texts:
        for match in _MID_SENTENCE_NAME.finditer(text):
            word = re.sub(r"['’]s$", "", match.group(1))
            if word.lower() not in _CALENDAR and word.lower() not in STOP_WORDS:
                known.add(word)
        known |= {m.group(1) for m in _OPENS_WITH_SOMEONE.finditer(text) if given(m.group(1))}
    return known


_QUOTED = re.compile(r"[\"“]([^\"”\n]{1,80})[\"”]|(?<![\w'’])['‘]([^'’\n]{1,80})['’](?!\w)")
_TOKEN = re.compile(r"\S+")
_EDGE = "\"'“”‘’()[]{}<>,;:!?.*_`"
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")   # "8,080" is 8080
_WITH_A_DIGIT = re.compile(r"(?<!\S)\S*\d\S*")      # a whole token (from its start: no retries inside words)


def values(text: str) -> frozenset[str]:
    """The values a statement states, lowercased: numbers, amounts, versions, times and dates
    (any token with a digit: "8080", "$40", "v2.1", "10:30", "2025-03-02"), e-mail addresses and
    URLs, quoted strings, and names (a capitalized word that is not a stop word; at the start of
    a sentence only if it is not an ordinary English word). Two statements of the same thing
    that state different values disagree; the words around the values say what the thing is."""
    found: set[str] = set()
    for match in _QUOTED.finditer(text):
        found.add(" ".join((match.group(1) or match.group(2)).lower().split()))
    for match in _TOKEN.finditer(text):
        raw = match.group(0)
        token = raw.strip(_EDGE)
        if not token:
            continue
        start = match.start() + len(raw) - len(raw.lstrip(_EDGE))
        if any(c.isdigit() for c in token):
            found.add(_THOUSANDS.sub("", token.lower()))
        elif "://" in token or re.fullmatch(r"[^@\s]+@[^@\s]+\.\w+", token):
            found.add(token.lower())
        elif token[0].isupper() and len(token) > 1:
            word = re.sub(r"['’]s$", "", token).lower()
            if word in _SENTENCE_START_COMMON or word in STOP_WORDS:
                continue
            if opens_sentence(text, start) and is_common_word(word):
                continue  # "Deploys happen…": capitalized only because it opens the sentence
            found.add(word)
    return frozenset(found)


def digit_tokens(text: str) -> list[str]:
    """The tokens of `text` that hold a digit, as `values` reads them (edges stripped, lowercase,
    "8,080" as 8080), without its reading of names: cheap enough for every passage a turn weighs."""
    return [_THOUSANDS.sub("", t) for t in (raw.strip(_EDGE).lower() for raw in _WITH_A_DIGIT.findall(text)) if t]


@lru_cache(maxsize=4096)
def numbers(text: str) -> frozenset[str]:
    """The values of `text` that hold a digit ("12", "8080", "v2.1", "$40")."""
    return frozenset(v for v in values(text) if any(c.isdigit() for c in v))


def dates(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1) for m in _DATE.finditer(text)))


@lru_cache(maxsize=1)
def generic_stems() -> frozenset[str]:
    """GENERIC_WORDS as stemmed words are compared (on first use: stemming reads the lexicon)."""
    return frozenset(stem(w) for w in GENERIC_WORDS)


@lru_cache(maxsize=4096)
def terms(text: str) -> frozenset[str]:
    """A text's content words, stemmed: what braniac compares statements by."""
    return frozenset(map(stem, content_words(text)))


def overlap(query_words: set[str], text: str) -> float:
    """Share of the query's (stemmed) content words found in text."""
    if not query_words:
        return 0.0
    found = {stem(w) for w in content_words(text)}
    return sum(1 for w in query_words if stem(w) in found) / len(query_words)


def unmentioned(stated: frozenset[str] | set[str], text: str) -> set[str]:
    """Those of the `stated` values that `text` (a claim, an event: not remembered) does not
    mention at all."""
    lowered = text.lower()
    mentions = set(words(text)) | values(text)
    return {v for v in stated if v not in mentions and not (" " in v and v in lowered)}
