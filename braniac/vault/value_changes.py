"""A newer statement that gives another value of the thing a question asks about, in other
words than the older one: long messages state a number among many other things, so the
question, not the two statements' shared words, says what the thing is ("150 commits merged" /
"commits merged into the main branch, which has now reached 165"). `replaced_for_the_question`
gathers every rule read against the question, for retrieval's currency and the offline answer,
before and after promotion alike."""
from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from ..infra import measures, textutil
from ..infra.date_spans import MONTH_NAMES
from ..infra.name_lists import is_given_name
from ..infra.relative_times import CALENDAR_WORDS
from .change_verbs import CHANGE_VERBS
from .claims import CHANGED, Fact, as_said, compare, contradicts
from .parting import gives_up
from .reversals import THE_PERSON, says_taken_back, takes_back, turns_around
from .said_again import mine_said_again
from .whose import another_of_mine, both_mine
from .word_changes import changed_in_words, someone_elses

_CHANGE_HINTS = re.compile(r"\b(?:now|no longer|instead|became|these days)\b")
# verbs frequent in questions: never the thing another word qualifies (_qualified_otherwise)
_VERBS = frozenset(textutil.stem(w) for w in """use uses used using make makes made making get gets getting take
takes taking try tries tried trying include includes included including""".split())
# shares of the question's own words two statements must hold (changed_for_the_question)
ASKED_SHARE = 0.6         # the older one; and the newer one when only a hint says it changed
NEWER_SHARE = 0.4         # the newer one when a verb of change says so
NEW_THING_SHARE = 0.25    # the newer one naming "the new April 25 deadline"; each, restating a count
NEAR_CHANGE = 4           # words that say something, from a word of change to the new number ("has now reached 165")
HINT_AFTER = 2            # the new number and a word of the question before a hint after it ("5 engineers now")
HINT_REACH = 6            # words looked at before a hint: a unit and its article take no place ("950 euros a month now")
CLAUSE_REACH = 12         # words before a hint in which its clause must name the thing
SAID_ALONE_WORDS = 30     # a statement this short that replaced another is also compared on its own words


def replaced_for_the_question(old: str, new: str, asked: frozenset[str],
                              measured: frozenset[str] = frozenset()) -> bool:
    """Does the newer statement replace the older, read against the question (its stemmed words
    `asked`, the measures it asks for `measured`), where claims' own comparison sees two things?
    Another value of what it asks about, a decision taken back or a thing parted with
    (reversals.py), a measure said to have changed (infra/measures.py)."""
    # "How old am I?": measures know whose; a value given without its unit ("so now I pay 1,050")
    # is read as any other, by the person's own thing (whose.both_mine)
    changed = measures.replaces(old, new, measured, asked) or changed_for_the_question(old, new, asked) \
        or _changed_in_words(old, new, asked) or turns_around(as_said(old), as_said(new), asked)
    # (not "My neighbour switched to the 8:05 train" after "I take the 7:15 train to work")
    return changed and not another_of_mine(old, new, asked) and not someone_elses(as_said(old), as_said(new)) \
        or takes_back(as_said(old), as_said(new), asked) or gives_up(as_said(old), as_said(new))


def _changed_in_words(old: str, new: str, asked: frozenset[str]) -> bool:
    """word_changes.py's rule, with what changed_for_the_question asks of a question too: "a
    month" names no thing, and another thing of the kind ("the logs project" / "the analytics
    project") is no change."""
    asked = asked - _PER if asked - _PER else asked
    return changed_in_words(old, new, asked) and not _qualified_otherwise(old, new, asked)


