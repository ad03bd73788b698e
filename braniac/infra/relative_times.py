"""Relative times made absolute: "last Friday" said on a Wednesday is followed by the day it
meant, so a claim keeps its date after the day it was said has passed."""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from calendar import monthrange
from datetime import date, timedelta

from . import textutil
from .stemming import past_forms

# "two weeks ago", "a couple of days ago", "a few weeks ago" (about three)
SMALL_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a few": 3}
COUNT_PATTERN = r"\d+|a\s+couple\s+of|a\s+few|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December")
CALENDAR_WORDS = frozenset(WEEKDAYS) | {m.lower() for m in _MONTH_NAMES}   # "monday", "may": a day, not a name
_MONTHS_ALT = "|".join(_MONTH_NAMES)
_NO_TIME_AFTER = r"(?!\s+of\s+\d)(?!\s+(?:last|next|this)\s+year)(?!\s+(?:\w+\s+){0,2}(?:years?|months?)\s+ago)"
_RELATIVE_PHRASE = (
    r"\b(?:(?P<dir>last|next|this past|this coming)\s+(?P<wd>" + "|".join(WEEKDAYS) + r")"
    r"|(?P<day>the\s+day\s+after\s+tomorrow|the\s+day\s+before\s+yesterday|yesterday|today|tonight|tomorrow|"
    r"last\s+night|this\s+(?:morning|afternoon|evening))"
    r"|(?P<pdir>last|next|this)\s+(?P<unit>week|weekend|month|year)"
    r"|(?P<n>" + COUNT_PATTERN + r")\s+(?P<units>days?|weeks?|months?|years?|fortnights?)\s+"
    r"(?P<way>ago|from\s+(?:now|today))"
    r"|on\s+(?P<owd>" + "|".join(WEEKDAYS) + r")|(?:over|on|at)\s+the\s+(?P<oweekend>weekend)"
    # "on the 15th" without its month: the latest 15th, in a sentence about the past
    r"|on\s+the\s+(?P<dom>[12]?\d|3[01])(?:st|nd|rd|th)(?!\s+(?:of\s+)?(?:" + "|".join(_MONTH_NAMES) + r")\b)"
    # a month without its year ("I bought a Golf in March", "on March 3"): the latest, in a
    # sentence about the past
    # sentence about the past: a month alone after "in", "since", "during" (not "on April", a
    # person), a day of it after "on" too; never when its year or another time follows ("on
    # September 11, 2023", "in March of 2023", "in June two years ago", "in March last year")
    r"|(?:(?:in|since|during)\s+(?-i:(?P<month>" + _MONTHS_ALT + r"))(?!\s*,?\s*\d)(?![\w-])" + _NO_TIME_AFTER +
    r"|(?:in|on|since|during)\s+(?-i:(?P<dmonth>" + _MONTHS_ALT + r"))\s+(?P<mday>[12]?\d|3[01])(?:st|nd|rd|th)?"
    r"(?!\s*,?\s*\d)(?![\w-])" + _NO_TIME_AFTER + r"))\b")
# "on Saturday", "over the weekend" mean the latest one in a sentence about the past only
# ("we visited Sintra on Saturday", not "we'll visit Sintra on Saturday")
# who did it: a pronoun, "my sister", "the plumber", "12 of us", or a name ("Tom went", "My
# sister got married"); the verb of the past is lowercase ("My friend Jared arrives" has none)
_DETERMINED = r"(?:my|our|his|her|their|the)\s+[a-z]+"   # "my sister", "the plumber"
_SUBJECT = (rf"(?:\b(?:i|we|he|she|they|you|{_DETERMINED}|of\s+(?:us|them))"
            r"|(?-i:\b(?P<name>[A-Z][a-z]+)))")
_PAST_WORDS = re.compile(r"was|were|did|had|went|got|made|saw|met|took|gave|came|left|found|sat|spoke|rode|fell|died|"
                        r"lied|tied|quit|[a-z]{3,}ed")
