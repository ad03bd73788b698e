"""A change said in words, with no number to compare: "I use Firefox now instead of Chrome",
"Sam is my best friend now", "The standup moved to room Vega", "We cancelled the Japan trip",
"Actually my favorite color is blue". Read against the question (value_changes.py): both
statements hold its words, the newer says its value changed and names something the older does
not, and it is the person's own (not "Tom cancelled his trip", not "I also use Firefox")."""
from __future__ import annotations

import re

from ..infra import textutil
from ..infra.past_clauses import says_what_was_done
from .claims import as_said, subjects

# how a newer statement says the older one no longer holds
_SAYS_CHANGED = re.compile(r"\b(?:now|instead|no longer|any ?more|switched|swapped|moved|changed (?:my|our) minds?|"
                           r"scrap(?:ped)?|actually|cancel(?:l?ed)?|call(?:ed)? off|withdr[ea]w|turned down|"
                           r"postponed|drifted apart|broke up|quit|replaced|traded|scratch that)\b")
# what the person does these days, said as they say it: "We do our grocery shopping at Aldi these
# days" (not "I can't believe how expensive coffee is these days", "These days my mum is in Lisbon")
_MY_WAY_NOW = re.compile(r"(?:^|[.!?]\s+)(?:(?:these days|nowadays),?\s+)?(?:i|we)(?:['’]re|['’]m| are| am)?\s+"
                         r"(?!(?:can|can't|cannot|don't|didn't|never|swear|wonder|think|feel|guess|bet|believe|doubt|"
                         r"hope|wish)\b)"
                         r"[^.!?]*\b(?:these days|nowadays)\b")
# a habit's one occasion: "…this week", "…tomorrow", "…because of the bank holiday"
ONE_OFF = re.compile(r"\b(?:this (?:morning|afternoon|evening|week|weekend|time|once)|just (?:this|for)|tomorrow|tonight|"
                     r"today|because of the (?:bank )?holiday)\b")
# how much, not what: "We're walking the dog a lot less these days"
_DEGREE = re.compile(r"\b(?:less|more|fewer)\b")


def _my_way_now(old: str, lowered: str) -> bool:
    """The person's way these days, where the older was theirs too (not "I'm at the gym most
    evenings these days" after "Ana goes to the gym in the mornings")."""
    return bool(_MY_WAY_NOW.search(lowered)) and bool(FIRST_PERSON.search(old)) and not _DEGREE.search(lowered)


# what opens a message that changes a plan, before what it changes to (whose.py reads past it too)
PLANS_OPENER = r"^\s*(?:change of plans?|on second thought|scratch that|actually)\s*[,:;.!-]*\s*"
# a plan said to have changed, opening the message, then the thing or the person doing what the
# older says: "Change of plans, Christmas will be in Salzburg", "On second thought, we'll spend
# Christmas in Salzburg" (not "Ana wants a change of plans", "On second thought, I'll skip yoga
# tonight", "Change of plans for dinner with the neighbours")
_PLANS_CHANGED = re.compile(PLANS_OPENER + r"(?P<rest>[^.!?]*)")
_DOER = re.compile(r"(?:i|we)(?:['’]ll| will|['’]re| are|['’]m| am)?\s+(?P<verb>[a-z]+)|(?:the\s+)?(?P<thing>[a-z]+)\s+"
                   r"(?:will|is|are|was|moved|moves|goes|has)\b")
# (another thing of the name keeps its day: "…the demo is on Thursday for sales; the client demo stays on Wednesday")
STAYS = re.compile(r"\b(?:stays|remains|stay|remain)\s+(?:on|at|in)\b")


def _plans_changed(old: str, lowered: str, asked: frozenset[str]) -> bool:
    said = _PLANS_CHANGED.match(lowered)
    doer = _DOER.match(said["rest"]) if said and not ONE_OFF.search(said["rest"]) and not STAYS.search(said["rest"]) \
        else None
    if doer is None:
        return False
    if doer["verb"]:
        return textutil.stem(doer["verb"]) in textutil.terms(old)
    return textutil.stem(doer["thing"]) in asked