def replaces_claim(old: str, new: str) -> bool:
    """Does a newer claim replace an older one of the same note, as promotion files them? One
    thing with another value (claims' own reading), or the rules read against a question, with
    the words the two share standing for it: "My rent is 900 euros a month" / "My landlord raised
    the rent again, so now I pay 1,050", "The MVP deadline is June 30" / "… slipped to July 15"."""
    if compare(Fact(old), Fact(new)) == CHANGED or contradicts(Fact(old), Fact(new)) or gives_up(as_said(old), as_said(new)):
        return True   # (a thing parted with is named, though the two may share no other word)
    # the words of the thing (not its units): "the flight to Tokyo cost 850 euros" and "the hotel
    # in Tokyo is now 120 euros a night" share a name and a unit, not a thing
    said_old, said_new = (textutil.terms(as_said(t)) - _UNITS - _PER for t in (old, new))
    shared = said_old & said_new
    if shared and mine_said_again(as_said(old), as_said(new), frozenset(shared)) and \
            not someone_elses(as_said(old), as_said(new)):
        return True   # "My commute takes about 40 minutes by bus" / "My commute is only 25 minutes now"
    # half their words in common; or one, if the newer takes back what stood and the word names
    # the thing or the newer names another value ("Change of plans, Christmas will be in
    # Salzburg", "Scratch that, we're going with SQLite for the app" after "use Postgres for the
    # app"; not "…we're painting the kitchen first" after "paint the bedroom blue": one verb), or
    # if both are about that thing as a one-word question reads it ("The launch slipped to June
    # 15" / "Launch moved again, now July 1")
    return bool(shared) and (2 * len(shared) >= min(len(said_old), len(said_new)) or
                             says_taken_back(as_said(new)) and _named_or_renamed(old, new, shared) or
                             len(shared) == 1 and both_mine(as_said(old), as_said(new), next(iter(shared)))) \
        and replaced_for_the_question(old, new, frozenset(shared))


def _named_or_renamed(old: str, new: str, shared: set[str]) -> bool:
    """Is the one word in common part of a name, or do both name a thing (not a person: "Scratch
    that, Ana is flying with Ryanair") of a thing in common (not only a verb: "the analytics team
    will use BigQuery" after "use Postgres for the app"), with other names?"""
    people = [n for n in textutil.entities(as_said(new)) if is_given_name(n) and n not in as_said(old)]
    names_old, names_new = ({n for n in textutil.entities(as_said(t)) if not is_given_name(n)} for t in (old, new))
    named = {textutil.stem(w.lower()) for name in names_old for w in name.split()}
    return bool(shared & named) or not people and bool(shared - _VERBS and names_old and names_new and not names_old & names_new)


def changed_for_the_question(old: str, new: str, asked: frozenset[str]) -> bool:
    """Two statements in other words of the one thing a question asks about ("150 commits
    merged" / "commits merged into the main branch, which has now reached 165"): each states a
    number the other does not, both hold enough of the question's words, and the newer says its
    value changed (the more plainly, the fewer of the question's words it needs) or restates the
    count in the same words with another number. A long message says many other things, so the
    question, not the two statements' shared words, says what the thing is."""
    # "a month", "a week": the frame of an amount, not the thing ("How much am I saving a month?"
    # is not answered by "the internet is 30 euros a month now")
    asked = asked - _PER if asked - _PER else asked
    # (a note's claim opens with its date: "2025-02-26 — The launch slipped to June 15")
    if not asked or len(asked) == 1 and not both_mine(as_said(old), as_said(new), next(iter(asked))):
        return False   # "Rent?" is not answered by "Office rent is now 2,000 euros"
    # the day a claim was said, and the days braniac resolved "yesterday" to, say when, not what:
    # two statements of two days always differ in them ("moved to next Tuesday (2025-05-13)" is a value)
    old, new = _in_digits(as_said(old, keep_ahead=True)), _in_digits(as_said(new, keep_ahead=True))
    # "moved from May 12 to May 19": the old value, named as given up, is not one the newer states
    before, after = textutil.numbers(old), textutil.numbers(_FROM_TO.sub(" to ", new))
    if not (before - after and after - before):
        return False
    was, now = (len(asked & textutil.terms(text)) / len(asked) for text in (old, new))
    fresh = after - before
    changed = was >= ASKED_SHARE and (
        now >= ASKED_SHARE and _said_changed(new, _CHANGE_HINTS, fresh, asked, textutil.terms(old))
        or now >= NEWER_SHARE and _said_changed(new, CHANGE_VERBS, fresh, asked)
        or now >= NEW_THING_SHARE and _says_new(old, new, asked))
    changed = changed or min(was, now) >= NEW_THING_SHARE and _same_frame(old, new, asked) \
        or mine_said_again(old, new, asked)
    return changed and not _qualified_otherwise(old, new, asked)


# the periods an amount is framed by ("a month"), which name no thing (changed_for_the_question)
_PER = frozenset(textutil.stem(w) for w in "day week month year hour minute".split())


