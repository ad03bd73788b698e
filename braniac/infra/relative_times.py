"""Relative times made absolute: "last Friday" said on a Wednesday is followed by the day it
meant, so a claim keeps its date after the day it was said has passed."""
from __future__ import annotations

import re
from calendar import monthrange
from datetime import date, timedelta

from . import textutil
from .past_clauses import CLAUSE_BOUNDS, FOR_AN_EVENT, about_the_past

# "two weeks ago", "a couple of days ago", "a few weeks ago" (about three)
_SMALL_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a few": 3}
COUNT_PATTERN = r"\d+|a\s+couple\s+of|a\s+few|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30, "year": 365}   # (a month, a year: roughly)

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December")
CALENDAR_WORDS = frozenset(WEEKDAYS) | {m.lower() for m in _MONTH_NAMES}   # "monday", "may": a day, not a name
_MONTHS_RE = "|".join(_MONTH_NAMES)
_NO_TIME_AFTER = r"(?!\s+of\s+\d)(?!\s+(?:last|next|this)\s+year)(?!\s+(?:\w+\s+){0,2}(?:years?|months?)\s+ago)"
_RELATIVE_PHRASE = (
    r"\b(?:(?P<dir>last|next|this past|this coming|this)\s+(?P<wd>" + "|".join(WEEKDAYS) + r")"
    r"|(?P<before_last>the\s+(?:week|weekend)\s+before\s+last)"
    r"|in\s+(?P<in_n>" + COUNT_PATTERN + r")\s+(?P<in_units>days?|weeks?|months?)(?!\s+(?:ago|time|of|to|for|and))"
    r"|(?P<day>the\s+day\s+after\s+tomorrow|the\s+day\s+before\s+yesterday|yesterday|today|tonight|tomorrow|"
    r"last\s+night|this\s+(?:morning|afternoon|evening))"
    r"|(?P<pdir>last|next|this)\s+(?P<unit>week|weekend|month|year)"
    r"|(?P<n>" + COUNT_PATTERN + r")\s+(?P<units>days?|weeks?|months?|years?|fortnights?)\s+"
    r"(?P<way>ago|from\s+(?:now|today))"
    r"|on\s+(?P<owd>" + "|".join(WEEKDAYS) + r")|(?:over|on|at)\s+the\s+(?P<oweekend>weekend)"
    # "on the 15th" without its month: the latest 15th, in a sentence about the past
    r"|on\s+the\s+(?P<dom>[12]?\d|3[01])(?:st|nd|rd|th)(?!\s+(?:of\s+)?(?:" + _MONTHS_RE + r")\b)"
    # a month without its year ("I bought a Golf in March", "on March 3"): the latest, in a
    # sentence about the past: a month alone after "in", "since", "during" (not "on April", a
    # person), a day of it after "on" too; never when its year or another time follows ("on
    # September 11, 2023", "in March of 2023", "in June two years ago", "in March last year")
    r"|(?:(?:in|since|during)\s+(?-i:(?P<month>" + _MONTHS_RE + r"))(?!\s*,?\s*\d)(?![\w-])" + _NO_TIME_AFTER +
    r"|(?:in|on|since|during)\s+(?-i:(?P<dmonth>" + _MONTHS_RE + r"))\s+(?P<mday>[12]?\d|3[01])(?:st|nd|rd|th)?"
    r"(?!\s*,?\s*\d)(?![\w-])" + _NO_TIME_AFTER + r"))\b")
# a date right after a weekday: "on Monday, June 9", "Tuesday 3 June", "Friday (June 13)"; not
# "on Saturday 10 km", "last Monday, May and I went…" or "on Saturday the 1st" (no month)
_DATE_AFTER = re.compile(rf",?\s+\(?(?:(?:{_MONTHS_RE})\s+\d{{1,2}}(?:st|nd|rd|th)?\b|"
                         rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS_RE})\b)", re.I)
_RESOLUTION = r"\s*\((?:week of |weekend of |around )?(?:\d{4}-\d{2}-\d{2}|[A-Z][a-z]+ \d{4}|\d{4})\)"
_RELATIVE = re.compile(_RELATIVE_PHRASE + rf"(?!{_RESOLUTION})", re.I)
_RESOLVED = re.compile(rf"({_RELATIVE_PHRASE}){_RESOLUTION}", re.I)


