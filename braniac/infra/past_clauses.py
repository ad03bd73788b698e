"""Is a clause about the past? "We visited Sintra on Saturday" is; "we'll visit Sintra on
Saturday", "I swim on Saturdays", "we agreed to meet on Friday" are not. What relative_times
asks before it writes a day after "on Saturday", "over the weekend", "on the 15th" or a month."""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from . import textutil
from .stemming import past_forms

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
FOR_AN_EVENT = re.compile(rf"\b(?:for\s+(?:the|a|an|my|our|his|her|their)|about(?:\s+(?:the|a|an|my|our|his|her|their))?)"
                           rf"\s+(?:[\w'’-]+\s+){{0,2}}(?:{_EVENTS})s?\s+$", re.I)
# verbs that report another clause ("I heard Tom has a gig on Saturday"); "felt" is one only
# when a clause follows ("I felt like…", "I felt that…"), not in "I felt sick on Saturday"
_REPORTING = frozenset("heard forgot meant understood learnt dreamt".split())
CLAUSE_BOUNDS = re.compile(r"[,;:.!?\n]|\s(?:and|but|so|because)\s", re.I)
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
# a thing moved to a time to come: "rescheduled the dentist to Friday", "the clinic moved my
# appointment to 9am on Friday"; not "we moved the couch to the attic on Saturday", "I pushed my
# code to GitHub on Saturday"
_MOVED_TO = re.compile(r"\b(?:rescheduled|postponed)\b[^,;.!?]*\bto\b"
                       r"|\b(?:moved|pushed|shifted|changed|bumped|delayed)\s+(?:[\w'’]+\s+){1,4}?to\s+"
                       r"(?:\d|noon\b|midnight\b|(?:the\s+)?(?:morning|afternoon|evening|following|next|later)\b)", re.I)


def about_the_past(text: str, m: re.Match, bounds: list[tuple[int, int]], starts: list[int]) -> bool:
    """Is the clause that holds the match about the past ("we visited Sintra on Saturday"), not
    a plan, a habit or a state ("yoga is on Tuesday, I booked it")? `bounds`: the text's clause
    bounds (CLAUSE_BOUNDS) and `starts` where they start, found once for all its matches."""
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


def says_what_was_done(sentence: str) -> bool:
    """Does a sentence hold a verb of the past ("Bought a present for Tom, his birthday is
    tomorrow"), not only a plan ("Tomorrow I have a job interview")?"""
    return any(_is_past(word) for word in re.findall(r"[a-z]+", sentence.lower()) if len(word) > 2)


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