def _said_changed(said: str, change: re.Pattern, fresh: frozenset[str], asked: frozenset[str],
                  old_terms: frozenset[str] = frozenset()) -> bool:
    """The word of change stands just before a number the older statement lacks (a few words
    that say something between them), in a sentence with words of the question: "the first
    sprint now targets completion by March 31", "the landlord increased our monthly rent for
    the flat by 150 euros"; a hint may follow its number, with only words of the question between
    ("the team is 7 now", "5 engineers now"; not "3 kids now" for dogs, nor "three days from
    now"). A long message that says "improved async support" and states versions elsewhere
    changed none of them; "Leo now has 2 loose teeth" (only whose it is) is not how many kids
    are in Leo's class."""
    for sentence in _sentences(said, asked):
        # a word of the question that names the thing, not only whose it is ("Leo"), unless the
        # question names nothing else ("How much is Netflix?")
        found = textutil.entities(sentence)
        names = {textutil.stem(n.lower()) for n in found}
        people = [n for n in found if is_given_name(n)]
        if not asked & textutil.terms(sentence) - (names if asked - names or people else frozenset()):
            continue
        lowered = sentence.lower()
        matches = list(change.finditer(lowered))
        if not matches:
            continue
        tokens = [(m.start(), m.group(0)) for m in re.finditer(r"\S+", lowered)]
        starts = [start for start, _ in tokens]
        breaks = [b.end() for b in _CLAUSE_BREAK.finditer(lowered)]
        said_something = [i for i, (_, w) in enumerate(tokens) if _says_something(w)]
        for match in matches:
            if _NOT_A_HINT.search(lowered[max(0, match.start() - 8):match.start()]) and \
                    not lowered.startswith(" on", match.end()):
                continue   # "three days from now", "for now": a time, not a change ("from now on" is one)
            if match.group(0) == "these days" and not THE_PERSON.search(lowered):
                continue   # what the person does these days, not "these days the park is full of 5 km runs"
            first = bisect_left(said_something, bisect_left(starts, match.end()))
            ahead = [tokens[i][1] for i in said_something[first:first + NEAR_CHANGE]]
            if any(textutil.numbers(word) & fresh for word in ahead):
                return True
            if change is _CHANGE_HINTS:
                # the thing is in the hint's own clause: not "I pay my rent on the 1st, and my gym
                # costs 40 euros a month now"
                before = bisect_left(starts, match.start())
                if lowered.endswith("from ", 0, match.start()):
                    before -= 1   # "from now on" is one hint: "the standup is at 10 from now on"
                i = bisect_left(breaks, match.start() + 1) - 1
                clause = max(breaks[i] if i >= 0 else 0, starts[max(0, before - CLAUSE_REACH)])
                if not asked & textutil.terms(lowered[clause:match.start()]) - names:
                    continue
                if _number_right_before([w for _, w in tokens], before, fresh, asked, old_terms):
                    return True
    return False


# a sentence that goes on about what the one before it said: "My rent went up. It is 1,050 euros now."
_GOES_ON = re.compile(r"(?:now\s+)?(?:it|that)(?:['’]s|\s+is|\s+was)\b|now\b", re.I)


def goes_on(sentence: str) -> bool:
    """Does a sentence open by going on about the one before ("It is…", "That's…", "Now…")?"""
    return _GOES_ON.match(sentence.strip()) is not None


def _sentences(said: str, asked: frozenset[str]) -> list[str]:
    """The sentences of a statement, one that only gives the value of what the sentence before
    it named staying with it ("My rent went up. It is 1,050 euros now."; not "It's my car loan
    that went up to 300", "It's 15 degrees outside now")."""
    out: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", said):
        rest = _GOES_ON.sub("", sentence.strip(), count=1)
        if out and goes_on(sentence) and textutil.terms(rest) <= asked | _UNITS | {"now"}:   # numbers have no terms
            out[-1] += " " + sentence
        else:
            out.append(sentence)
    return out


_CLAUSE_BREAK = re.compile(r"(?<!\d),|,(?!\d)|;|\s(?:and|but)\s")   # not the comma of "1,050"
_NOT_A_HINT = re.compile(r"\b(?:from|for|until|till|by|up to)\s+$")


def _says_something(word: str) -> bool:
    """Content words, numbers, days and months."""
    return word not in _PART_OF_A_DAY and bool(
        textutil.content_words(word) or textutil.numbers(word) or word.strip(",.;:!?") in CALENDAR_WORDS)