def latest_weekday(before: date, name: str) -> date:
    """The latest day of that name before `before` ("Friday" said on a Wednesday: five days back;
    on a Friday: a week back)."""
    return before - timedelta(days=(before.weekday() - WEEKDAYS.index(name.lower())) % 7 or 7)


def without_resolutions(text: str, *, keep_ahead: bool = False) -> str:
    """A text as the person said it: the dates `resolve_relative` added taken out again (two
    statements are compared by what was said, "today" on two days is the same claim).
    `keep_ahead`: not the dates of a time to come ("moved to next Tuesday (2025-05-13)"), which
    can be the new value of a thing."""
    def said(m: re.Match) -> str:
        return m.group(0) if keep_ahead and _AHEAD.match(m.group(1)) else m.group(1)
    return _RESOLVED.sub(said, text)


def past_days(text: str) -> tuple[str, ...]:
    """The days `resolve_relative` gave the times of the past in a text ("on Saturday
    (2025-03-01)", "yesterday (2025-03-04)", "last weekend (weekend of 2025-03-01)"), in order;
    not a time said roughly ("two weeks ago (around 2025-02-17)", "last month (February 2025)"),
    which the same thing said two days apart resolves to two days."""
    days = (m.group(0)[len(m.group(1)):].strip(" ()") for m in _RESOLVED.finditer(text) if not _AHEAD.match(m.group(1)))
    return tuple(day for day in days if re.fullmatch(r"(?:week(?:end)? of )?\d{4}-\d{2}-\d{2}", day))


def resolved_times(text: str) -> list[str]:
    """What `resolve_relative` wrote after each relative time of a text, past or to come:
    "2025-03-08", "weekend of 2025-03-08", "around 2025-02-17", "March 2025", "around 2024"."""
    return [m.group(0)[len(m.group(1)):].strip(" ()") for m in _RESOLVED.finditer(text)]


# "moved to this weekend", "to the day after tomorrow", "to two weeks from now" too
_AHEAD = re.compile(r"(?:next|this(?! past)(?!\s+(?:morning|afternoon|evening))|tomorrow|tonight|the\s+day\s+after\b|"
                    r".*\bfrom\s+(?:now|today))\b", re.I)