# a statement that adds to the older one, or tells of the past, changes nothing
# ("too" as "also" ends a clause: "I got a Kobo too, for…", not "every two weeks was too much")
_ADDS = re.compile(r"\b(?:also|too(?=\s*(?:[,.;:!?]|$)|\s+(?:for|to|in|on|at|with|and|but|so|as|because|now|then)\b)|"
                   r"as well|another|in addition|besides|used to|back in|when i was)\b")
_NOT_YET = re.compile(r"\b(?:might|may|maybe|thinking (?:about|of)|considering|if|should|would|could|joke)\b")
_THE_PERSONS = re.compile(r"^\W*(?:i|we|my|our|i['’]m|we['’]re|i['’]ve|we['’]ve|i['’]ll|we['’]ll)\b", re.I)
# a time the statement opens with, before whom it is about: "Now my sister…", "These days Tom's…"
_OPENING_TIME = r"^\W*(?:(?i:now|these days|nowadays|lately|recently|today|this (?:week|month|year))\b,?\s+)?"
_POSSESSED = re.compile(_OPENING_TIME + r"(?:([A-Z][\w-]*['’]s)|his|her|their)\s+\w+")
# another thing carried somewhere: "We moved the design files from Slack to Figma"
_MOVED_A_THING = re.compile(r"\b(?:moved|switched|changed|swapped|migrated)\s+(?:the|our|my|all)\s+((?:[\w-]+\s+){1,3}?)"
                            r"(?:from|to|over|into)\b")
_NOW = re.compile(r"\bnow\b")
# "I haven't changed my mind", "we didn't cancel": no change
_DENIED = re.compile(r"\b(?:haven['’]t|have not|hasn['’]t|didn['’]t|did not|don['’]t|do not|never|not)\s+(?:\w+\s+)?"
                     r"(?:changed|switched|moved|cancel\w*|quit|replaced)\b")
# a commitment told in the past tense is still a state ("I signed up for the marathon"); another
# past verb tells of one occasion, which a later "now" does not undo
_COMMITTED = re.compile(r"\b(?:decided|chose|agreed|planned|settled on|picked|booked|signed up|registered)\b", re.I)
# a participle that says how a thing is, not what was done, when it says how often: "The recycling
# is collected on Wednesdays" (not "The parcel is delivered, it's with my neighbour")
_STATE = re.compile(r"\b(?:is|are|am)\s+(?:\w+ly\s+)?\w+ed\b", re.I)
_HABIT = re.compile(r"\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days|weekends|evenings|mornings|nights|every|each|"
                    r"daily|weekly|monthly|usually|always|twice|once a)\b", re.I)
# a time, not a change ("from now on" is one)
_NOT_A_CHANGE = re.compile(r"\b(?:from|for|until|till|by|up to|right|as of|just) now\b(?! on\b)")
_SAME = re.compile(r"\b(?:the same|still|as usual|unchanged|as always)\b")
# people of the person's, who have things of their own (value_changes reads them too)
KIN = ("sister|brother|mom|mum|dad|mother|father|wife|husband|son|daughter|partner|girlfriend|boyfriend|friend|"
       "kids?|child|children|parents|roommate|flatmate|colleague|neighbou?r")
# one of them as the subject: "My daughter now weighs 18 kg"
_KINS = re.compile(rf"{_OPENING_TIME}(?:my|our)\s+(?:\w+\s+)?(?:{KIN}|boss|manager|cousin|aunt|uncle)s?\b", re.I)
# one of them changing the person's thing: "My boss moved the deadline to June 15"
_CHANGES_A_THING = re.compile(_OPENING_TIME + r"(?:my|our)\s+(?:\w+\s+)?\w+(?:['’]s\s+\w+)?\s+(?:has\s+|just\s+)?(?:\w+ed|set|cut|put)\s+"
                              r"(?:the|my|our)\b", re.I)
FIRST_PERSON = re.compile(r"\b(?:I|we|my|our|me|us)\b", re.I)
_TELLS = re.compile(r"\s+(?:says|said|told me|tells me|thinks|reminded me)\b", re.I)
ASKED_SHARE = 0.6         # the question's words the older statement holds
NEWER_SHARE = 0.4         # and the newer one


