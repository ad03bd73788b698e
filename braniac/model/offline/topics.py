"""What the offline engine takes for a topic: a thing talked about again, named by the noun
phrase the events use for it ("the staging server", "about pottery"), once whatever its number
("triangle" and "triangles" are one note)."""
from __future__ import annotations

import re
from collections import Counter
from typing import Callable

from ...infra import textutil

# A topic is a thing talked about again (in two events or more) and used as a thing: a noun phrase
# after a determiner or a preposition ("the staging server", "about pottery"), or the subject of
# a statement ("Pottery is…"). A verb ("mentioned"), an adjective, a person without a name ("my
# sister") or the modifier of a compound ("phone" in "my phone number") is not one; a compound
# that comes back ("staging server") is one, under its whole name.
NOUN_EVIDENCE = 2
_TOKEN = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*|[^\w\s]")
# determiners and prepositions; not "this" and "that", which stand for a thing as often ("that sounds…"),
# nor "to", which opens a verb as often ("to improve")
_OPENERS = frozenset("""the a an my our your his her their its some any every each no another
about of in on at for with into from by over under after before during around through without like""".split())
_SUBJECT_VERBS = frozenset("is was are were has have had can will would could does did gets got keeps".split())
# Words of a request to the assistant ("Remind me to …", "Please …": the request is a task in
# Structured Data) and verbs of a relation ("… lives in …"): never a topic of their own (two
# reminders made a "remind" note, two people's homes a "lives" note).
_NOT_TOPICS = frozenset({"remind", "reminder", "please", "forget", "todo", "need", "needs",
                         "lives", "live", "living", "works", "prefers",
                         # counts and quantifiers ("every Sunday", "fifty minutes") name no topic
                         "every", "each", "another", "other", "long", "three", "four", "five", "six", "seven",
                         "eight", "nine", "ten", "eleven", "twelve", "twenty", "thirty", "forty", "fifty",
                         "sixty", "hundred", "thousand", "least", "mondays", "tuesdays", "wednesdays", "thursdays",
                         "fridays", "saturdays", "sundays", "weekend", "weekends", "morning", "evening", "night"})
# Nouns that stand for a person (kin, roles): "my sister" is someone without a name, not a topic.
PERSON_NOUNS = frozenset("""friend sister brother mom mother dad father wife husband son daughter colleague boss
partner cousin aunt uncle grandma grandpa""".split())


def _topic_word(word: str) -> bool:
    return (len(word) >= 4 and word.isalpha() and word not in textutil.STOP_WORDS
            and not (word.endswith("s") and word[:-1] in textutil.STOP_WORDS)   # "ones", "others"
            and word not in textutil.GENERIC_WORDS and word not in _NOT_TOPICS and not person_noun(word)
            and not _past_tense(word) and not word.endswith("ly") and not textutil.is_calendar(word)
            and not _common_verb_ing(word))


# verbs whose -ing names no topic ("getting", "going"); "wedding", "camping", "cooling" do
_COMMON_VERBS = frozenset("""be do get go have make take try use look want need feel think know say see come give
keep let put seem tell ask""".split())


def _common_verb_ing(word: str) -> bool:
    """"getting", "going", "trying": the -ing of a verb too common to name a topic."""
    if not word.endswith("ing") or len(word) < 5:
        return False
    base = word[:-3]
    return bool({base, base + "e", base[:-1] if base[-1:] == base[-2:-1] else base} & _COMMON_VERBS)


def _past_tense(word: str) -> bool:
    """"mentioned", "planned", "married", "bought", "sent": a verb's past form (its base is an
    English word); not "children" or "wolves", the irregular plurals of nouns."""
    base = textutil.irregular_base(word)
    if base is not None:
        return not word.endswith(("s", "en", "ves")) and base not in _NOUN_BASES
    if len(word) < 5 or not word.endswith("ed"):
        return False
    bases = [word[:-2], word[:-1]] + ([word[:-3]] if word[-3] == word[-4] else []) + \
        ([word[:-3] + "y"] if word.endswith("ied") else [])
    return any(textutil.is_common_word(b) for b in bases if len(b) >= 3)