_PAST = re.compile(rf"{_SUBJECT}\s+(?:(?P<middle>(?!(?:am|is|are|be|been|being|will|would|gets?)\b)\w+)\s+)?"
                   rf"(?-i:{_PAST_WORDS.pattern})\b", re.I)
# "I drove", "we flew", "she bought": a verb's irregular past right after its subject (not "I
# won't", nor what is heard, forgotten or felt: "I heard Tom has a gig on Saturday")
_SUBJECT_AND_VERB = re.compile(rf"{_SUBJECT}\s+(?:(?:just|also|finally|then|all|both|actually|already)\s+)?"
                               r"(?P<verb>[a-z]+)\b(?!['’])", re.I)
# "I bought a dress for the wedding on Saturday", "Mom texted about lunch on Saturday": the day
# is the wedding's or the lunch's, which may be to come (not "I went for a run on Saturday", "I
# paid for the tickets on Saturday")
_EVENTS = ("wedding|party|concert|game|match|meeting|recital|festival|conference|appointment|interview|ceremony|"
           "graduation|birthday|anniversary|show|gig|reunion|premiere|launch|exam|trip|race|marathon|tournament|"
           "funeral|celebration|event|presentation|performance|play|lunch|dinner|breakfast|brunch")
_FOR_AN_EVENT = re.compile(rf"\b(?:for\s+(?:the|a|an|my|our|his|her|their)|about(?:\s+(?:the|a|an|my|our|his|her|their))?)"
                           rf"\s+(?:[\w'’-]+\s+){{0,2}}(?:{_EVENTS})s?\s+$", re.I)
# verbs that report another clause ("I heard Tom has a gig on Saturday"); "felt" is one only
# when a clause follows ("I felt like…", "I felt that…"), not in "I felt sick on Saturday"
_REPORTING = frozenset("heard forgot meant understood learnt dreamt".split())
_CLAUSE_BOUNDS = re.compile(r"[,;:.!?\n]|\s(?:and|but|so|because)\s", re.I)
CLAUSE_CHARS = 300   # characters of a clause read on each side of its day
_AND_I = re.compile(r"\s+and\s+(?:i|we)\b", re.I)   # "Tom and I went": one subject, its verb after the "and"
_BARE_SUBJECT = re.compile(rf"[\s,]*(?:{_DETERMINED}|[A-Z][a-z]+)[\s,]*")
_UNDER_WAY = "coming|going|leaving|getting|flying|moving|visiting|meeting|having|starting"
# a plan, a habit, an arrangement: "we agreed to meet on Friday", "I asked Tom to come over on
# Saturday", "I would help her move on Saturday", "we are invited to the wedding on Saturday"
_NOT_PAST = re.compile(r"\b(?:will|would|could|shall|should|can|might|must|going to|gonna|plan(?:ning)? to|next|every|"
                       r"usually|always)\b|\b(?-i:may)\b|'ll\b|\bwon['’]t\b"
                       r"|\b(?:am|is|are|'m|'re)\s+\w+ed\b|\bto\s+(?!(?:the|a|an|my|our|his|her|their|this|that|work|"
                       r"school|bed|church|town|dinner|lunch|breakfast|brunch|me|him|us|them|it|you|something|"
                       r"someone|somebody|everyone|everybody|anyone|nothing|everything)\b)(?-i:[a-z]+)\b"
                       # what is under way or to come: "Tom is getting married on Saturday", "she was
                       # coming over on Saturday", "the party I mentioned is on Saturday", "I signed up for…"
                       rf"|\b(?:is|are|am|'re|'m)\s+(?:\w+\s+)?(?:{_UNDER_WAY})\b|\b(?:is|are)\s+on\b"
                       r"|\b(?:was|were)\s+(?:going to|coming over)\b|\bsigned up for\b"
                       # an arrangement or a thing heard of: "Tom invited us to dinner on Saturday",
                       # "Ana mentioned a party on Saturday", "Tom got us tickets to the game on Saturday"
                       r"|\b(?:invited|asked|agreed|booked|scheduled|planned|arranged|reserved|confirmed|"
                       r"mentioned|reservations?|suggested|proposed|offered|announced|approved|promised|reminded|"
                       r"starting)\b|\btickets?\s+(?:to|for)\b|\bfor\s+(?:pick-?up|delivery|collection)\b"
                       r"|['’]d\b"
                       # "he's coming", "Tom's flying in", "the party's on Saturday" (not "Tom's going-away
                       # party", "dinner at Ana's on Saturday": whose, not "is")
                       rf"|['’]s\s+(?:\w+\s+)?(?:{_UNDER_WAY})\b(?!-)|\b(?:it|he|she|that|there|the\s+[a-z]+)['’]s\s+on\b",
                       re.I)
