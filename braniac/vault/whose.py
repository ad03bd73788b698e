"""Whose thing, and which, a statement is about, when a question names it in one word ("Rent?",
"When is my flight?", "How much is Netflix?"): the person's own ("my rent", "I take 10 mg of
lisinopril"), the thing itself as the subject ("Netflix went up to 13.49"), or someone else's
("Tom's rent", "the rent for Ana"). Read by value_changes.py before it compares two values."""
from __future__ import annotations

import re

from ..infra import textutil
from ..infra.relative_times import CALENDAR_WORDS
from .change_verbs import CHANGE_VERB_WORDS, CHANGING
from .word_changes import KIN, PLANS_OPENER


# "my rent is", "my flight to Rome", "my rent, it is": the person's own thing, as the subject
_MINE = re.compile(r"\b(?:my|our)\s+(?:[a-z]+\s+)??([a-z]+)(?=\s*[,.;:!?]|\s*$|\s+(?:is|was|has|had|went|got|costs?|"
                   r"to|from|for|on|in|at|with|now|moved|changed|goes|will)\b)")
# what the person decided to do with a thing is theirs: "We decided to hold the standup at 9:30"
_DECIDED = re.compile(r"\b(?:i|we)\s+(?:decided|agreed|chose|planned)\s+to\s+[a-z]+\s+(?:the|our|my)\s+([a-z]+)\b")
# what the person takes, pays, uses, saves, has or owns is theirs too: "I take 10 mg of lisinopril
# every morning", "I'm saving 300 euros a month", "we have 2 cats", "I've got three kids"
_I_TAKE = r"\b(?:i|we)(?:'m|’m| am|'re|’re| are|'ve|’ve| have)?\s+(?:got\s+)?(?:tak|pay|us|drink|earn|spend|sav|hav|own|got)" \
          r"\w*\s+(?:[\w.,]+\s+){{0,4}}?{w}\w*\b"
_SAVING = re.compile(r"\bi(?:'m|’m| am)?\s+(?:sav|earn|spend|pay)\w*\b")   # the amount itself is the thing
# the thing said to be someone else's: "Tom's rent", "her rent", "the rent for Ana", "the rent
# of his flat" (not "the rent for the flat", which may well be mine)
_ANOTHERS = r"(?:(?:\w+['’]s|his|her|their)\s+(?:[a-z]+\s+)??{w}\w*\b|" \
            r"(?:\w+['’]s|his|her|their)\s+[a-z]+\s+" + CHANGING + r"\s+(?:the\s+)?{w}\w*\b|" \
            r"\b{w}\w*\s+(?:on|for|of|at|in)\s+(?:(?:his|her|their)\b|(?!(?:" + "|".join(sorted(CALENDAR_WORDS)) + \
            r")\b)(?-i:[A-Z])\w*(?:['’]s)?\b))"


def another_of_mine(old: str, new: str, asked: frozenset[str]) -> bool:
    """Does the older say a thing of the question is the person's own ("My rent is 900 euros")
    and the newer, not saying so, name it as someone else's ("Tom's rent is now 700", "Ana's gym
    membership now costs 30")?"""
    lowered_old, lowered_new = old.lower(), new.lower()
    for word in asked:
        if _mine(lowered_old, word) and not _mine(lowered_new, word) and \
                re.search(_ANOTHERS.format(w=re.escape(word)), new, re.I):
            return True
    return False


def _mine(lowered: str, word: str) -> bool:
    return any(textutil.stem(m.group(1)) == word for m in _MINE.finditer(lowered)) or \
        any(textutil.stem(m.group(1)) == word for m in _DECIDED.finditer(lowered)) or \
        re.search(_I_TAKE.format(w=re.escape(word.rstrip("e"))), lowered) is not None \
        or bool(_SAVING.search(lowered)) and textutil.stem(word) in {"save", "earn", "spend", "pay"}


# words that say how or when a thing of the person's is, not which thing it is: "my new rent",
# "my monthly rent", "my current flight", and the home a rent is for ("my house rent"); any
# other word before it says which one ("my dentist appointment", "my garage rent")
_DESCRIBING = frozenset("""new old own base net gross full next last first latest monthly weekly yearly annual
current total actual usual regular normal updated revised rescheduled original house apartment flat home""".split())


