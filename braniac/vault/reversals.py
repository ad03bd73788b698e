"""A statement that takes an earlier one back: "Actually I changed my mind: the shed will be
built from larch, cedar is too expensive" after "For the garden shed I decided to use cedar
boards"; a thing parted with is parting.py's. No number changes, so
`claims.compare` sees two claims; the person sees one decision replaced, one thing they no
longer have. Retrieval (search/currency.py) ranks the newer one first and labels the older as
history; the offline answer quotes them in that order.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ..infra import textutil
from ..infra.relative_times import CALENDAR_WORDS
from .word_changes import ONE_OFF

# Words by which a person takes back what they said or decided before, in a sentence that asks
# nothing ("should I change my mind?" takes nothing back); "no longer" only of the person ("the
# roof no longer leaks" takes nothing back). Not "instead", "rather than" or
# "switched to": in a long message about code ("use flex instead of grid") or a preference ("a
# UK style rather than a US one") they take nothing back (BEAM dev, with them: -0.7 / -0.6 at
# 300 / 750 words; only in statements of 40 words or fewer: -0.4 at 300), except after a word
# of choosing and before the value given up (_CHOSEN_INSTEAD).
_TAKEN_BACK = re.compile(r"\b(?:changed? (?:my|our) minds?|change of plans?|on second thought|scratch that|"
                         r"decided against|(?:have|'ve) decided not to"
                         r"|(?:i|we)(?:'m|'re| am| are)? (?:no longer|not (?:\w+ ){1,3}any ?more))\b")
# a switch, which takes back what it leaves when the older statement named that, and the thing
# switched if one is named ("we switched from Postgres to ClickHouse" / "we decided to use
# Postgres"): not a trip ("went from Lisbon to Porto"), nor another thing moved ("changed my
# flight from Monday to Tuesday", "moved the design files from Slack to Figma")
_SWITCH = re.compile(r"\b(?:switched|migrated|moved|changed|renamed) (?P<what>(?:[\w'-]+ ){0,3}?)from "
                     r"(?P<left>(?:[\w.+#'-]+ ){1,3}?)to\b")
# the person stopping what they did: "I stopped eating fish", "we quit smoking", "I gave up coffee",
# "I cancelled the gym membership", "Cancelled Spotify" (no one said, at the start of a sentence),
# "I closed my ING account"
_STOPPED = re.compile(r"(?:\b(?:i|we)\s+(?:(?:just|finally|have|'ve|recently)\s+)?(?:stopped|quit|gave up|cancell?ed|ended)"
                      r"|(?:^\s*|(?<=[.!?]\s))(?:just\s+|finally\s+)?(?:stopped|quit|cancell?ed))"
                      r"\s+(?:(?:the|my|our)\s+)?(\w+ing|\w+)\b"
                      r"|\b(?:i|we)\s+(?:just\s+|finally\s+)?closed\s+(?:my|our)\s+(\w+)\s+account\b")
# what makes a cancelling one occasion, not a stop, said right after it: "Cancelled the cinema
# tonight, Leo has a fever", "…on Monday" (word_changes.ONE_OFF, and one day)
_ON_A_DAY = re.compile(r"\bon (?:mon|tues|wednes|thurs|fri|satur|sun)day\b")


def _one_occasion(after: str) -> bool:
    said = re.split(r"[.;!?]", after, maxsplit=1)[0][:40]
    return bool(ONE_OFF.search(said) or _ON_A_DAY.search(said))
_ONESELF = re.compile(r"\b(?:i|we)\b", re.I)   # what the older says the person does
FOR_A_WHILE = re.compile(r"\b(?:for (?:lent|now|a while|a bit|the (?:month|summer|winter|week|weekend|holidays|trip))|"
                         r"temporarily|until|"
                         r"(?:be|get|go|come) back|again (?:in|at|after))\b", re.I)
# what says the taking back did not happen: "I haven't changed my mind", "I might change my mind"
_NOT_DONE = re.compile(r"n't\b|\b(?:not|never|might|may|could|would|should|if|whether|maybe|perhaps)\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# a switch or a stop told as long past ("back in 2019", "years ago", "when I was a student"); a
# year counts here, unlike for where one lives (relations: "we moved to Porto in 2023" is home)
_LONG_AGO = re.compile(r"\b(?:back in|in (?:19|20)\d\d|years ago|when (?:i|we) (?:was|were)|as a (?:kid|child|student|teen))\b",
                       re.I)
# the words of taking back, never the value given up
TAKING_BACK_WORDS = frozenset(textutil.stem(w) for w in "changed change mind minds plan plans decided instead "
                               "longer switched switching switch".split())


def takes_back(old: str, new: str, about: frozenset[str]) -> bool:
    """Does `new` take `old` back? It says so ("I changed my mind", "no longer"), both name a
    thing of `about` (the question's stemmed words), and `new` names a word of `old` besides
    those: the value given up ("cedar is too expensive"). Without that word it may be another
    side of the thing (the shed's door, not its wood), which stays current. Or it says the
    person stopped doing what `old` says they do ("I stopped eating fish" / "I still eat fish
    sometimes", "I quit smoking" / "I smoke a pack a day"), of which the question asks."""
    if not about:
        return False
    before, after = textutil.terms(old), textutil.terms(new)
    stopped = _stopped_doing(new, before) & before
    # not one of two named things ("I closed my Revolut account" after "I bank with ING and use
    # Revolut when I travel"), nor for a while ("Quit Netflix for Lent, we'll be back at Easter")
    if stopped and about & before and (_ONESELF.search(old) or _owned(old, stopped)) and \
            not (stopped & textutil.terms(" ".join(textutil.entities(new))) and _named_besides(old, stopped) - about) and \
            not FOR_A_WHILE.search(new):
        return True
    given_up = before - about - TAKING_BACK_WORDS
    if about & before & after and (_rejected(new, before) | _chosen_instead(new)) & given_up:
        return True   # "The retro is monthly now, every two weeks was too much"
    return said_taken_back(old, new, about)


def _named_besides(old: str, stopped: set[str]) -> set[str]:
    """The stemmed words of the names `old` gives besides the thing stopped."""
    return {textutil.stem(w.lower()) for name in textutil.entities(old) for w in name.split()} - stopped


def said_taken_back(old: str, new: str, about: frozenset[str]) -> bool:
    """Does `new` say it takes `old` back in so many words ("I changed my mind", "no longer", a
    switch from a value `old` names), naming a thing of `about` and a word of `old` besides?"""
    if not (says_taken_back(new) or _switched_from(old, new)):
        return False
    before, after = textutil.terms(old), textutil.terms(new)
    return bool(about & before & after) and bool((before & after) - about - TAKING_BACK_WORDS)


# the value left for another, after a word of choosing: "We're going with Svelte for the frontend
# instead of React" (alone, "instead of" is how code is explained: "use flex instead of grid")
_CHOSEN_INSTEAD = re.compile(r"\b(?:going|go|went) with\b[^.!?]{0,60}?\binstead of (?P<what>(?:[\w'+-]+\s*){1,3})")
# what says a value changed, beside the one given up as too much of something (not "Monday's
# meeting was too long", "Notion was too slow today")
_WORD_OF_CHANGE = re.compile(r"\b(?:now|instead|these days|from now on|actually|switched|changed|moved)\b")


# a value given up for being too much of something, as the reason for the new one: "The retro is
# monthly now, every two weeks was too much", "…we're painting it green, grey felt too cold"
_REJECTED = re.compile(r"(?:^|[,;:]\s*|\b(?:and|but|as|because|since)\s+)(?P<what>(?:[\w'+-]+\s+){0,3}?[\w'+-]+)\s+"
                       r"(?:was|were|felt|seemed|got|turned out)\s+(?:\w+\s+)?too\s+\w+")


def _rejected(text: str, before: frozenset[str]) -> frozenset[str]:
    """The stemmed words of what a statement says was too much of something, when it also says
    the value changed, in so many words or by stating the older statement's frame again with
    another value ("We're painting the living room green, grey felt too cold" / "We're painting
    the living room grey"); not asked, not "if"."""
    lowered = text.lower()
    if lowered.rstrip().endswith("?"):
        return frozenset()
    found: set[str] = set()
    for m in _REJECTED.finditer(lowered):
        if _NOT_DONE.search(" ".join(lowered[:m.start("what")].split()[-3:])):
            continue
        what = textutil.terms(m["what"])
        frame = before - what - textutil.generic_stems() - _WHEN_WORDS
        rest = textutil.terms(lowered[:m.start("what")] + " " + lowered[m.end():])
        another = rest - before - textutil.generic_stems() - _WHEN_WORDS   # the value it has now ("green")
        if _WORD_OF_CHANGE.search(lowered) or frame and frame <= rest and another:
            found |= what
    return frozenset(found)


def _chosen_instead(text: str) -> frozenset[str]:
    lowered = text.lower()
    return frozenset().union(*(textutil.terms(m["what"]) for m in _CHOSEN_INSTEAD.finditer(lowered)
                               if not _NOT_DONE.search(" ".join(lowered[:m.start()].split()[-3:]))))


def _stopped_doing(new: str, before: frozenset[str]) -> set[str]:
    """What `new` says the person stopped doing, when that is the whole of something `before`
    names, told as done and lately ("I stopped eating fish": eat)."""
    if _LONG_AGO.search(new):
        return set()
    lowered = new.lower()
    return {textutil.stem(m.group(1) or m.group(2)) for m in _STOPPED.finditer(lowered)
            if not _NOT_DONE.search(" ".join(lowered[:m.start()].split()[-3:]))
            and not _asked_at(lowered, m.end())   # "Cancelled Spotify? No, I still use it"
            and not ("cancel" in m.group(0) and _one_occasion(lowered[m.end():]))
            and _whole_thing_stopped(lowered[m.end():], before)}


def _asked_at(text: str, at: int) -> bool:
    """Does the sentence around `at` end with a question mark?"""
    ends = [i for i in (text.find(c, at) for c in ".!?") if i >= 0]
    return bool(ends) and text[min(ends)] == "?"


def _owned(old: str, things: set[str]) -> bool:
    """Does `old` say the stopped thing is the person's own ("My gym membership is 35 euros")?"""
    # the word right after "my": "my gym membership" (not "my sister smokes": her habit)
    return bool({textutil.stem(m.group(1).lower()) for m in re.finditer(r"\b(?:my|our)\s+(\w+)", old, re.I)} & things)


# words that say when one stopped (or planned), not what: "I quit smoking last year", "…for good"
_WHEN_WORDS = frozenset(textutil.stem(w) for w in (*CALENDAR_WORDS, "last", "this", "next", "week", "month", "year",
                                                   "ago", "yesterday", "today", "tonight", "tomorrow", "weekend",
                                                   "recently", "good"))
_PART = re.compile(r"\s*(?:(?:with|without|on|during|at|except)\b|(?:after|before) \d)")


def _whole_thing_stopped(rest: str, before: frozenset[str]) -> bool:
    """Does what follows "I stopped" name the whole of what the older statement says the person
    does? "eating fish" stops "I eat fish"; "eating red meat", "eating out", "running with my
    phone", "drinking coffee after 4pm" stop another thing or a part of it."""
    said = re.split(r"[,;:.!?]|\s(?:because|since|after|before|in|for|when|as|so|and|but|on|with|at|during)\b", rest)[0]
    thing = textutil.terms(re.sub(r"\b\d{4}\b", " ", said)) - _WHEN_WORDS
    if not (thing <= before) or said.split() and not textutil.terms(said):   # ("eating out")
        return False
    tail = rest[len(said):]
    return not _PART.match(tail)


def _subject_of(text: str) -> frozenset[str]:
    """The stemmed words a statement opens with, where its subject is ("Tom is my mentor…": tom)."""
    return textutil.terms(" ".join(re.split(r"[,;:.!?]", text, maxsplit=1)[0].split()[:4]))


def _switched_from(old: str, new: str) -> bool:
    """Does `new` switch from a value `old` names (and from the thing `old` is about, if it
    names the thing switched)? See _SWITCH."""
    before = textutil.terms(old)
    for sentence in _SENTENCE_END.split(new.lower()):
        for cue in _SWITCH.finditer(sentence):
            if not switch_counts(sentence, cue.start(), cue.end(), cue["left"]):
                continue
            ahead = sentence[:cue.start()].split()[-3:]
            owned = [i for i, w in enumerate(ahead) if w.endswith(("'s", "’s"))]
            if owned:
                ahead = ahead[owned[-1] + 1:]   # "Leo's best friend moved…" is the friend, not Leo
            # who switched is the person, or whom the older statement is about (not "my cousin
            # moved from Brazil" after "our family moved from Brazil", nor "my brother moved from
            # Lisbon" after "I live in Lisbon with my brother")
            if not {"i", "we"} & set(ahead) and ahead and not textutil.terms(" ".join(ahead)) & _subject_of(old):
                continue
            what = textutil.terms(cue["what"]) - TAKING_BACK_WORDS
            if textutil.terms(cue["left"]) & before and (not what or what <= before):
                return True
    return False


def switch_counts(text: str, start: int, end: int, left: str) -> bool:
    """Is the switch at text[start:end] told as done (not asked, "if", "might"), lately (not
    "back in 2019") and kept (not "…for a week, then went back to Duolingo")?"""
    sentence_start = max(text.rfind(c, 0, start) for c in ".!?") + 1
    stops = [i for i in (text.find(c, end) for c in ".!?") if i >= 0]
    sentence_end = min(stops) if stops else len(text)
    sentence = text[sentence_start:sentence_end + 1]
    ahead = " ".join(text[sentence_start:start].lower().split()[-3:])
    if sentence.rstrip().endswith("?") or _NOT_DONE.search(ahead) or _LONG_AGO.search(sentence):
        return False
    back = re.search(r"\bback to\b(.*)", text[end:sentence_end], re.I)
    return not (back and textutil.terms(left) & textutil.terms(back.group(1)))


@lru_cache(maxsize=4096)   # (retrieval compares each of the best passages with every later one)
def says_taken_back(text: str) -> bool:
    told = [s for s in _SENTENCE_END.split(text.lower()) if not s.rstrip().endswith("?")]
    for sentence in told:
        for cue in _TAKEN_BACK.finditer(sentence):
            before = " ".join(sentence[:cue.start()].split()[-3:])
            if not _NOT_DONE.search(before):
                return True
    return False


# A plan turned around: the older is a plan for a thing, the newer does the opposite with it,
# said as plainly as a verb and its "not": "I decided not to renew the gym membership" / "I
# renewed the gym membership after all"; "I'm going to cancel Disney+" / "Keeping Disney+ after
# all"; "The plan is to sell the old sofa" / "Decided to keep the old sofa"; "I'm going to the
# reunion" / "I won't make it to the reunion". Not a step of the plan ("I decided to clean up my
# bike for the listing"), another part of the occasion ("…but I won't stay for the dinner"),
# someone else's ("Ana decided not to go"), another day, a maybe, or a question.
_PLANNED = re.compile(r"\b(?:decided|decision|plan|planning|going to|gonna|will|won't|agreed|chose|picked|intend)\b|'ll\b")
_ACTION = re.compile(r"(?P<not>\bnot\s+(?:to\s+)?|n't\s+(?:be\s+able\s+to\s+)?|\bnever\s+)?\b(?P<verb>"
                     r"(?:go|going|went)(?=\s+(?:to\s+(?:the|my|our|a|an|his|her|their|\w+'s)\b|there\b))|attend\w*|be\s+(?:at|there)|make\s+it\b|"
                     r"skip\w*|cancel\w*|sell|selling|sold|quit\w*|drop\w*|keep\w*|kept|stay\w*|renew\w*)")
# what each verb does with the plan's thing, and whether it does it: skipping is not going
_DOES = ((("go", "went", "attend", "be at", "be there", "make it"), "go", True), (("skip",), "go", False),
         (("cancel", "sell", "sold", "quit", "drop"), "keep", False), (("keep", "kept", "stay"), "keep", True),
         (("renew",), "renew", True))
THE_PERSON = re.compile(r"\b(?:i|we|my|our)\b")   # the person, in lower-case words ("i'm", "we'll", "our")
_PLAN_WORDS = frozenset(textutil.stem(w) for w in "decided decide decision plan planning agreed chose picked intend "
                        "skip skipping cancel cancelling sell selling sold quit drop keep keeping renew renewed go "
                        "attend stay".split())
_MAYBE = re.compile(r"\b(?:might|may|could|maybe|perhaps|probably|if|whether|unless)\b")


def turns_around(old: str, new: str, about: frozenset[str]) -> bool:
    """Does `new` turn around the plan `old` states, about a thing of `about`? (_ACTION)"""
    lowered_old, lowered_new = old.lower(), new.lower()
    thing = about & textutil.terms(old) & textutil.terms(new) - TAKING_BACK_WORDS - _PLAN_WORDS - textutil.generic_stems()
    if not thing:
        return False
    said_old, said_new = (" ".join(s for s in _SENTENCE_END.split(text) if textutil.terms(s) & thing)
                          for text in (lowered_old, lowered_new))
    # the whole plan, not a part of it: "We will not hire a contractor for the kitchen" is not
    # turned around by "We decided to hire a contractor for the bathroom"
    planned = textutil.terms(said_old) - _WHEN_WORDS - _PLAN_WORDS - TAKING_BACK_WORDS - textutil.generic_stems()
    when_old, when_new = _when(said_old), _when(said_new)
    if not planned <= textutil.terms(said_new) or not _PLANNED.search(said_old) or said_new.rstrip().endswith("?") \
            or _MAYBE.search(said_new) or when_old and when_new and when_old != when_new:
        return False
    was, now = _action(said_old), _action(said_new, the_person=True)
    if was is not None:
        return now is not None and was[0] == now[0] and was[1] != now[1]
    # a plan of another verb, done or not in the newer: "We're going to repaint the fence" / "We
    # decided not to repaint the fence", "I'm going to drive to the conference" / "I won't drive…"
    plan = _PLAN_VERB.search(said_old)
    verb = plan and (plan["verb"] or plan["wont"])
    if not verb or not textutil.content_words(verb):
        return False
    for done in re.finditer(r"[a-z]+", said_new):
        if textutil.stem(done.group(0)) == textutil.stem(verb) and _by_the_person(said_new, done.start()):
            return bool(_NOT_BEFORE.search(said_new[:done.start()])) == (not (plan["not"] or plan["wont"]))
    return False


# a plan and its verb: "we're going to repaint", "I decided not to renew", "I won't drive"
_PLAN_VERB = re.compile(r"\b(?:decided|plan(?:ning)?(?:\s+is)?|going|gonna|will|'ll|agreed)\s+(?P<not>not\s+)?(?:to\s+)?"
                        r"(?P<verb>[a-z]+)|\b(?:won't|will not)\s+(?P<wont>[a-z]+)")
_NOT_BEFORE = re.compile(r"(?:\bnot\s+(?:to\s+)?|n't\s+(?:be\s+able\s+to\s+)?|\bnever\s+)$")


def _action(sentence: str, the_person: bool = False) -> tuple[str, bool] | None:
    """What the first verb of _ACTION in a sentence does with its thing, and whether it is done
    (its "not" turns it around); `the_person`: only if the person does it (_by_the_person)."""
    match = _ACTION.search(sentence)
    if match is None or the_person and not _by_the_person(sentence, match.start()):
        return None
    verb = " ".join(match["verb"].split())
    does, done = next((does, done) for words, does, done in _DOES if verb.startswith(words))
    return does, done != bool(match["not"])


def _by_the_person(sentence: str, at: int) -> bool:
    """Does the person do what is said at `at`? Its clause names them, or opens with it
    ("Keeping Disney+ after all", "Ended up renewing…"), not "Ana decided not to go"."""
    clause = re.split(r"[,;:]|\b(?:and|but|so)\b", sentence[:at])[-1]
    return not clause.strip() or THE_PERSON.search(clause) is not None or \
        re.fullmatch(r"\W*(?:(?:actually|just|finally|ended up|turns out|decided)\s+)*(?:not\s+)?(?:to\s+)?", clause) is not None


def _when(text: str) -> frozenset[str]:
    """The days and times a statement names: two plans for two days are two plans."""
    return (textutil.terms(text) & _WHEN_WORDS) | textutil.numbers(text)