# a date right after a weekday: "on Monday, June 9", "Tuesday 3 June", "Friday (June 13)"; not
# "on Saturday 10 km", "last Monday, May and I went…" or "on Saturday the 1st" (no month)
_MONTHS_RE = "|".join(_MONTH_NAMES)
_DATE_AFTER = re.compile(rf",?\s+\(?(?:(?:{_MONTHS_RE})\s+\d{{1,2}}(?:st|nd|rd|th)?\b|"
                         rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS_RE})\b)", re.I)
# a thing moved to a time to come: "rescheduled the dentist to Friday", "the clinic moved my
# appointment to 9am on Friday"; not "we moved the couch to the attic on Saturday", "I pushed my
# code to GitHub on Saturday"
_MOVED_TO = re.compile(r"\b(?:rescheduled|postponed)\b[^,;.!?]*\bto\b"
                       r"|\b(?:moved|pushed|shifted|changed|bumped|delayed)\s+(?:[\w'’]+\s+){1,4}?to\s+"
                       r"(?:\d|noon\b|midnight\b|(?:the\s+)?(?:morning|afternoon|evening|following|next|later)\b)", re.I)
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
        if g["wd"]:
            if g["dir"].lower() in ("last", "this past"):
                return _iso(latest_weekday(on, g["wd"]))
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
                month = on.year * 12 + on.month - 1 + step
                return f"{_MONTH_NAMES[month % 12]} {month // 12}"
            return str(on.year + step)
        count = int(g["n"]) if g["n"].isdigit() else SMALL_NUMBERS[" ".join(g["n"].lower().split())]
        sign = -1 if g["way"].lower() == "ago" else 1     # "two weeks ago", "three days from now"
        days = {"day": 1, "week": 7, "fortnight": 14, "month": 30, "year": 365}[g["units"].lower().rstrip("s")] * count
        then = on + timedelta(days=sign * days)
        if g["units"].lower().startswith("year"):
            return f"around {on.year + sign * count}"
        if g["units"].lower().startswith("month"):   # calendar months: "one month from" 31 January is February
            month = on.year * 12 + on.month - 1 + sign * count
            return f"around {_MONTH_NAMES[month % 12]} {month // 12}"
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
        if m.group("owd") or m.group("oweekend") or m.group("dom") or dated or gone:
            if bounds is None:
                bounds = [b.span() for b in _CLAUSE_BOUNDS.finditer(text)]
                starts.extend(s for s, _ in bounds)
        if gone and _about_the_past(text, m, bounds, starts) and not re.search(r"\bfor\s+$", text[:m.start()]) \
                and not _FOR_AN_EVENT.search(text, max(0, m.start() - 40), m.start()):   # "a cake for the party this weekend"
            return f"{m.group(0)} (weekend of {_iso(latest_weekday(on, 'saturday'))})"
        if m.group("owd") or m.group("oweekend") or m.group("dom") or dated:
            if not _about_the_past(text, m, bounds, starts) or \
                    _FOR_AN_EVENT.search(text, max(0, m.start() - 40), m.start()):
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
_KIN = frozenset("mom mum dad mother father grandma granny grandpa grandmother grandfather".split())


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


