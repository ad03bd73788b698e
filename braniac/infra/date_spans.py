"""The periods a prompt names ("in May 2023", "on 13 October", "last week"), as ISO date spans,
so retrieval can lift the events that happened then."""
from __future__ import annotations

import re
from calendar import monthrange
from datetime import date, timedelta
from functools import cache
from typing import Iterable

from . import textutil

from .past_clauses import says_what_was_done
from .relative_times import CALENDAR_WORDS, COUNT_PATTERN, UNIT_DAYS, WEEKDAYS, count_of, latest_weekday, resolved_times

_MONTHS = {m: i for i, names in enumerate((
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
    ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
    ("dec", "december")), start=1) for m in names}
MONTH_NAMES = frozenset(_MONTHS)   # "april", "apr", …
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d{2})"
_SPAN_PATTERNS = (
    ("ymd", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("dmy", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.I)),
    ("mdy", re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.I)),
    ("my", re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I)),
    ("dm", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b(?!,?\s+\d)", re.I)),
    ("md", re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?!,?\s+\d)(?!\s*(?:am|pm|years?|days?|weeks?|months?)\b)", re.I)),
    ("m", re.compile(rf"\b(?:in|during|since|of|last|early|late|mid|before|after|until)\s+(?:mid-?|early\s+|late\s+)?{_MONTH}\b(?!\s+\d)", re.I)),
    ("y", re.compile(r"\b(?:in|during|since|of|year|before|after|until)\s+((?:19|20)\d{2})\b(?!-)", re.I)),
    # "on Thursday last week": that day of last week, not the whole week
    ("wdlw", re.compile(r"\b(?:on\s+)?(" + "|".join(WEEKDAYS) + r")\s+(?:of\s+)?last\s+week\b", re.I)),
    ("rel", re.compile(r"\b(the\s+day\s+before\s+yesterday|the\s+week(?:end)?\s+before\s+last|yesterday|today|tonight|"
                       r"this\s+(?:morning|afternoon|evening)"
                       r"|last\s+(?:night|week|weekend|month|year)|this\s+(?:week|month|year)"
                       r"|(?:last|this\s+past)\s+(?:" + "|".join(WEEKDAYS) + ")"
                       r"|this\s+past\s+weekend"
                       r"|(" + COUNT_PATTERN + r")\s+(days?|weeks?|months?|years?|fortnights?)\s+ago)\b", re.I)),
    # asked in the past tense only: "what did I do over the weekend / on Saturday?" (not "what
    # am I doing on Saturday?"): the latest such days
    ("past", re.compile(r"\b(?:over|on|during|at)\s+the\s+weekend\b|\bthis\s+weekend\b"
                        r"|\bon\s+(?:" + "|".join(WEEKDAYS) + r")\b", re.I)),
)
# the words that name a period, which the period's days answer by themselves (with the names of
# the days and months), and what a question about a period asks besides it ("what happened last
# week?", "anything new this month?", "what was I up to?")
_PERIOD_WORDS = ("week weekend month year today yesterday tonight last past ago day days weeks months years "
                "morning evening night afternoon recently lately").split()
_WENT_ON_WORDS = ("happen happened new news anything up going go went done do mention mentioned say said tell told talk "
                 "talked discuss discussed about").split()


@cache
def period_stems() -> frozenset[str]:
    """The stems of what a question about a period says of it (_PERIOD_WORDS, _WENT_ON_WORDS, the
    names of the days and months): the period's days answer those words by themselves."""
    return frozenset(textutil.stem(w) for w in (*_PERIOD_WORDS, *_WENT_ON_WORDS, *sorted(CALENDAR_WORDS)))


_SAID = re.compile(r"\b(?:mention(?:s|ed)?|say|said|tell|told|talk(?:ed)?|discuss(?:ed)?|br(?:ing|ought)\s+up)\b", re.I)
# a period just before a date written out: "the week before 16 November 2023", "last weekend before April 10, 2023"
_BEFORE = re.compile(r"\b(?:the\s+|last\s+)?(week|weekend|day|month|" + "|".join(WEEKDAYS) + r")\s+(?:before|prior\s+to)\s+",
                     re.I)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])\s+")
