"""Short-term memory merged from two machines (vault-format.md §11.2).

Both machines append events on top of one Event Log, and promotion on either removes what it
archived, so a line-based merge conflicts on nearly every sync. This merge works on events and
list items instead: an event either side added is kept (placed by time), an event either side
removed (promoted there, so archived) goes, an event only one side changed takes that change.
Structured Data items merge the same way; a Summary changed on both sides keeps both texts.
What cannot be merged this way (one event changed differently on both sides) returns None, and
the file stays an ordinary git conflict: nothing is picked silently.
"""
from __future__ import annotations

import re

from ...infra.textmerge import merge_texts
from ...vault import stm
from ..promotion.short_term import set_summary


def merge_short_term(base: str | None, ours: str, theirs: str) -> str | None:
    """The merged text, or None when the two sides changed the same event differently."""
    base = base or ""
    textual = merge_texts(ours, base, theirs, strict=True)
    if textual is not None and _sound(textual, base, ours, theirs):
        return textual
    b, o, t = stm.parse(base), stm.parse(ours), stm.parse(theirs)
    result = stm.parse(ours)
    base_events = {e.id: e.raw.strip() for e in b.events}
    our_events = {e.id: e.raw.strip() for e in o.events}
    their_events = {e.id: e for e in t.events}
    gone = {i for i in base_events if i not in their_events}       # promoted on their side
    result.remove_events(gone)
    for event_id, event in their_events.items():
        mine = our_events.get(event_id)
        if mine is None:
            if event_id not in base_events:          # new on their side
                result.restore_event(event)
            continue                                 # we promoted it: it is archived here
        if mine == event.raw.strip():
            continue
        if mine == base_events.get(event_id):        # changed on their side only
            result.remove_events({event_id})
            result.restore_event(event)
        elif event.raw.strip() != base_events.get(event_id):
            return None                              # changed differently on both sides
    for name in stm.LISTS:
        _merge_items(result, name, b.items(name), t.items(name))
    if t.summary != b.summary and t.summary != o.summary:
        set_summary(result, t.summary if o.summary == b.summary else f"{o.summary}\n\n{t.summary}")
    return result.render()


def _sound(merged: str, base: str, ours: str, theirs: str) -> bool:
    """A line merge is kept only when it holds exactly the events a structured merge would: a
    clean line merge can still join two events' lines into one."""
    b = {e.id for e in stm.parse(base).events}
    o = {e.id for e in stm.parse(ours).events}
    t = {e.id for e in stm.parse(theirs).events}
    want = (o & t) | (o - b) | (t - b)
    got = [e.id for e in stm.parse(merged).events]
    return len(got) == len(set(got)) and set(got) == want


def _merge_items(result: stm.ShortTermMemory, name: str, base: list[stm.Item], theirs: list[stm.Item]) -> None:
    before = {i.text: i.done for i in base}
    after = {i.text: i.done for i in theirs}
    for text, done in after.items():
        if text not in before:
            result.add_item(name, text, done=done)
        elif done and not before[text]:
            result.set_item_done(name, text)
    for text in before:
        if text not in after:        # cleared on their side (promotion recorded it in a digest)
            _remove_item(result, name, text)


def _remove_item(doc: stm.ShortTermMemory, name: str, text: str) -> None:
    block = doc.block(stm.STRUCTURED)
    if block is None:
        return
    lines = stm.split_lines(block.raw)
    current = None
    for i, line in enumerate(lines):
        if line.startswith("### "):
            current = line[4:].strip()
            continue
        match = re.match(r"^[-*+][ \t]+(?:\[[ xX]\][ \t]+)?\\?(?P<text>.*?)[ \t]*$", line.rstrip("\n"))
        if current == name and match and match["text"] == text:
            del lines[i]
            block.raw = "".join(lines)
            return