def _about_the_past(text: str, m: re.Match, bounds: list[tuple[int, int]], starts: list[int]) -> bool:
    """Is the clause that holds the match about the past ("we visited Sintra on Saturday"), not
    a plan, a habit or a state ("yoga is on Tuesday, I booked it")? `bounds`: the text's clause
    bounds (_CLAUSE_BOUNDS) and `starts` where they start, found once for all its matches."""
    i = bisect_right(starts, m.start()) - 1   # the last bound before the match (a match holds none)
    start = bounds[i][1] if i >= 0 else 0
    j = bisect_left(starts, m.end())
    end = bounds[j][0] if j < len(bounds) else len(text)
    if not re.search(r"[^\W\d_]", text[start:m.start()] + text[m.end():end]):
        # the day opens the sentence on its own ("On Saturday, 12 of us went hiking"): the clause after it
        j += 1
        end = bounds[j][0] if j < len(bounds) else len(text)
    if j < len(bounds) and _AND_I.match(text, bounds[j][0]) and not re.search(r"[^\W\d_]", text[start:m.start()]) and \
            _BARE_SUBJECT.fullmatch(text[m.end():end]):
        # "On Saturday my wife and I went…", "On Saturday, Tom and I went…": the subject goes on
        # after "and" (not "We have a party on Saturday and I ordered a cake")
        j += 1
        end = bounds[j][0] if j < len(bounds) else len(text)
    # a run-on sentence is read near its day only: a day's verb is never far from it, and a 50 KB
    # message without a full stop would otherwise be read whole for each of its days
    start, end = max(start, m.start() - CLAUSE_CHARS), min(end, m.end() + CLAUSE_CHARS)
    clause = text[start:end]
    day_at = m.start() - start
    return _has_a_past_verb(clause, day_at) and not _says_not_past(clause, day_at) and not _MOVED_TO.search(clause)


# verbs whose "to" opens what was done ("I went to see Hamilton", "I had to work late", "I forgot
# to take my pills"); not those that open a plan ("we decided to go", "I wanted to come")
_PLANNING = frozenset("decided wanted hoped needed planned agreed offered promised arranged intended expected "
                      "meant asked told invited wished chose tried".split())
_WORD_BEFORE = re.compile(r"([A-Za-z]+)(?:\s+(?:over|up|out|back|down|in|home|round|around|away|there))?\s+$")


def _is_past(word: str) -> bool:
    return word in past_forms() or word.endswith("ed") or bool(_PAST_WORDS.fullmatch(word))


def _says_not_past(clause: str, day_at: int) -> bool:
    """A plan, a habit, an arrangement (_NOT_PAST), but not the "to" of a past verb."""
    for m in _NOT_PAST.finditer(clause):
        said = m.group(0)
        if said[:3].lower() in ("to ", "to\t"):
            if m.start() > day_at:
                continue   # what it was for: "I had to work late on Thursday to finish the release"
            before = _WORD_BEFORE.search(clause, 0, m.start())
            verb = before.group(1).lower() if before else ""
            if verb not in _PLANNING and _is_past(verb):
                continue   # "went to see", "forgot to take", "started to feel"
        elif said == "Will" and not re.match(r"\s+(?:you|we|i|he|she|they|it)\b", clause[m.end():], re.I):
            continue   # Will, a name ("Will said we hiked…"), not "Will you come on Saturday?"
        return True
    return False