def _number_right_before(words: list[str], hint: int, fresh: frozenset[str], asked: frozenset[str],
                         old_terms: frozenset[str]) -> bool:
    """Do the HINT_REACH words before the hint (`words[hint]`) end in a new number, with at most
    HINT_AFTER words of the question after it, and units ("is 7 now", "5 engineers now", "950
    euros a month now", "950 right now")? Not how long something has lasted ("the same for 2
    years now"), nor a length of time where the older statement gave none ("My flight is 3
    hours now" after "My flight is on May 12")."""
    named = 0
    for i in range(hint - 1, max(-1, hint - 1 - HINT_REACH), -1):
        if textutil.numbers(words[i]) & fresh:
            unit = textutil.terms(words[i + 1]) & _LENGTHS_OF_TIME if i + 1 < hint else frozenset()
            return (i == 0 or words[i - 1] not in _FOR_HOW_LONG) and unit <= old_terms
        terms = textutil.terms(words[i])
        if words[i].strip(",.;:!?") in _ASIDE or terms and terms <= _UNITS:
            continue
        named += 1
        if not terms or not terms <= asked or named > HINT_AFTER:
            return False
    return False


_LENGTHS_OF_TIME = frozenset(textutil.stem(w) for w in "minute minutes hour hours day days week weeks".split())
_ASIDE = frozenset("a an per each right as of".split())   # "950 a month right now", "as of now"
_FOR_HOW_LONG = frozenset("for since past last over in within".split())   # "for 2 years now", "due in 3 days now"


# what a number is counted in: never the thing a question asks about, so it stands between a
# number and its hint ("950 a month now") as the question's own words do
_UNITS = frozenset(textutil.stem(w) for w in """month months week weeks year years day days hour hours minute minutes
monthly weekly yearly euro euros dollar dollars pound pounds buck bucks usd eur gbp kg kgs kilo kilos lb lbs km
mile miles cm percent""".split())


_FROM_TO = re.compile(r"\bfrom\s+(?:[^\s,;.!?]+\s+){0,3}?[^\s,;.!?]*\d[^\s,;.!?]*\s+to\s+", re.I)
_PART_OF_A_DAY = frozenset({"next", "this", "coming", "last"})   # "to next Tuesday (2025-05-13)": one value


_NUMBER_WORDS = {w: str(n) for n, w in enumerate("two three four five six seven eight nine ten eleven twelve".split(), 2)}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.I)


def _in_digits(text: str) -> str:
    """"Tom has two kids" as "Tom has 2 kids", so a count said in words compares with one said
    in digits or other words ("now has three kids"). Not "one": "one of my friends" counts none."""
    return _NUMBER_WORD.sub(lambda m: _NUMBER_WORDS[m.group(1).lower()], text)


def _says_new(old: str, new: str, asked: frozenset[str]) -> bool:
    """"the new sprint deadline of April 5", "my new April 25 deadline", "New locker PIN: 9082":
    "new" (not "New York") before a number, every word between them a word of the question the
    older statement holds too, or a month (a "new kitchen table for 300 euros" is another thing)."""
    raw = re.findall(r"\w+", new)
    words = _tokens(new)
    shared = asked & textutil.terms(old)
    for i, w in enumerate(raw):
        if w != "new" and not (i == 0 and w == "New" and _a_new_label(new)):
            continue
        between: list[str] = []
        for j in range(i + 1, min(i + 7, len(raw))):
            if raw[j][0].isdigit():
                if any(t in shared for t in [*between, *words[j + 1:j + 2]]):
                    return True
                break
            if words[j] and words[j] not in shared and raw[j].lower() not in MONTH_NAMES:
                break
            between.append(words[j])
    return False


# a label and its one value, the whole statement: "New gym locker PIN: 9082.", "New release date:
# March 17." (not "New members: 2 joined tonight", "New phone: 25 euros for the case", "New PIN:
# 5520, that's Emma's")
_NEW_LABEL = re.compile(r"New\s+(?:[A-Za-z]+\s+){0,3}(?P<last>[A-Za-z]+):\s*(?:[A-Za-z]+\s+)?[\w.,:-]*\d[\w.,:-]*?[.!]?\s*")


def _a_new_label(said: str) -> bool:
    label = _NEW_LABEL.fullmatch(said)
    return label is not None and not _plural(label["last"].lower())


