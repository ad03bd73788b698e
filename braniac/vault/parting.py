"""A thing the person parted with or left for another: "I sold the Civic" after "I drive a 2012
Honda Civic", "I switched from Duolingo to Babbel" after "I'm learning Spanish on Duolingo", "I
moved all my notes to Obsidian" after "I write my notes in Evernote". No number changes, so
`claims.compare` sees two claims; the person sees a thing they no longer have or use. Read by
value_changes.py for questions and claims, by search/currency.py to know which passages may
replace others, and by search/replacements.py for what a question may be asking after."""
from __future__ import annotations

import re

from ..infra import textutil
from ..infra.relative_times import CALENDAR_WORDS
from .reversals import FOR_A_WHILE, TAKING_BACK_WORDS, switch_counts


# who parts with a thing or switches: "I", "we", or no one said at the start of a sentence, as
# people write in a chat ("Sold the Corolla and got a Kia Niro")
_PERSON = r"(?:\b(?i:i|we)\s+|^\s*|(?<=[.!?]\s))"
# the person parting with a named thing: "I sold the Civic", "we finally got rid of our old Vespa"
_GIVEN_UP = re.compile(_PERSON + r"(?i:(?:just|finally|recently|already)\s+)?(?i:sold|gave away|got rid of|"
                       r"returned|scrapped|donated|traded in)\s+(?i:(?:the|my|our|that|this|his|her)\s+)?"
                       r"(?i:old\s+)?(?P<names>(?:[A-Z][\w-]*\s*)+)(?P<noun>[a-z]\w+)?")
# the person having or using a thing: "I drive a 2012 Honda Civic", "my Civic"
_HAVING = re.compile(r"\b(?:i|we)\s+(?:\w+\s+)?(?:drive|have|own|use|ride|keep|play|love)\b|\bmy\b|\bour\b", re.I)
# the person leaving a named thing for another: "I switched from Duolingo to Babbel", "we
# migrated from AWS to GCP", "we moved from Lisbon to Porto" (the thing switched, if named, is
# what the older statement is about: not "we moved the design files from Slack to Figma"); or
# dropped for another: "we dropped Jira for Linear", "replaced LastPass with Bitwarden"
_SWITCHED = re.compile(_PERSON + r"(?i:(?:just|finally|recently|already|have|'ve)\s+)?(?:(?i:switched|migrated|moved|"
                       r"changed)\s+(?P<what>(?i:(?:\w+\s+){0,2}?))(?i:from)\s+(?i:(?:the|my|our)\s+)?"
                       r"(?P<names>(?:[A-Z][\w-]*\s*)+)(?i:to)\b|(?i:dropped|ditched|swapped|replaced)\s+(?i:(?:the|my|our)\s+)?"
                       r"(?P<dropped>(?:[A-Z][\w-]*\s*)+)(?i:for|with)\s+[A-Z])")
# someone taking over a role from the one the older statement names: "Hannah took over as project
# lead from Jonas" / "The project lead is Jonas"
_TOOK_OVER = re.compile(r"\btook over\s+(?:as\s+(?P<what>(?:[\w'-]+\s+){1,3}?))?from\s+(?P<names>(?:[A-Z][\w-]*\s*)+)")
# where a thing is used or a place lived in, which a switch leaves: "learning Spanish on
# Duolingo", "we decided to use Postgres", "I live in Lisbon", "I work at Acme" (not "we went
# to Lisbon on Saturday": what happened there stays as it was)
_USING = re.compile(r"\b(?:on|with|using|use|uses|in|at)\s+(?:(?:the|my|our)\s+)?(?P<names>(?:[A-Z][\w-]*\s*)+)")
# the person moving their things to another named place: "I moved all my notes to Obsidian" (the
# place the older statement keeps them, "I write my notes in Evernote", is left)
_MOVED_TO = re.compile(_PERSON + r"(?i:(?:just|finally|recently|already|have|'ve)\s+)?(?i:moved|migrated|transferred)\s+"
                       r"(?i:all\s+)?(?i:of\s+)?(?i:my|our)\s+(?P<what>(?:[a-z]+\s+)?[a-z]+)\s+(?i:over\s+)?(?i:to)\s+"
                       r"(?P<names>(?:(?:[A-Z]|i(?=[A-Z]))[\w-]*\s*)+)")   # (and "iCloud")
# what the person's thing is, which a switch leaves too: "My password manager is LastPass"
_MINE_IS = re.compile(r"\b(?i:my|our)\s+(?:[a-z]+\s+){1,2}?(?i:is|are)\s+(?P<names>(?:[A-Z][\w-]*\s*)+)")


def says_given_up(text: str) -> bool:
    """Does a statement say the person parted with a named thing, or left it for another? (A
    cheap test first.)"""
    return _GIVEN_UP.search(text) is not None or _SWITCHED.search(text) is not None or _TOOK_OVER.search(text) is not None