_NOUN_BASES = frozenset("foot tooth mouse goose".split())   # "feet", "teeth", "mice", "geese"
# The nouns among textutil.GENERIC_WORDS: "a person holding a key" has no topic "holding", and
# "hard work", "tough times" no topic "hard" or "tough"
_GENERIC_NOUNS = frozenset("""time times day days week weeks month months year years lot lots people person thing things
stuff work""".split())
# three-letter words after a noun that it does not qualify: past forms ("the dog ran", "the kitten
# bit me") and adverbs ("into pottery now", "the essay due Monday", "the flight via Expedia")
_NOT_HEADS = frozenset("ran sat met led hit cut put set let ate won saw lay got bit dug fed hid "
                       "now yet via per due ago".split())


def _head_noun(word: str) -> bool:
    """Could this word, after another, be the noun the other qualifies ("a blue sky", "the
    second act", "a tough one", "hard work")? Longer words are asked _topic_word."""
    return (word in _GENERIC_NOUNS or word in ("one", "ones")
            or len(word) == 3 and word.isalpha() and word not in textutil.STOP_WORDS
            and word not in textutil.GENERIC_WORDS and word not in _NOT_HEADS)


def _qualifies_name(said: list[str], k: int) -> bool:
    """Is the word before said[k] part of a name's compound: an acronym ("a custom CSS class")
    or a name before a thing ("my current Git configuration"), not a person who does something
    ("the recipe Ana sent me") or a day ("the concert Saturday")?"""
    name = said[k]
    if len(name) >= 2 and name.isupper() and name.isalpha():
        return True
    return (name[:1].isupper() and name != "I" and not textutil.is_calendar(name)
            and k + 1 < len(said) and _topic_word(said[k + 1].lower()))


def topic_words(sentence: str) -> tuple[set[str], list[str]]:
    """(the words and two-word phrases a sentence mentions that could name a topic, those of
    them it uses as a noun phrase)."""
    said = _TOKEN.findall(sentence)
    tokens = [t.lower() for t in said]
    mentioned: set[str] = set()
    nouns: list[str] = []
    for i, word in enumerate(tokens):
        if not _topic_word(word):
            continue
        mentioned.add(word)
        j = i - 1
        while j >= 0 and (tokens[j] in textutil.GENERIC_WORDS and tokens[j] not in _GENERIC_NOUNS or "-" in tokens[j]):
            j -= 1                     # "a new pottery class", "a single-page portfolio": past the adjectives
        before = tokens[j] if j >= 0 else None
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        opens = before is None or not before[0].isalnum()
        if after is not None and _topic_word(after) and not _verb_of(tokens, i + 1):
            phrase = f"{word} {after}"
            mentioned.add(phrase)
            if opens or before in _OPENERS:
                nouns.append(phrase)   # "the staging server", "my pottery class"
            continue                   # a modifier, not the thing itself
        if after is not None and (_qualifies_name(said, i + 1) or said[i + 1].islower() and _head_noun(after)):
            continue                   # "my current Git setup", "a blue sky", "hard work": it qualifies what follows
        if (before in _OPENERS and after != "of") or opens and after in _SUBJECT_VERBS:
            nouns.append(word)         # not "a bunch of", "the number of": the thing comes after "of"

    return mentioned, nouns


# what follows a verb rather than the second noun of a compound: an object, an -ing form, a
# preposition, an adverb ("keeps jamming", "uses the API", "hurts after a run", "leaves at 6",
# "uses too much memory")
_AFTER_A_VERB = frozenset("""the a an my our your his her their its me us him them it this that
on at in after before during every when while up down out off into onto from to with
too so more less much again only just still already""".split())