_ANY_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_LINKS = re.compile(r"\[[^\]]*\]\([^)]*\)")   # a claim's citations say nothing of when
_WORD = re.compile(r"[^\W\d_]{2,}")
_PAST_TENSE = re.compile(r"\b(?:did|was|were|had|happened|went)\b", re.I)
# a date written out: not a timestamp's, nor the day a claim was said ("2025-03-10 — …")
_WRITTEN_DATE = re.compile(r"(?<![\d-])(\d{4}-\d{2}-\d{2})(?![\dT:-])(?!\s+—)")


def date_spans(text: str, now=None) -> list[tuple[str, str]]:
    """The periods a text names, as inclusive (first day, last day) ISO dates: a day ("13 October,
    2023", "2023-10-13"), a month ("May 2023"; "in June" is the latest June not after `now`), a
    year ("in 2022"), or a time relative to `now` ("yesterday", "last week", "two months ago"),
    or to the day the text names with its year ("last week, 10 April 2023"). Asked in the past
    tense, "over the weekend" and "on Saturday" are the latest such days."""
    today = now.date() if now is not None else None
    spans: list[tuple[str, str]] = []
    dated: list[tuple[str, str]] = []   # days named with their year
    dated_at: dict[int, date] = {}        # where each starts in the text
    taken: list[tuple[int, int]] = []

    def add(start: date, end: date, where: tuple[int, int]) -> None:
        if any(a < where[1] and where[0] < b for a, b in taken):
            return  # inside a longer date already read ("13 October, 2023" is not also "October")
        taken.append(where)
        spans.append((start.isoformat(), end.isoformat()))

    def month_span(year: int, month: int) -> tuple[date, date]:
        return date(year, month, 1), date(year, month, monthrange(year, month)[1])

    def latest_year(month: int, day: int = 1) -> int | None:
        if today is None:
            return None
        return today.year if (month, day) <= (today.month, today.day) else today.year - 1

    for kind, pattern in _SPAN_PATTERNS:
        for m in pattern.finditer(text):
            g = m.groups()
            try:
                if kind in ("ymd", "dmy", "mdy"):
                    year, month, day = (g[0], g[1], g[2]) if kind == "ymd" else (g[2], g[1], g[0]) if kind == "dmy" \
                        else (g[2], g[0], g[1])
                    d = date(int(year), int(month) if month.isdigit() else _MONTHS[month.lower().rstrip(".")], int(day))
                    add(d, d, m.span())
                    dated.append((d.isoformat(), d.isoformat()))
                    dated_at[m.start()] = d
                elif kind == "my":
                    add(*month_span(int(g[1]), _MONTHS[g[0].lower().rstrip(".")]), m.span())
                elif kind in ("dm", "md"):
                    month = _MONTHS[(g[1] if kind == "dm" else g[0]).lower().rstrip(".")]
                    day = int(g[0] if kind == "dm" else g[1])
                    year = latest_year(month, day)
                    if year is not None:
                        d = date(year, month, day)
                        add(d, d, m.span())
                elif kind == "m":
                    month = _MONTHS[g[0].lower().rstrip(".")]
                    year = latest_year(month)
                    if year is not None:
                        add(*month_span(year, month), m.span(1))
                elif kind == "y":
                    add(date(int(g[0]), 1, 1), date(int(g[0]), 12, 31), m.span(1))
                elif kind == "wdlw":
                    if today is not None:
                        day = today - timedelta(days=today.weekday() + 7) + timedelta(days=WEEKDAYS.index(g[0].lower()))
                        add(day, day, m.span())
                elif kind == "past":
                    # "this weekend" asked from Wednesday on is the coming one: nothing happened then
                    # yet (on a Monday or a Tuesday, "what did I do this weekend?" is the one just gone)
                    this_weekend = m.group(0).lower().startswith("this") and today is not None and 2 <= today.weekday() < 5
                    if today is not None and _PAST_TENSE.search(text) and not this_weekend:
                        add(*_latest(m.group(0), today), m.span())
                else:
                    # "last week, 10 April 2023": relative to the day the text names with its year,
                    # if any ("last weekend, before the 5 December deadline" is the person's last weekend)
                    days = [date.fromisoformat(a) for a, b in dated]
                    anchor = max(days) if days else today
                    if anchor is not None:
                        add(*_relative(g, anchor), m.span())
            except (ValueError, KeyError):
                continue
    for m in _BEFORE.finditer(text):   # "the week before 16 November 2023": that week too
        if m.end() not in dated_at:
            continue
        anchor = dated_at[m.end()].isoformat()
        before = tuple(d.isoformat() for d in _before(m.group(1).lower(), dated_at[m.end()]))
        spans[:] = [s for s in spans if s != (anchor, anchor)]   # the day itself is not asked about
        if before not in spans:
            spans.append(before)
    return spans