def _same_frame(old: str, new: str, asked: frozenset[str]) -> bool:
    """The newer restates the older's count in the same words with another value ("secured 3
    interviews" / "secured 5 interviews"), the things counted a word of the question."""
    was, now = dict(_counts(old)), dict(_counts(new))
    return any(frame[1] in asked and now[frame] != was[frame] for frame in was.keys() & now.keys())


@lru_cache(maxsize=4096)
def _counts(text: str) -> tuple[tuple[tuple[str, str], frozenset[str]], ...]:
    """((word before, things counted), the numbers between them): "secured 3 interviews". Only
    a number before a plural is a count; "day 2 plan" or "chapter 3 draft" names an item."""
    raw = re.findall(r"\w+", text.lower())
    words = _tokens(text)
    out: dict[tuple[str, str], set[str]] = {}
    for i, w in enumerate(raw):
        if w[0].isdigit() and 0 < i < len(raw) - 1 and words[i - 1] and words[i + 1] and _plural(raw[i + 1]):
            out.setdefault((words[i - 1], words[i + 1]), set()).add(w)
    return tuple((frame, frozenset(values)) for frame, values in out.items())


def _plural(word: str) -> bool:
    return word.endswith("s") and not word.endswith("ss") or word in ("people", "women", "men", "children")


def _qualified_otherwise(old: str, new: str, asked: frozenset[str]) -> bool:
    """Is the newer statement about another thing of the kind the question names? The older one
    qualifies a question word by another ("the *design* team"), and the newer never does but
    puts a word of its own before it ("the *sales* team now meets in room 14"): another team. Or
    the newer puts a word before a question word that neither the older nor the question says
    ("The *youth* choir now meets in the school gym" after "The choir meets in the church hall")."""
    before, after = _tokens(old), _tokens(new)
    led_old, led_new = _led_by(before), _led_by(after)
    # a verb is no thing to qualify ("8 cards using Bootstrap" / "I tried using Bootstrap")
    pairs = {(a, b) for a, b in zip(before, before[1:]) if a in asked and b in asked and b not in _VERBS}
    for qualifier, word in pairs:
        led_by = led_new.get(word, set())
        if led_by and qualifier not in led_by and any(a and a not in asked for a in led_by):
            return True
    return _another_named_before(new, set(before) | asked, led_old, asked)


_ARTICLES = frozenset("the a an my our his her their your".split())
# words that say which one in time or order, not another kind: "a *second* car", "my *new* phone"
_WHICH_ONE = frozenset(textutil.stem(w) for w in """new old second third fourth other another current next last first
extra spare bigger smaller larger own usual same""".split())


def _another_named_before(new: str, known: set[str], led_old: dict[str, set[str]], asked: frozenset[str]) -> bool:
    """Does the newer put a lower-case word of its own between an article and a word of the
    question the older leads otherwise ("the *youth* choir", "the *school* library")? Not a name
    ("Maple Grove school": a value), nor a verb ("we changed vets")."""
    raw, words = re.findall(r"\w+", new), _tokens(new)
    for i in range(1, len(words) - 1):
        word, lead = words[i + 1], words[i]
        # (a word of the question's: "the *south* garage" may well be the new value of where I park)
        if word in asked and word in led_old and lead and lead not in led_old[word] and lead not in known and \
                lead not in _WHICH_ONE and raw[i].islower() and raw[i - 1].lower() in _ARTICLES:
            return True
    return False


def _led_by(tokens: tuple[str, ...]) -> dict[str, set[str]]:
    """word -> the words right before it, past those that say when or how sure ("the choir now
    meets": "choir" leads "meets"; "" for a stop word)."""
    found: dict[str, set[str]] = {}
    for i, word in enumerate(tokens):
        j = i - 1
        while j >= 0 and tokens[j] in _NOT_QUALIFIERS:
            j -= 1
        if word:
            found.setdefault(word, set()).add(tokens[j] if j >= 0 else "")
    return found


# words that say when, how sure or that plans changed, never which thing: "it now expires in
# August 2035", "Change of plans, Christmas will be in Salzburg"
_NOT_QUALIFIERS = frozenset(textutil.stem(w) for w in "now still also currently only just already actually plans thought".split())


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[str, ...]:
    """The statement's words in order, stemmed; "" for a word that says nothing (a stop word, a
    number), so that "of" or "150" never counts as a qualifier."""
    out = []
    for word in re.findall(r"\w+", text.lower()):
        out.append(textutil.stem(word) if textutil.content_words(word) and not word.isdigit() else "")
    return tuple(out)