def _verb_of(tokens: list[str], k: int) -> bool:
    """Is tokens[k] the verb of the noun before it ("the printer keeps jamming", "my knee hurts
    after every run", "the widget uses the API"), not a compound's second noun ("the staging
    server", "my pottery class")? A third person's -s form before what a verb takes."""
    word = tokens[k]
    if not word.endswith("s") or word.endswith(("ss", "us", "is", "ics")) or word in _OWN_PLURALS:
        return False
    if k and tokens[k - 1].endswith("ing"):
        return False   # what a thing is for: "my running shoes in the hall", "the hiking boots on the shelf"
    following = tokens[k + 1] if k + 1 < len(tokens) else ""
    return following in _AFTER_A_VERB or len(following) > 4 and following.endswith(("ing", "ly"))


def shared_beyond(topic: str, ids: set[str], said_terms: dict[str, set[str]]) -> bool:
    """Is a word what its events are about? Then they have more in common than the word: the
    sourdough starter's events speak of feeding and flour, the passport's of renewing it before
    the conference; "on Saturday" in a trip and in a booking, "the river" in a run and in a flat
    tie nothing together. Most of the events must share another word with one of the others.
    A compound that comes back ("pottery class") is specific enough on its own."""
    own = {textutil.stem(w) for w in topic.split()}
    terms = [said_terms.get(i, set()) - own for i in sorted(ids)]
    linked = sum(1 for k, mine in enumerate(terms) if any(mine & other for j, other in enumerate(terms) if j != k))
    return 2 * linked >= len(terms)


def person_noun(word: str) -> bool:
    return word in PERSON_NOUNS or word.endswith("s") and word[:-1] in PERSON_NOUNS


# plurals with a meaning of their own: "my glasses" are no glass, "clothes" no cloth; "-ics"
# ("economics", "statistics") is left alone above
_OWN_PLURALS = frozenset("""glasses clothes shorts arms goods savings earnings manners premises customs spectacles
jeans pants trousers scissors stairs thanks remains quarters grounds letters""".split())


def one_number(topic_events: dict[str, set[str]], noun_uses: Counter, known: set[str]) -> None:
    """"triangle" and "triangles", "scale factor" and "scale factors" are one topic, not two
    notes: the events and noun uses of one form go to the other, named by the singular unless a
    note already has the plural's name. Only a plural whose singular the events or the notes
    also use is merged ("https" stays apart from "http": neither is an English word)."""
    known = {t for t in known if t.islower()}   # topic notes; "Bill" the person is no bill
    for term in sorted(topic_events):
        if term not in topic_events:
            continue
        single = _singular(term, lambda s: s in topic_events or s in known)
        if single is None:
            # the plural is a note's name already: "project" said now, "projects" noted before
            plural = next((p for p in (term + "s", term + "es", term[:-1] + "ies") if p in known), None)
            if plural is not None and term not in known and _singular(plural, {term}.__contains__) == term:
                topic_events[plural] = topic_events.pop(term)
                noun_uses[plural] += noun_uses.pop(term, 0)
            continue
        if single in known or term not in known:
            keep, drop = single, term
        else:
            keep, drop = term, single
        topic_events[keep] = topic_events.get(keep, set()) | topic_events.pop(drop, set())
        noun_uses[keep] += noun_uses.pop(drop, 0)


def _singular(term: str, used: Callable[[str], bool]) -> str | None:
    """The singular of a term whose last word is a regular English plural ("stories",
    "boxes", "caches", "books"), if that singular is `used` too; else None."""
    *head, last = term.split()
    if not last.endswith("s") or last.endswith(("ss", "us", "is", "ics")) or last in _OWN_PLURALS \
            or not textutil.is_common_word(last):
        return None
    forms = ([last[:-3] + "y"] if last.endswith("ies") else []) + ([last[:-2]] if last.endswith("es") else []) + [last[:-1]]
    for form in forms:
        single = " ".join([*head, form])
        if used(single) and textutil.is_common_word(form):
            return single
    return None