def _named_by(lowered: str, word: str) -> set[str]:
    """The words before the person's thing that name which one it is ("garage" in "my garage
    rent", "work" in "my work laptop"), leaving out those that only describe it."""
    return {m.group(1) for m in re.finditer(r"\bmy\s+([a-z]+)\s+([a-z]+)", lowered)
            if textutil.stem(m.group(2)) == word and m.group(1) not in _DESCRIBING
            and m.group(1) not in textutil.STOP_WORDS}


# the thing with no one's name on it, changed by someone who serves the person: "My landlord raised
# the rent to 950" (not "Tom's landlord raised the rent", "my landlord raised the rent for new
# tenants to 950", "my company raised the salary band", "my sister moved the appointment")
_MY_AGENT = re.compile(rf"\bmy\s+(?!(?:{KIN})\b)[a-z]+\s+{CHANGING}"
                       r"\s+(?:the\s+|our\s+)?([a-z]+)(?=\s+(?:to|by|again|up|down)\b|\s*[,.;!?]|\s*$)")


def _changed_by_someone_of_mine(lowered: str, word: str) -> bool:
    return any(textutil.stem(m.group(1)) == word for m in _MY_AGENT.finditer(lowered))


def both_mine(old: str, new: str, word: str) -> bool:
    """With a question of one word ("Rent?", "When is my flight?") nothing else tells whose or
    which the thing is, so both statements must say it is the person's own ("my rent is…", "the
    landlord raised my rent") or open with the thing itself (_SUBJECT), or the newer has someone
    of the person's change it ("my landlord raised the rent"), and the newer name no one the
    older does not ("my meeting with Ana" is not the one with Tom): "The salary for the new
    hire", "the flight back", "my phone battery" are other things."""
    lowered_old, lowered_new = old.lower(), new.lower()
    mine_old, mine_new = _mine(lowered_old, word), _mine(lowered_new, word)
    if not ((mine_old or _opens_with(lowered_old, word))
            and (mine_new or _changed_by_someone_of_mine(lowered_new, word) or _opens_with(lowered_new, word))):
        return False
    if not (mine_old and mine_new) and \
            (_QUALIFIED.search(lowered_new) or bool(_A_TIME.search(lowered_old)) != bool(_A_TIME.search(lowered_new))):
        return False   # "Netflix went up to 15.49 for the premium plan", "Daycare now closes at 6"
    named_old, named_new = _named_by(lowered_old, word), _named_by(lowered_new, word)
    if named_old and named_new and not named_old & named_new:
        # "my hair appointment" is not "my dentist appointment"; but "my appointment" and "my
        # dentist appointment", "my flight" and "my Ryanair flight" are one thing said short or long
        return False
    names_old, names_new = (frozenset(textutil.entities(t)) for t in (old, new))
    # who made the change is no other thing: "Ryanair moved my flight to June 5" (not "my meeting
    # with Ana moved to 5pm", where the name says which meeting)
    names_new = frozenset(n for n in names_new if not re.search(
        rf"(?<!with )(?<!to )(?<!for )(?<!of )(?<!and )\b{re.escape(n)}\s+{CHANGING}\b",
        new))
    return not (names_new and names_old - names_new)


# the thing itself, saying what it is or does: "Netflix went up to 13.49", "Daycare fees went up",
# "The launch slipped to June 15" (not "Office rent is…", "The salary for the new hire is…")
_SUBJECT = re.compile(rf"^\s*(?:the\s+)?([a-z][\w+-]*)(?:\s+(?:fees?|prices?|costs?|bill|dose))?"
                      rf"(?=\s+(?:(?:is|was|has|had|went|got|costs?|now|goes|will)\b|(?:{CHANGE_VERB_WORDS})\b))")


_QUALIFIED = re.compile(r"\b(?:for|at)\s+(?:my|his|her|their|new|the|a|an)\b|\bbut\b|\bper\s+(?!(?:month|year|week|day)\b)")
_A_TIME = re.compile(r"\b(?:at|until|till|from)\s+\d|\d\s*(?:am|pm)\b|\d:\d\d")


# what opens a change of plans, before the thing: "Change of plans: the standup is at 10 from now on"
_PLANS_OPENER = re.compile(PLANS_OPENER)


def _opens_with(lowered: str, word: str) -> bool:
    match = _SUBJECT.match(_PLANS_OPENER.sub("", lowered))
    return match is not None and textutil.stem(match.group(1)) == word