def resolve_relative(text: str, on: date) -> str:
    """Relative times in a statement made on day `on` ("last Friday", "yesterday", "two weeks
    ago", "next month") each followed by the date they stand for: "last Friday (2025-02-28)".
    Once resolved, a text is left as it is (a claim merged again stays the same)."""
    def absolute(m: re.Match) -> str:
        g = m.groupdict()
        if g["month"] or g["dmonth"]:
            month, day = _MONTH_NAMES.index(g["month"] or g["dmonth"]) + 1, int(g["mday"]) if g["mday"] else None
            year = on.year if (month, day or 1) <= (on.month, on.day) else on.year - 1
            return _iso(date(year, month, day)) if day else f"{g['month']} {year}"
        if g["dom"]:
            return _iso(_latest_day_of_month(on, int(g["dom"])))
        if g["owd"] or g["oweekend"]:
            day = latest_weekday(on, g["owd"] or "saturday")
            return _iso(day) if g["owd"] else f"weekend of {_iso(day)}"
        if g["before_last"]:
            monday = on - timedelta(days=on.weekday() + 14)
            return f"weekend of {_iso(monday + timedelta(days=5))}" if "weekend" in g["before_last"].lower() \
                else f"week of {_iso(monday)}"
        if g["wd"]:
            if g["dir"].lower() in ("last", "this past"):
                return _iso(latest_weekday(on, g["wd"]))
            if g["dir"].lower() == "this":   # of the past: the latest (today's own); else the coming one
                back = (on.weekday() - WEEKDAYS.index(g["wd"].lower())) % 7
                return _iso(on - timedelta(days=back))
            ahead = (WEEKDAYS.index(g["wd"].lower()) - on.weekday()) % 7 or 7
            return _iso(on + timedelta(days=ahead))
        if g["day"]:
            shift = {"yesterday": -1, "last night": -1, "today": 0, "tonight": 0, "tomorrow": 1, "this morning": 0,
                     "this afternoon": 0, "this evening": 0,
                     "the day after tomorrow": 2, "the day before yesterday": -2}
            return _iso(on + timedelta(days=shift[" ".join(g["day"].lower().split())]))
        if g["unit"]:
            step = {"last": -1, "this": 0, "next": 1}[g["pdir"].lower()]
            unit = g["unit"].lower()
            if unit in ("week", "weekend"):
                monday = on - timedelta(days=on.weekday()) + timedelta(weeks=step)
                return f"week of {_iso(monday)}" if unit == "week" else f"weekend of {_iso(monday + timedelta(days=5))}"
            if unit == "month":
                return _month_after(on, step)
            return str(on.year + step)
        # "two weeks ago", "three days from now", "in two weeks" (to come: replace() leaves the
        # duration of a clause about the past, "I learned it in two weeks", as it is)
        count, units = count_of(g["n"] or g["in_n"]), (g["units"] or g["in_units"]).lower()
        sign = -1 if (g["way"] or "").lower() == "ago" else 1
        days = UNIT_DAYS[units.rstrip("s")] * count
        if units.startswith("year"):
            return f"around {on.year + sign * count}"
        if units.startswith("month"):   # calendar months: "one month from" 31 January is February
            return f"around {_month_after(on, sign * count)}"
        then = on + timedelta(days=sign * days)
        return _iso(then) if days == 1 else f"around {_iso(then)}"

    bounds: list[tuple[int, int]] | None = None   # the text's clause bounds, found at the first day that needs them
    starts: list[int] = []

    def replace(m: re.Match) -> str:
        nonlocal bounds
        if _no_time_here(text, m):
            return m.group(0)
        gone = (m.group("pdir") or "").lower() == "this" and (m.group("unit") or "").lower() == "weekend" \
            and on.weekday() < 4   # "I painted the fence this weekend", said on a Monday: the one just gone
        dated = m.group("month") or m.group("dmonth")
        this_day = (m.group("dir") or "").lower() == "this"   # "this Friday": gone or to come, as the clause says
        if m.group("owd") or m.group("oweekend") or m.group("dom") or dated or gone or this_day or m.group("in_n"):
            if bounds is None:
                bounds = [b.span() for b in CLAUSE_BOUNDS.finditer(text)]
                starts.extend(s for s, _ in bounds)
        if gone and about_the_past(text, m, bounds, starts) and not re.search(r"\bfor\s+$", text[:m.start()]) \
                and not FOR_AN_EVENT.search(text, max(0, m.start() - 40), m.start()):   # "a cake for the party this weekend"
            return f"{m.group(0)} (weekend of {_iso(latest_weekday(on, 'saturday'))})"
        if m.group("in_n") and not _TO_COME.search(_sentence_of(text, m)):
            return m.group(0)   # "I learned it in two weeks", "haven't talked in a few days": how long, not when
        if this_day and not about_the_past(text, m, bounds, starts):
            ahead = (WEEKDAYS.index(m.group("wd").lower()) - on.weekday()) % 7
            return f"{m.group(0)} ({_iso(on + timedelta(days=ahead))})"
        if m.group("owd") or m.group("oweekend") or m.group("dom") or dated:
            if not about_the_past(text, m, bounds, starts) or \
                    FOR_AN_EVENT.search(text, max(0, m.start() - 40), m.start()):
                return m.group(0)
        if (m.group("owd") or m.group("wd")) and _DATE_AFTER.match(text, m.end()):
            return m.group(0)   # "on Monday, June 9": the day is given
        try:
            return f"{m.group(0)} ({absolute(m)})"
        except (ValueError, OverflowError, KeyError):
            return m.group(0)
    return _RELATIVE.sub(replace, text)


