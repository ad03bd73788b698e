"""Key Facts & Decisions that changed: "We decided to go with the blue tiles for the bathroom",
then "Scrap the blue tiles, we're doing white tiles in the bathroom". The list in short-term
memory is what `orient` shows as the person's decisions, and what promotion records in the
day's digest; left as it was, it would go on stating the decision taken back. The item is
rewritten as what stands now, with what it replaced and until when:

    - Scrap the blue tiles, we're doing white tiles in the bathroom (was: go with the blue tiles for the bathroom until 2025-03-20)

Nothing is lost (the older words stay in the item), and a third change keeps the whole chain.
Which statement replaces which item is read by the same rules as retrieval's
(`value_changes.replaces_claim`), so the list and an answer agree.
"""
from __future__ import annotations

import re
from datetime import datetime

from ..infra import textutil
from .reversals import FOR_A_WHILE, said_taken_back, says_taken_back
from .value_changes import replaces_claim
from .word_changes import FIRST_PERSON, ONE_OFF, STAYS

_HISTORY = re.compile(r"\s+\(was: (?P<was>.+)\)\s*$")
MAX_MESSAGE_WORDS = 80    # a longer message is pasted text (an update, notes), not a decision changed
MAX_ITEM_CHARS = 200      # a new item's own words, as reflection keeps a key fact's
# "Hi!", "Morning all.": a greeting before a sentence still lets it open the message (not "Priya's
# update.", "From marketing.": whose words follow)
_GREETING = re.compile(r"(?i)(?:hi|hello|hey|yo|ok|okay|so|right|morning|good (?:morning|afternoon|evening)|quick update)"
                       r"(?:\s+(?:all|everyone|team|there|folks))?\W*")


def current(item: str) -> str:
    """What an item states now, without the history braniac appended to it."""
    return _HISTORY.sub("", item)


def replaced(items: dict[str, str], statements: list[str]) -> list[tuple[str, str]]:
    """(item, statement) for each item that one of the person's `statements` (sentences that ask
    nothing) replaces: the same thing with another value, or a decision taken back. `items` maps
    each item to the sentence that stated it, when short-term memory still holds it: an item is
    a clause ("use cedar boards, not pine") that may have left its thing behind ("For the garden
    shed I decided to…"). An item is never replaced by its own words said again."""
    if not items or sum(len(textutil.words(s)) for s in statements) > MAX_MESSAGE_WORDS:
        return []
    sentences = [s.strip().rstrip(".!").strip() for s in statements]
    # (a greeting before it does not stop a sentence from opening the message: "Hi! Scratch that, …")
    opens = [all(_GREETING.fullmatch(s.strip()) for s in sentences[:i]) for i in range(len(sentences))]
    found = []
    for item, stated_in in items.items():
        now = current(item)
        for i, sentence in enumerate(sentences):
            if now.lower() in sentence.lower():
                break   # said again ("We decided to X" restated): the item stands
            if any(_replaces(old, sentence, opens=opens[i]) for old in dict.fromkeys((now, stated_in)) if old):
                found.append((item, sentence))
                break
    return found


def _replaces(old: str, new: str, *, opens: bool) -> bool:
    """A claim replaced (value_changes.replaces_claim), or a decision taken back in words that
    name its thing and the value given up ("I changed my mind: the shed will be built from
    larch, cedar is too expensive"), which the two statements share: by the person, or as what
    their message `opens` with (not a line of a team's update they pasted); retrieval reads the
    thing in the question instead."""
    the_persons = opens or FIRST_PERSON.search(new) is not None
    if not the_persons and says_taken_back(new):
        return False   # "…the team's update: On second thought, the migration can wait until fall"
    lowered = new.lower()
    if ONE_OFF.search(lowered) or FOR_A_WHILE.search(lowered) or STAYS.search(lowered):
        return False   # "…going to Porto tomorrow instead of Braga", "Quit Netflix for Lent", "…the client demo stays on Wednesday"
    shared = textutil.terms(old) & textutil.terms(new)
    return replaces_claim(old, new) or the_persons and \
        any(said_taken_back(old, new, frozenset({thing})) for thing in shared)


def changed(item: str, sentence: str, at: datetime) -> str:
    """The item as it stands after `sentence` replaced it on the day of `at`."""
    now, history = current(item), _HISTORY.search(item)
    was = f"{now} until {at.date().isoformat()}" + (f"; {history['was']}" if history else "")
    new = " ".join(sentence.split()).strip(" ,;:")
    if len(new) > MAX_ITEM_CHARS:
        new = new[: MAX_ITEM_CHARS - 1].rstrip() + "…"
    return f"{new} (was: {was})"

