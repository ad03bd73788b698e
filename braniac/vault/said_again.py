"""A value of the person's said again with no word of change: "My rent is 1,100 a month", then
weeks later "My rent is 1,125." The newer states what the thing is now, so it replaces the
older. Read strictly, since nothing but the two sentences' shape says it changed: the sentence
opens with the person's thing (or, for the older, the thing itself: "Rent went up to 1,150"),
the value comes right after "is" in the same unit, and nothing follows the newer's but a period
of the amount ("a month") or "now". Anything else before or after says under which
circumstance, for whom or when ("On Fridays my commute is 20 minutes", "My rent is 1,250 from
next year", "My daughter is 125 cm"), which is another value of another thing, not a change."""
from __future__ import annotations

import re

from ..infra import textutil

_VALUE = r"(?P<value>\d[\d,.:]*)(?P<tail>[^.!?;]*)"
# the person's thing at the start of a sentence; what made it so may lead it ("Got a raise, so my
# salary is…", "Since the new metro line opened my commute is…", "Sorry, typo earlier: my rent
# is…"), not a circumstance ("On Fridays my commute is…", "After dinner my glucose is…", "Once
# the line opens, my commute is…")
_MINE_IS = re.compile(r"(?:^|[.!?]\s+|,?\s+so\s+|^since\s+(?:[a-z]+\s+){1,5}?[a-z]+ed,?\s+|"
                      r"^(?:sorry,?\s+)?(?:typo|correction|i meant)(?:\s+earlier)?\s*[:,]\s+)"
                      r"(?:my|our)\s+(?P<thing>(?:[a-z]+\s+){0,2}?[a-z]+)\s+(?:is|are|takes|costs)\s+(?:(?:now|only|about|around|roughly|just|currently)\s+){0,2}" + _VALUE)
# the thing itself opening the older statement with its value: "Rent went up to 1,150"
_THE_THING_IS = re.compile(r"^(?:the\s+)?(?P<thing>[a-z]+)\s+(?:is|are|costs?|went\s+(?:up|down)\s+to|rose\s+to|"
                           r"fell\s+to|(?:increased|decreased|dropped|climbed)\s+to)\s+(?:now\s+)?" + _VALUE)
# a maybe, a trial or a while, anywhere in the message: "…if we take it", "…as a test. Not sure I'd
# take the offer", "Roaming in Spain all of March… Back to normal in April"
_MAYBE = re.compile(r"\b(?:if|would|might|could|maybe|perhaps|whether|considering|thinking of|not sure|as a test|trial|"
                    r"back to normal|for now|temporar\w*|all of (?:january|february|march|april|may|june|july|august|"
                    r"september|october|november|december))\b")
# what may follow the value: its unit, a period of the amount, "now"
_PERIOD = re.compile(r"\b(?:a|an|per|each|every)\s+(?P<period>day|week|month|year|night)\b|\b(?:now|these days|nowadays)\b")


def mine_said_again(old: str, new: str, asked: frozenset[str]) -> bool:
    """Does the newer say what the person's thing of the question (its last word one of `asked`)
    is, as the older did, with another value in the same unit? See the module's docstring."""
    if "?" in new or _MAYBE.search(new.lower()):
        return False   # "Our rent is 1,450 a month. That's the flat we saw today, if we take it."
    was = {}
    for match in (*_MINE_IS.finditer(old.lower()), *_THE_THING_IS.finditer(old.lower())):
        said = _said(match, strict=False)
        if said:
            was[said[0]] = said[1:]
    for match in _MINE_IS.finditer(new.lower()):
        said = _said(match, strict=True)
        # the whole thing, not its last word ("my goal weight" is not "my weight")
        if said and said[0][-1] in asked and said[0] in was:
            value, unit, period = said[1:]
            was_value, was_unit, was_period = was[said[0]]
            # (a year's amount is no other value of a month's: "1,100 a month" / "13,200 a year")
            if value != was_value and unit == was_unit and (period == was_period or not (period and was_period)):
                return True
    return False


def _said(match: re.Match, strict: bool) -> tuple[tuple[str, ...], str, str, str] | None:
    """(the thing's stemmed words, the value, its unit, its period: "month") of a statement; for
    the newer (`strict`), only when nothing but its unit, a period or "now" follows the value.
    The older may go on ("My commute takes about 40 minutes by bus"): the newer says what it is now."""
    words = _PERIOD.sub(" ", match["tail"]).split()
    if strict and len(words) > 1:
        return None   # "…by bike", "…from next year", "…after dinner"
    period = next((m["period"] for m in _PERIOD.finditer(match["tail"]) if m["period"]), "")
    return tuple(textutil.stem(w) for w in match["thing"].split()), match["value"].rstrip(".,"), \
        textutil.stem(words[0]) if words else "", period
