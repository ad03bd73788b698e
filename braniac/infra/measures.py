"""Measures: a question that asks how much someone weighs, how tall or old they are, how far a
place is or what something cost, and the statements that give such a measure in its unit ("Down
to 79 kg now", "it was €40"). The question and its answer often share no word ("weigh" / "kg"),
so the search adds the unit words and retrieval lifts the statements that state the measure."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from . import textutil
from .relative_times import CALENDAR_WORDS, WEEKDAYS

_NUMBER = r"\d[\d.,]*"


@dataclass(frozen=True)
class Measure:
    asked: re.Pattern       # a question asking for it
    stated: re.Pattern      # a statement giving it
    words: str              # the words of its units, for the search
    # the statement must also name what is asked about: a time of day is said of many things
    # ("my flight to Berlin leaves at 07:40" for "what time is my flight?", not "standup at 09:30")
    named: bool = False
    personal: bool = False  # a person's own (weight, height, age): whose it is must agree


MEASURES = {
    "weight": Measure(re.compile(r"\b(?:weigh\w*|how heavy|weight)\b", re.I),
                      re.compile(rf"{_NUMBER}\s*(?:kg|kgs|kilos?|kilograms?|lbs?|pounds|stones?)\b", re.I),
                      "kg kilos kilograms lbs pounds weight", personal=True),
    "height": Measure(re.compile(r"\b(?:how tall|height)\b", re.I),
                      re.compile(rf"{_NUMBER}\s*(?:cm|centimet(?:er|re)s?|m|met(?:er|re)s?|ft|feet|foot)\b"
                                 r"|\b\d['’]\s?\d{1,2}\b", re.I),
                      "cm metres meters feet tall height", personal=True),
    "distance": Measure(re.compile(r"\b(?:how far|distance)\b", re.I),
                        re.compile(rf"{_NUMBER}\s*(?:km|kilomet(?:er|re)s?|miles?|mi)\b", re.I),
                        "km kilometres kilometers miles distance"),
    "age": Measure(re.compile(r"\bhow old\b", re.I),
                   re.compile(r"\b\d{1,3}\s*(?:years?|yrs?)[\s-]old\b|\bturn(?:s|ed)\s+\d{1,3}\b|\baged?\s+\d{1,3}\b", re.I),
                   "years old turned age birthday", personal=True),
    "price": Measure(re.compile(r"\bhow much\b(?!\s+time)(?:.*\b(?:cost|costs|pay|paid|charge\w*|spen[dt]|price)\b"
                                r"|\s+(?:is|was|are|were)\s+(?:(?:my|our|the|a|an)\b|(?-i:[A-Z])))"
                                r"|\bwhat did\b.*\b(?:cost|pay)\b|\bprice\b", re.I),
                     re.compile(rf"[$€£]\s?{_NUMBER}|{_NUMBER}\s*(?:dollars|euros?|eur|usd|gbp|bucks)\b", re.I),
                     "$ € £ euros dollars price cost paid"),
    "time": Measure(re.compile(r"\b(?:at )?what time\b|\bhow early\b|\bwhen (?:does|do|is|will)\b.*\b(?:leaves?|starts?|"
                               r"opens?|closes?|lands?|departs?|arrives?|begins?|ends?)\b", re.I),
                    re.compile(r"\b\d{1,2}[:h]\d{2}\b|\b\d{1,2}\s?(?:am|pm|a\.m\.|p\.m\.)", re.I),
                    "", named=True),
}


@lru_cache(maxsize=1024)
def asked(prompt: str) -> frozenset[str]:
    """The kinds of measure a question asks for ("How much do I weigh?": weight)."""
    if "?" not in prompt and not re.match(r"\s*(?:how|what)\b", prompt, re.I):
        return frozenset()
    return frozenset(kind for kind, m in MEASURES.items() if m.asked.search(prompt))


def states(text: str, kinds: frozenset[str], holders: frozenset[str] | None = None) -> bool:
    """Does a text give a measure of one of these kinds, in its unit? With `holders` (the
    question's, `holders_of`), a person's own measure counts only when it is theirs: "My
    daughter now weighs 18 kg" does not say how much I weigh."""
    for kind in kinds:
        found = MEASURES[kind].stated.search(text)
        if found and (holders is None or not MEASURES[kind].personal or _holders(text[:found.start()]) == holders):
            return True
    return False


def holders_of(question: str) -> frozenset[str]:
    """Whose measure a question asks for: none for the person ("how much do I weigh?"), "tom",
    "daughter" ("how tall is my daughter?")."""
    return _holders(question)


def unit_words(kinds: frozenset[str]) -> str:
    return " ".join(MEASURES[kind].words for kind in sorted(kinds) if MEASURES[kind].words)


def named_only(kinds: frozenset[str]) -> bool:
    """Must a statement of these measures also name what the question asks about?"""
    return all(MEASURES[kind].named for kind in kinds)


# a newer statement saying its measure is not the old one any more ("Down to 79 kg now")
_CHANGED = re.compile(r"\b(?:now|down to|up to|no longer|any ?more|dropped|lost|gained|put on|increased|decreased|"
                      r"reached|went (?:up|down)|moved|changed|rescheduled|postponed|pushed|delayed|brought forward|"
                      r"raised|lowered|reduced|cut|grew|turn(?:ed|s))\b",
                      re.I)

# words of change that say so only right at the value: "Yoga switched to 6:30 pm", by the thing
# itself (not "Ana switched to the 6:30 pm class", "Thursday yoga switched…" after Monday's), and
# "I'm starting work at 8 am these days", by the person doing what the older says they do (not "I
# swear nobody starts work before 10 am these days", "These days Tom starts work at 7 am")
_SWITCHED_TO = re.compile(r"\b(?:switched|shifted|bumped(?:\s+(?:up|down))?)\s+(?:it\s+)?to\s+(?:the\s+)?$", re.I)
_CHANGED_AFTER = re.compile(r"\s*(?:[ap]\.?m\.?\s+)?(?:these days|nowadays)\b", re.I)
_I_DO = re.compile(r"^\s*(?:i|we)(?:['’]m|['’]re| am| are)?\s+(?P<verb>[a-z]+)", re.I)


# what says it has not happened, or not for good: "hasn't switched… yet", "will be switched from April"
_NOT_SO = re.compile(r"n['’]t\b|\b(?:not|never|yet|will|won['’]t|going to|might|may|could|would|should|if|just for|only for)\b|['’]ll\b",
                     re.I)


def _changed_at(old: str, new: str, value: re.Match) -> bool:
    # the whole sentence before the value: "On Fridays, I start work at 7 am these days" is a day's
    clause = re.split(r"[.!?]", new[:value.start()])[-1]
    if _NOT_SO.search(clause):
        return False
    switched = _SWITCHED_TO.search(clause)
    if switched:
        thing = textutil.terms(clause[:switched.start()])
        return bool(thing) and thing <= textutil.terms(old)
    doing = _I_DO.match(clause) if _CHANGED_AFTER.match(new, value.end()) else None
    return doing is not None and textutil.stem(doing["verb"]) in textutil.terms(old)


def replaces(old: str, new: str, kinds: frozenset[str], about: frozenset[str] = frozenset()) -> bool:
    """Does the newer statement give another value of the measure a question asks for, saying it
    changed ("I weighed 84 kg in October" / "Down to 79 kg now")? Both in its unit, each with a
    value the other lacks; for a measure said of many things (a time of day), both naming a
    thing the question does (`about`: its stemmed words)."""
    if not kinds or not (_CHANGED.search(new) or any(
            _changed_at(old, new, value) for kind in kinds for value in MEASURES[kind].stated.finditer(new))):
        return False
    # the newer names every thing of the question the older does ("the hotel in Tokyo is now
    # €120" is not what "the flight to Tokyo" cost), the words of the measure and its day aside
    if (about & textutil.terms(old)) - _MEASURE_WORDS - textutil.terms(new):
        return False
    # and, when the newer names anyone, every name the older gives ("my meeting with Tom" is
    # not "my meeting with Ana"; "the airline moved my flight" repeats no name and may)
    if _names(new) and _names(old) - _names(new):
        return False
    for kind in kinds:
        if MEASURES[kind].named and not about & textutil.terms(old) & textutil.terms(new):
            continue
        stated = MEASURES[kind].stated
        first_old, first_new = stated.search(old), stated.search(new)
        if not first_old or not first_new or MEASURES[kind].personal and \
                _holders(old[:first_old.start()]) != _holders(new[:first_new.start()]):
            continue   # "My daughter now weighs 18 kg" is not what I weigh
        before = {_digits(m.group(0)) for m in stated.finditer(old)}
        after = {_digits(m.group(0)) for m in stated.finditer(new)}
        if before and after and before - after and after - before:
            return True
    return False


# words of a question that say which measure or which day, not what is measured
_MEASURE_WORDS = frozenset(textutil.stem(w) for w in (
    "weigh weight heavy tall height far distance old age cost costs price pay paid spend spent charge time early "
    "leave start open close land depart arrive begin end today tomorrow yesterday week weekend").split() + list(WEEKDAYS))
# whose measure it is: "my daughter", "Tom", "she"; none for the person themselves
_HOLDER = re.compile(r"\b(?:my|our|his|her|their)\s+(\w+)|\b(he|she|they)\b", re.I)
_THE_SUBJECT = re.compile(r"(?:^|[.!?]\s+|\*\*User:\*\*\s*\"?)(?:the|a|an|our)\s+(\w+)", re.I)
_NOT_HOLDERS = CALENDAR_WORDS | {"i"}


def _holders(said: str) -> frozenset[str]:
    found = {next(g for g in m.groups() if g).lower() for m in _HOLDER.finditer(said)}
    found |= {m.group(1).lower() for m in _THE_SUBJECT.finditer(said)}   # "The dog is up to…"
    return frozenset((found | _names(said)) - _NOT_HOLDERS - {"weight", "height", "age"})


def _names(said: str) -> frozenset[str]:
    return frozenset(word.lower() for name in textutil.entities(said) for word in name.split()) - _NOT_HOLDERS


def _digits(said: str) -> str:
    number = re.sub(r"[^\d.]", "", said.replace(",", ".")).strip(".")
    try:
        return f"{float(number):g}"   # "84.0 kg" is "84 kg"
    except ValueError:
        return number