def changed_in_words(old: str, new: str, asked: frozenset[str]) -> bool:
    """Does the newer statement give another value of what the question asks, in words?"""
    if not asked:
        return False
    old, new = as_said(old), as_said(new)
    lowered = _NOT_A_CHANGE.sub(" ", new.lower())
    if textutil.numbers(old) and not _SAYS_CHANGED.search(_NOW.sub(" ", lowered)):
        # a number and only a "now": the number's own rules read it ("3 kids now" is no dog, and
        # "Now both cats sleep on my bed" no other count of cats)
        return False
    if not (_SAYS_CHANGED.search(lowered) or _plans_changed(old, lowered, asked) or _my_way_now(old, lowered)) \
            or _ADDS.search(lowered) or _NOT_YET.search(lowered) or \
            _SAME.search(lowered) or _DENIED.search(lowered):
        return False
    habit = _HABIT.search(old) is not None
    if habit and ONE_OFF.search(lowered):
        return False   # "Bin collection moved to Thursday this week because of the bank holiday"
    if says_what_was_done(_STATE.sub(" ", old) if habit else old) and not _COMMITTED.search(old):
        return False   # "I went to a support group yesterday": an occasion, not a value
    if someone_elses(old, new):
        return False   # "My sister now has 3 cats", "Leo's best friend moved…": theirs
    was_terms, now_terms = textutil.terms(old), textutil.terms(new)
    # (two capitals alone are no share of a longer question: "HR now sends the payslips by email"
    # is no other "HR contact")
    held = asked & now_terms
    if len(asked & was_terms) < ASKED_SHARE * len(asked) or len(held) < NEWER_SHARE * len(asked) or \
            len(asked) > 1 and all(len(t) == 2 for t in held):
        return False
    # someone else's: the newer opens with a name where the older opened with none ("We're going to
    # Japan" / "Tom cancelled his trip"); "Tom is my best friend" / "Sam is… now" name the value
    mine, theirs = subjects(old), subjects(new)
    if theirs and not mine and _THE_PERSONS.match(old):
        return False
    if _another_of_its_kind(old.lower(), lowered, asked) or _a_part_of(old.lower(), lowered, asked) or \
            _named_otherwise(old, new, asked):
        return False
    moved = _MOVED_A_THING.search(lowered)
    if moved and not textutil.terms(moved.group(1)) & asked:
        return False
    change_words = {textutil.stem(w) for w in textutil.content_words(" ".join(_SAYS_CHANGED.findall(lowered)))}
    # a value of its own: a word the older does not say, beyond the question's and the change's
    return bool(now_terms - was_terms - asked - change_words)


_DETERMINERS = frozenset({"my", "our", "the", "a", "an"})


def someone_elses(old: str, new: str) -> bool:
    """Is the newer about a thing of someone else's where the older is about the person's? It
    opens with one of their people ("My neighbour switched to the 8:05 train", "My sister now has
    3 cats"), not one of them changing the person's thing ("My boss moved the deadline to June
    15"), or with a thing of a name's ("Leo's best friend moved…"); and does not go on to say it of
    the person ("Our third child was born, so now we have three kids")."""
    kin = _KINS.match(new)
    if kin and not _KINS.match(old):
        # "My flatmate moved out, so my rent went up", "My partner says the budget is 500 now"
        return not _CHANGES_A_THING.match(new) and not FIRST_PERSON.search(new[kin.end():]) and \
            not _TELLS.match(new[kin.end():])
    owner = _POSSESSED.match(new)
    if not owner or _POSSESSED.match(old):
        return False
    # "Tom's wife had a baby, so Tom now has three kids" after "Tom has two kids": the newer goes on
    # to say it of Tom himself (not "Leo's best friend moved…" after "Leo goes to school at…")
    name = owner.group(1)
    return not (name and re.search(r"\b" + re.escape(name[:-2]) + r"\b(?!['’]s)", new[owner.end():])
                and re.search(r"\b" + re.escape(name[:-2]) + r"\b", old))