def gives_up(old: str, new: str) -> bool:
    """Does `new` say the person parted with a named thing `old` says they have or use ("I sold
    the Civic" / "I drive a 2012 Honda Civic"), or left it for another ("I switched from Duolingo
    to Babbel" / "I'm learning Spanish on Duolingo")? The whole thing parted with, not only its brand
    ("I returned the Sony TV" leaves "my Sony headphones" current). What happened with it before
    ("we drove the Civic to Porto") stays as it was: only a statement of having it becomes history."""
    had = _had(old)
    for parted in _GIVEN_UP.finditer(new):
        if new[parted.end("names"):].startswith(("'", "’")):
            continue   # "I returned Ana's call": Ana owns what was returned
        names, noun = parted["names"].split(), parted["noun"]
        # a word after both names that differs ("Sony headphones" / "Sony speaker") is another thing
        if any(set(names) <= set(own) and not (noun and after and noun != after) for own, after in had):
            return True
    used = [*(m["names"].split() for m in (*_USING.finditer(old), *_MINE_IS.finditer(old))), *(own for own, _ in had)]
    before = textutil.terms(old)
    if any(set(left["names"].split()) <= set(textutil.entities(old)) and textutil.terms(left["what"] or "") <= before
           for left in _TOOK_OVER.finditer(new) if switch_counts(new, left.start(), left.end(), left["names"])):
        return True
    if any(_moved_away(moved, old, new) for moved in _MOVED_TO.finditer(new)):
        return True
    return any(set(left_names.split()) <= set(own) and textutil.terms(left["what"] or "") - TAKING_BACK_WORDS - textutil.generic_stems() <= before
               for left in _SWITCHED.finditer(new) for left_names in [left["names"] or left["dropped"]] for own in used
               if switch_counts(new, left.start(), left.end(), left_names))


def _moved_away(moved: re.Match, old: str, new: str) -> bool:
    """Are the things moved all of what the older statement keeps in a named place ("my notes in
    Evernote"), and is that place another than where they went, told by the person? Not "moved
    my work notes to Notion" after "my notes in Evernote", "my bike" after "my car and my bike",
    a backup "as well", for a while ("…for the trip"), a day ("moved my meeting to Tuesday"),
    nor a quote ('Tom: "I moved…"')."""
    to = set(moved["names"].split())
    what = textutil.terms(moved["what"])
    left = [m for m in _KEPT_IN.finditer(old) if not set(m["names"].split()) & to]
    if any(name in new[moved.end():] for m in left for name in m["names"].split()):
        return False   # "…to Revolut for the trip. I'll move them back to ING in March."
    kept = [textutil.terms(m["what"]) for m in left]
    sentence = new[max(new.rfind(c, 0, moved.start()) for c in ".!?") + 1:]
    return what in kept and not {n.lower() for n in to} & CALENDAR_WORDS and not _QUOTE.search(new[:moved.start()]) \
        and not _ALSO.search(sentence) and not FOR_A_WHILE.search(sentence) \
        and switch_counts(new, moved.start(), moved.end(), moved["names"])


# where the person keeps a thing of theirs: "I write my notes in Evernote", "our photos on Google Photos"
_KEPT_IN = re.compile(r"\b(?i:my|our)\s+(?P<what>(?:[a-z]+\s+)?[a-z]+)\s+(?:in|on|at|with)\s+(?:the\s+)?"
                      r"(?P<names>(?:(?:[A-Z]|i(?=[A-Z]))[\w-]*\s*)+)")
_QUOTE = re.compile(r"[\"“”]")
_ALSO = re.compile(r"\b(?:as well|too|also|backups?|cop(?:y|ies))\b", re.I)


_NAME_AFTER = re.compile(r"\s+(?:(?:a|an|the|my|our|\d{4}|old|new)\s+)*(?P<names>(?:[A-Z][\w-]+\s*)+)")


def had_things(text: str) -> list[str]:
    """The named things a statement says the person has or uses ("I drive a 2012 Honda Civic":
    Honda, Civic; "learning Spanish on Duolingo": Duolingo; "My password manager is LastPass"), whose parting ("I sold the Civic",
    "I switched from Duolingo to Babbel") may have come since."""
    used = (m["names"].split() for m in (*_USING.finditer(text), *_MINE_IS.finditer(text)))
    return list(dict.fromkeys(name for names in [*(n for n, _ in _had(text)), *used] for name in names))


def _had(text: str) -> list[tuple[list[str], str | None]]:
    """(the names of a thing the person has, the word right after them: "headphones", if any)."""
    found = []
    for having in _HAVING.finditer(text):
        named = _NAME_AFTER.match(text, having.end())
        if named:
            after = re.match(r"[a-z]\w+", text[named.end():])
            found.append((named["names"].split(), after.group(0) if after else None))
    return found