# what the words around a relative time say it is not one: a title ("We watched Next Friday",
# "on the Today show", "Friday Night Lights"), a time of a story or a calendar ("the last Friday
# of the month", "my last week in Tokyo", "the next Monday"), an ordinal of a thing ("on the
# 2nd floor"), a day denied ("not yesterday but…"), a weekday with its date ("Friday the 13th")
_DETERMINER_BEFORE = re.compile(r"\b(?:the|my|his|her|our|their|your|a|its)\s+$", re.I)
_OF_A_CYCLE = re.compile(r"\s+of\s+(?:the|every|each|a)\b", re.I)
_DENIED = re.compile(r"(?:\bnot|n['’]t)\s+$", re.I)
_WITH_ITS_DATE = re.compile(r"\s+the\s+\d{1,2}(?:st|nd|rd|th)\b", re.I)
_NEXT_WORD = re.compile(r"\s+([A-Za-z][\w'’]*)")
_SENTENCE_END = re.compile(r"[.!?:;\n(\[]|\*\*")   # what a sentence (a list item, a speaker's line) starts after
_TWO_WORDS = re.compile(r"\s+([A-Za-z][\w'’]*)\s+([A-Za-z][\w'’]*)")
_BORN = re.compile(r"\bborn\s+$", re.I)
# a sentence of a time to come: "I'm flying to Rome in two weeks", "the results come in three days"
_TO_COME = re.compile(r"\b(?:will|shall|gonna|going\s+to)\b|['’]ll\b|\b(?:am|is|are|['’]m|['’]re)\s+(?:\w+\s+)?\w+ing\b"
                      r"|\b(?:comes?|starts?|begins?|arrives?|leaves?|due|back|ends?|opens?)\b", re.I)


_KIN = frozenset("mom mum dad mother father grandma granny grandpa grandmother grandfather".split())


def _sentence_of(text: str, m: re.Match) -> str:
    start = max((text.rfind(c, 0, m.start()) for c in ".!?\n"), default=-1) + 1
    ends = [i for i in (text.find(c, m.end()) for c in ".!?\n") if i >= 0]
    return text[start:min(ends) if ends else len(text)]


def _no_time_here(text: str, m: re.Match) -> bool:
    before, phrase = text[max(0, m.start() - 40):m.start()], m.group(0)
    if m.group("dir") or m.group("pdir"):
        if _DETERMINER_BEFORE.search(before) or _OF_A_CYCLE.match(text, m.end()):
            return True
    if _DENIED.search(before):
        return True
    if (m.group("owd") or m.group("wd")) and _WITH_ITS_DATE.match(text, m.end()):
        return True
    following = _NEXT_WORD.match(text, m.end())
    if m.group("dom") and following and following.group(1).islower() and \
            following.group(1).lower() not in textutil.STOP_WORDS:
        return True   # "on the 2nd floor" (not "on the 15th we went")
    if (m.group("month") or m.group("dmonth")) and _BORN.search(before):
        return True   # "I was born in May": a birthday, not last May
    if phrase[:1].isupper() and re.search(r"[^\W\d_]", _SENTENCE_END.split(before)[-1]):
        return True   # a capital after words of the same sentence: a title's
    # a title goes on in capitals ("Friday Night Lights", "Tomorrow Never Dies"), a sentence with
    # a name goes on in lowercase ("Yesterday Mark called", "On Saturday Tom and I went")
    words = _TWO_WORDS.match(text, m.end())
    return bool(words) and all(w[:1].isupper() and w != "I" and textutil.is_common_word(w) and w.lower() not in _KIN
                               for w in words.groups())


def _latest_day_of_month(on: date, day: int) -> date:
    """The latest date not after `on` whose day of the month is `day` (a 31st skips short months)."""
    year, month = on.year, on.month
    for _ in range(12):
        if day <= monthrange(year, month)[1] and date(year, month, day) <= on:
            return date(year, month, day)
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    raise ValueError(day)


def count_of(word: str) -> int:
    """"two" 2, "a couple of" 2, "12" 12: a count said in words or digits (COUNT_PATTERN's)."""
    return int(word) if word.isdigit() else _SMALL_NUMBERS[" ".join(word.lower().split())]


def _month_after(on: date, months: int) -> str:
    """"March 2025": the calendar month `months` after (or before) the month of `on`."""
    month = on.year * 12 + on.month - 1 + months
    return f"{_MONTH_NAMES[month % 12]} {month // 12}"


def _iso(day: date) -> str:
    return day.isoformat()
