"""Measures: a question that asks how much someone weighs, how tall or old they are, how far a
place is or what something cost, and the statements that give such a measure in its unit ("Down
to 79 kg now", "it was €40"). The question and its answer often share no word ("weigh" / "kg"),
so the search adds the unit words and retrieval lifts the statements that state the measure."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from . import textutil

_NUMBER = r"\d[\d.,]*"


@dataclass(frozen=True)
class Measure:
    asked: re.Pattern       # a question asking for it
    stated: re.Pattern      # a statement giving it
    words: str              # the words of its units, for the search
    # the statement must also name what is asked about: a time of day is said of many things
    # ("my flight to Berlin leaves at 07:40" for "what time is my flight?", not "standup at 09:30")
    named: bool = False


MEASURES = {
    "weight": Measure(re.compile(r"\b(?:weigh\w*|how heavy|weight)\b", re.I),
                      re.compile(rf"{_NUMBER}\s*(?:kg|kgs|kilos?|kilograms?|lbs?|pounds|stones?)\b", re.I),
                      "kg kilos kilograms lbs pounds weight"),
    "height": Measure(re.compile(r"\b(?:how tall|height)\b", re.I),
                      re.compile(rf"{_NUMBER}\s*(?:cm|centimet(?:er|re)s?|m|met(?:er|re)s?|ft|feet|foot)\b"
                                 r"|\b\d['’]\s?\d{1,2}\b", re.I),
                      "cm metres meters feet tall height"),
    "distance": Measure(re.compile(r"\b(?:how far|distance)\b", re.I),
                        re.compile(rf"{_NUMBER}\s*(?:km|kilomet(?:er|re)s?|miles?|mi)\b", re.I),
                        "km kilometres kilometers miles distance"),
    "age": Measure(re.compile(r"\bhow old\b", re.I),
                   re.compile(r"\b\d{1,3}\s*(?:years?|yrs?)[\s-]old\b|\bturn(?:s|ed)\s+\d{1,3}\b|\baged?\s+\d{1,3}\b", re.I),
                   "years old turned age birthday"),
    "price": Measure(re.compile(r"\bhow much\b.*\b(?:cost|costs|pay|paid|charge\w*|spen[dt]|price)\b"
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


def states(text: str, kinds: frozenset[str]) -> bool:
    """Does a text give a measure of one of these kinds, in its unit?"""
    return any(MEASURES[kind].stated.search(text) for kind in kinds)


def unit_words(kinds: frozenset[str]) -> str:
    return " ".join(MEASURES[kind].words for kind in sorted(kinds) if MEASURES[kind].words)


def named_only(kinds: frozenset[str]) -> bool:
    """Must a statement of these measures also name what the question asks about?"""
    return all(MEASURES[kind].named for kind in kinds)


# a newer statement saying its measure is not the old one any more ("Down to 79 kg now")
_CHANGED = re.compile(r"\b(?:now|down to|up to|no longer|any ?more|dropped|lost|gained|put on|increased|decreased|"
                      r"reached|went (?:up|down)|moved|changed|rescheduled|postponed|pushed|delayed|brought forward)\b",
                      re.I)


def replaces(old: str, new: str, kinds: frozenset[str], about: frozenset[str] = frozenset()) -> bool:
    """Does the newer statement give another value of the measure a question asks for, saying it
    changed ("I weighed 84 kg in October" / "Down to 79 kg now")? Both in its unit, each with a
    value the other lacks; for a measure said of many things (a time of day), both naming a
    thing the question does (`about`: its stemmed words)."""
    if not kinds or not _CHANGED.search(new):
        return False
    for kind in kinds:
        if MEASURES[kind].named and not about & textutil.terms(old) & textutil.terms(new):
            continue
        stated = MEASURES[kind].stated
        before = {_digits(m.group(0)) for m in stated.finditer(old)}
        after = {_digits(m.group(0)) for m in stated.finditer(new)}
        if before and after and before - after and after - before:
            return True
    return False


def _digits(said: str) -> str:
    return re.sub(r"[^\d.]", "", said.replace(",", ".")).strip(".")