def _before(unit: str, day: date) -> tuple[date, date]:
    """The period a unit names just before a day: the week, the weekend, the day, the month, or
    the latest such weekday."""
    if unit in WEEKDAYS:
        named = latest_weekday(day, unit)
        return named, named
    if unit == "weekend":
        saturday = latest_weekday(day, "saturday")
        return saturday, min(saturday + timedelta(days=1), day - timedelta(days=1))
    back = UNIT_DAYS[unit]
    return day - timedelta(days=back), day - timedelta(days=1)


def _latest(phrase: str, today: date) -> tuple[date, date]:
    """The latest weekend (this one, if it is under way) or the latest such weekday before today."""
    named = phrase.lower().split()[-1]
    if named == "weekend":
        saturday = today - timedelta(days=(today.weekday() - 5) % 7)
        return saturday, min(saturday + timedelta(days=1), today)
    day = latest_weekday(today, named)
    return day, day


def _relative(groups: tuple, today: date) -> tuple[date, date]:
    phrase = " ".join(groups[0].lower().split())
    if phrase in ("today", "tonight", "this morning", "this afternoon", "this evening"):
        return today, today
    if phrase in ("yesterday", "last night"):
        return today - timedelta(days=1), today - timedelta(days=1)
    if phrase == "the day before yesterday":
        return today - timedelta(days=2), today - timedelta(days=2)
    if phrase == "this week":
        return today - timedelta(days=today.weekday()), today
    if phrase in ("the week before last", "the weekend before last"):
        monday = today - timedelta(days=today.weekday() + 14)
        return (monday, monday + timedelta(days=6)) if "weekend" not in phrase else \
            (monday + timedelta(days=5), monday + timedelta(days=6))
    if phrase == "last week":
        start = today - timedelta(days=today.weekday() + 7)
        return start, start + timedelta(days=6)
    if phrase in ("last weekend", "this past weekend"):   # last week's Saturday and Sunday (as relative_times has it)
        saturday = today - timedelta(days=today.weekday() + 2)
        return saturday, saturday + timedelta(days=1)
    if phrase.split()[-1] in WEEKDAYS:   # "last Friday": the latest Friday before today
        day = latest_weekday(today, phrase.split()[-1])
        return day, day
    if phrase == "this month":
        return today.replace(day=1), today
    if phrase == "last month":
        end = today.replace(day=1) - timedelta(days=1)
        return end.replace(day=1), end
    if phrase == "this year":
        return date(today.year, 1, 1), today
    if phrase == "last year":
        return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)
    days = UNIT_DAYS[groups[2].lower().rstrip("s")] * count_of(groups[1])
    middle = today - timedelta(days=days)
    slack = min(max(1, days // 7), 90)  # "two months ago" is roughly, not exactly, 60 days back
    return middle - timedelta(days=slack), middle + timedelta(days=slack)


def named_days(text: str) -> list[tuple[str, str]]:
    """The periods a text names, as (first, last) ISO days: the relative times promotion resolved
    ("on Saturday (2025-03-08)", "next month (March 2025)", "two weeks ago (around 2025-02-17)")
    and dates written out with their year ("on 2025-03-03", "born on 3 March 2019", "in 2019")."""
    found = [span for said in resolved_times(text) for span in _spans_of(said)]
    found += [(d, d) for d in _WRITTEN_DATE.findall(text)]
    if any(c.isdigit() for c in text):
        # (ISO dates are read above: the one a claim opens with is the day it was said, no day it names)
        found += [span for span in date_spans(_ANY_ISO_DATE.sub(" ", text)) if span not in found]
    return found


def _span_of(resolution: str) -> tuple[str, str]:
    words = resolution.split()
    rough = words[0] == "around"
    if re.fullmatch(r"\d{4}", words[-1]) and len(words) >= 2 and words[-2].lower() in _MONTHS:
        first = date(int(words[-1]), _MONTHS[words[-2].lower()], 1)   # "March 2025"
        last = date(first.year, first.month, monthrange(first.year, first.month)[1])
    elif re.fullmatch(r"\d{4}", words[-1]):
        first, last = date(int(words[-1]), 1, 1), date(int(words[-1]), 12, 31)
    else:
        first = last = date.fromisoformat(words[-1])
        if words[0] in ("week", "weekend"):
            last = first + timedelta(days=6 if words[0] == "week" else 1)
        elif rough:   # "two weeks ago": about then
            first, last = first - timedelta(days=3), last + timedelta(days=3)
    return first.isoformat(), last.isoformat()


def about_the_period(said_on: Iterable[str], text: str, spans: list[tuple[str, str]], *, said_then: bool = False) -> bool:
    """Is a statement said on the days `said_on` (ISO) about one of the periods? It is when it
    was said in one, unless each of its sentences tells of another time ("Two weeks ago I had a
    tooth pulled", said yesterday, is not what I did yesterday; "I finished the report. My flight
    is next Friday." is), or when it names a day of one ("On Saturday (2025-03-08) I hiked…", said on
    the Monday after). `said_then`: the question asks what was said in the period ("what did
    Maria mention on 31 July?"), so all that was said then is. A period named is about a day
    only if it is no longer than the one asked for (or two days): "last month" says little about
    the 3rd."""
    said_in = [day for day in said_on if any(start <= day <= end for start, end in spans)]
    if said_in and (said_then or any(not _of_another_time(sentence, min(said_in))
                                     for sentence in _SENTENCE_BREAK.split(_LINKS.sub("", text)) if _WORD.search(sentence))):
        return True
    return any(a <= end and start <= b and _length(a, b) <= max(_length(start, end), 1)
               for a, b in named_days(text) for start, end in spans)


def _of_another_time(sentence: str, said: str) -> bool:
    """Does a sentence tell of another time than the day it was said: a time before it ("Two
    weeks ago (around …) I had a tooth pulled"), or only a time to come with nothing done
    ("Tomorrow (…) I have a job interview"; not "Bought a present, his birthday is tomorrow")?
    Only the relative times promotion resolved count: a date inside what was done ("I sold the
    car I bought in 2019", "a deposit of 2000 euros") does not move it to then."""
    times = [span for said_time in resolved_times(sentence) for span in _spans_of(said_time)]
    if any(last < said for _first, last in times):
        return True
    return bool(times) and all(first > said for first, _last in times) and not says_what_was_done(sentence)


def _spans_of(resolution: str) -> list[tuple[str, str]]:
    """The span a resolution stands for, or none for a date no calendar has (written by hand)."""
    try:
        return [_span_of(resolution)]
    except (ValueError, KeyError, IndexError):
        return []


def asks_what_was_said(prompt: str) -> bool:
    """"What did Maria mention on 31 July?", "what did we talk about yesterday?": a question
    about what was said in a period, not about what happened in it."""
    return bool(_SAID.search(prompt))


def _length(first: str, last: str) -> int:
    return (date.fromisoformat(last) - date.fromisoformat(first)).days