def _another_of_its_kind(old: str, new: str, asked: frozenset[str]) -> bool:
    """The newer names another thing of the kind asked about: "the design team has 8 people now"
    after "my team has 5 engineers", "the analytics project" after "the logs project"."""
    def qualifiers(text: str) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for m in re.finditer(r"\b(my|our|the|a|an)\s+(?:([a-z]+)\s+)?([a-z]+)\b", text):
            word = textutil.stem(m.group(3))
            if word in asked:
                qualifier = m.group(2) if m.group(2) and textutil.content_words(m.group(2)) else m.group(1)
                found.setdefault(word, set()).add(qualifier)
        return found
    # a word before the thing says which one ("my dentist appointment" is not "my hair appointment");
    # "the Montessori school" / "the public school" read so too: missing a change beats inventing one
    was, now = qualifiers(old), qualifiers(new)
    return any(not now[w] & was[w] and now[w] - _DETERMINERS and (was[w] - _DETERMINERS or was[w] & {"my", "our"})
               for w in was.keys() & now.keys())


# (or opening a clause: "On second thought, Christmas dinner will be at my mum's")
_PART = re.compile(r"(?:\b(?:the|my|our|a|an)\s+|(?:^|[,:;]\s*))(?:[a-z]+\s+)?([a-z]+)\s+([a-z]+)"
                   r"(?=\s*[:,.;]|\s+(?:will|is|was|has|are|needs|got)\b)")
_OWNED = re.compile(r"\b([a-z]+)['’]s\s+(?:[a-z]+\s+)?([a-z]+)")


# words that name the thing itself, not a part of it: "Pottery class is on Thursdays now"
_THE_THING_ITSELF = frozenset("class classes lesson lessons session sessions course courses practice training".split())


def _a_part_of(old: str, new: str, asked: frozenset[str]) -> bool:
    """The newer is about a part or a side of the thing the older is not: "the shed door: it will
    slide" or "the shed's cedar roof" after "the garden shed"."""
    for pattern in (_PART, _OWNED):
        for m in pattern.finditer(new):
            thing, part = textutil.stem(m.group(1)), m.group(2)
            if thing in asked and part not in old and textutil.content_words(part) and part not in _THE_THING_ITSELF and \
                    not _SAYS_CHANGED.fullmatch(part) and textutil.stem(part) not in asked:
                return True
    return False


# a name after the thing says which one: "my meeting with Tom" is not "my meeting with Ana"
_WITH_NAME = re.compile(r"\b([a-z]+)\s+(?:with|for|of|at)\s+([A-Z][\w'’-]*)")


def _named_otherwise(old: str, new: str, asked: frozenset[str]) -> bool:
    def named(text: str) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for m in _WITH_NAME.finditer(text):
            if textutil.stem(m.group(1)) in asked:
                found.setdefault(textutil.stem(m.group(1)), set()).add(m.group(2))
        return found
    was, now = named(old), named(new)
    return any(not was[w] & now[w] for w in was.keys() & now.keys())


def restated(old: str, new: str, asked: frozenset[str]) -> bool:
    """Does the newer statement give the thing the question asks about another value, though no
    rule reads a change ("I start work at 9 am" / "I'm starting work at 8 am these days")? Then
    neither is history, as braniac cannot tell that one replaced the other, but the newer comes
    first: what a person says later about one thing is more often how it stands now. Not a maybe
    ("I'm considering going up to 5 mg"), an addition, or someone else's ("My neighbour…")."""
    old, new = as_said(old), as_said(new)
    was_terms, now_terms = textutil.terms(old), textutil.terms(new)
    shared = was_terms & now_terms & asked
    # both about what is asked, alike: they hold most of the question's words either holds
    if not shared or 2 * len(shared) < len((was_terms | now_terms) & asked) or \
            2 * len(was_terms & now_terms) < min(len(was_terms), len(now_terms)):
        return False
    # the newer opens with the thing the older spoke of: "The office wifi is called Corp-Guest" is
    # another wifi than "Our wifi at home…", "The cafe in the museum opens at 8" another place
    opening = next(iter(textutil.content_words(new)), "")
    if not was_terms & asked <= now_terms or textutil.stem(opening) not in was_terms:
        return False
    lowered = new.lower()
    if _ADDS.search(lowered) or _NOT_YET.search(lowered) or _SAME.search(lowered) or subjects(old) != subjects(new):
        return False
    if says_what_was_done(new):
        return False   # one occasion ("bedtime was 10 pm last night", "ran 12 km for the race") is no new habit
    if _another_of_its_kind(old.lower(), lowered, asked) or _named_otherwise(old, new, asked):
        return False
    if someone_elses(old, new):
        return False
    was, now = textutil.values(old), textutil.values(new)
    return bool(was - now) and bool(now - was)