# a clause of its own: "that", "whether", a pronoun and a verb of the present ("we meet", "he
# comes", "he's coming"), "is"/"are" ("rent is due", "the meeting's on"), "the plumber comes"
_ITS_OWN_CLAUSE = re.compile(r"\bthat\s+(?=(?:i|we|they|you|he|she|it|there|the|my|our|his|her|their)\b|(?-i:[A-Z]))"
                             r"|\b(?:whether|if)\b|\b(?:is|are|am)\b|\b(?:it|he|she|there|that|what)['’]s\b"
                             r"|\b(?:we|they|you)['’]re\b|\bi['’]m\b"
                             r"|\b(?:i|we|they|you|he|she)\s+(?P<verb>(?-i:[a-z]+))\b"
                             r"|\b(?:the|my|our|his|her|their|a)\s+[a-z]+\s+(?:comes|goes|starts|opens|closes|begins|ends|"
                             r"arrives|leaves|meets|has|have|runs|plays|visits|flies)\b", re.I)
_NO_VERB_OF_THE_PRESENT = frozenset("just also all both then really finally never already".split())


def _own_clause_between(clause: str, start: int, end: int) -> bool:
    """Does a clause of its own open between `start` and `end` (a pronoun with a verb of the
    past, "we went", opens none)?"""
    for m in _ITS_OWN_CLAUSE.finditer(clause, start, end):
        verb = m.group("verb")
        if not verb or not (verb in _NO_VERB_OF_THE_PRESENT or verb in past_forms() or verb.endswith("ed")
                            or _PAST_WORDS.fullmatch(verb)):
            return True
    return False


# a note without its subject: a verb opens it, and what it acted on follows
_NO_SUBJECT = re.compile(r"[^A-Za-z]*([A-Z][a-z]+)\s+(?:my|our|the|a|an|his|her|their|some|it|up|out|back|to)\b")
_RIGHT_BEFORE_THE_DAY = re.compile(r"\s+(?:on|over|at)\s+(?:the\s+)?(?:\w+day|weekend|\d)", re.I)


def _has_a_past_verb(clause: str, day_at: int) -> bool:
    """A subject and a verb of the past: "we visited", "I drove", "Tom went", "my sister got".
    A capitalized word is no name when it is a stop word ("The renovated kitchen opens…"), nor,
    with a word after it, when it is an ordinary word ("Dentist appointment scheduled…", and
    then "Apparently Tom crashed…" is read again from "Tom"); "felt like", "felt that" report a
    feeling. `day_at`: where the day is in the clause; a clause of its own between a past verb
    and the day ("…that…", "we meet", "he's coming", "rent is due") holds the day, not the verb."""
    opening = _NO_SUBJECT.match(clause)
    if opening and _is_past(opening.group(1).lower()):
        return True   # "Sold my old bike on Saturday", "Took the car for its inspection on Friday"
    pos = 0
    while (m := _PAST.search(clause, pos)) is not None:
        if _own_clause_between(clause, m.end(), day_at):
            break   # "My sister decided we meet on Monday": the day is the meeting's, said in the present
        name = m.group("name")
        common = bool(name) and textutil.is_common_word(name)
        # "Office closed on Monday", "Payment required on the 1st": a notice, not someone's past;
        # a notice says a participle, so "Tom left on Saturday" (a name that is also a word) is a past
        notice = common and m.group(0).endswith("ed") and _RIGHT_BEFORE_THE_DAY.match(clause, m.end())
        if not name or name.lower() not in textutil.STOP_WORDS and not (common and m.group("middle")) and not notice:
            return True
        pos = m.start() + 1
    for m in _SUBJECT_AND_VERB.finditer(clause):
        if _own_clause_between(clause, m.end(), day_at):   # (none after the day)
            continue
        verb = m.group("verb").lower()
        if verb in past_forms() and verb not in _REPORTING and \
                not (verb == "felt" and re.match(r"\s+(?:that|like|as if)\b", clause[m.end():], re.I)):
            return True
    return False


def _latest_day_of_month(on: date, day: int) -> date:
    """The latest date not after `on` whose day of the month is `day` (a 31st skips short months)."""
    year, month = on.year, on.month
    for _ in range(12):
        if day <= monthrange(year, month)[1] and date(year, month, day) <= on:
            return date(year, month, day)
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    raise ValueError(day)


def _iso(day: date) -> str:
    return day.isoformat()
