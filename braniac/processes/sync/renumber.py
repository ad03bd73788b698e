"""Event ids that stay unique across machines (vault-format.md §11.3).

An event id is the second the event happened, made unique by a millisecond step against the
events one machine can see. Two machines that each remember something in the same second make
the same id for two different events. Before it merges, `braniac sync` finds the ids both sides
made since their last common commit and gives the local event the next id free on both sides,
everywhere it is named (its Event Log heading, its archived file and that file's uuid, every
citation, `sources` list and access-log line), in a commit of its own. The rule is the same on
every machine (whoever merges renumbers their own, not yet shared, events), so shared history is
never rewritten and no citation ever points at the other machine's event.
"""
from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import clock, git
from ...infra.fsio import create_file, read_text, remove_file, update_text
from ...vault.claims import stable_uuid
from ...vault.layout import EVENT_ID, LONG_TERM, SHORT_TERM, event_id_of_file, event_order, event_rel

if TYPE_CHECKING:
    from ...vault.store import VaultStore

_HEADING = re.compile(r"^### (\S+)[ \t]*$", re.MULTILINE)


def ids_at(root: Path, commit: str | None) -> set[str]:
    """Every event id a commit holds: in short-term memory and in the events archive."""
    if commit is None:
        return set()
    found = {m for m in _HEADING.findall(git.show(root, commit, SHORT_TERM) or "") if EVENT_ID.match(m)}
    for rel in git.tree_names(root, commit, f"{LONG_TERM}/events"):
        event_id = event_id_of_file(rel.rsplit("/", 1)[-1])
        if event_id:
            found.add(event_id)
    return found


def colliding(root: Path, base: str | None, ours: str, theirs: str) -> tuple[set[str], set[str]]:
    """The ids both sides made since `base`, and every id either side holds."""
    before = ids_at(root, base)
    mine, other = ids_at(root, ours), ids_at(root, theirs)
    return (mine - before) & (other - before), mine | other | before


def next_free(event_id: str, taken: set[str]) -> str:
    moment = clock.parse_iso(event_id).replace(microsecond=0)
    step = 0
    candidate = event_id
    while candidate in taken:
        step += 1
        candidate = clock.iso(moment + timedelta(milliseconds=step))
    return candidate


def renumber(vault: "VaultStore", ids: set[str], taken: set[str]) -> dict[str, str]:
    """Give each of these local events the next id free everywhere; returns old -> new. The
    caller holds the LTM and STM locks and commits the changed files."""
    renamed: dict[str, str] = {}
    for old in sorted(ids, key=event_order):   # the new ids keep the events' order in time
        new = next_free(old, taken | set(renamed.values()))
        taken.add(new)
        renamed[old] = new
    if not renamed:
        return renamed
    # the archived files first: the uuid of an archived event is derived from its id
    uuids = {stable_uuid("event", old): stable_uuid("event", new) for old, new in renamed.items()}
    for old, new in renamed.items():
        source = vault.root / event_rel(old)
        if source.exists():
            create_file(vault.root / event_rel(new), _replaced(read_text(source), renamed, uuids))
            remove_file(source)
    needles = [*renamed, *(old.replace(":", "-") for old in renamed), *uuids]
    grep = git.run(vault.root, "grep", "-l", "-z", "-F", *[a for n in needles for a in ("-e", n)],
                   "--", "memory", "system", "logs", check=False).stdout
    for rel in filter(None, grep.split("\0")):
        update_text(vault.root / rel, lambda text: _replaced(text, renamed, uuids))
    return renamed


def _replaced(text: str, renamed: dict[str, str], uuids: dict[str, str]) -> str:
    # an id ends in `Z` and starts with its year, so it is never part of another id
    for old, new in renamed.items():
        text = text.replace(old, new).replace(old.replace(":", "-"), new.replace(":", "-"))
    for old, new in uuids.items():
        text = text.replace(old, new)
    return text


def files_named(renamed: dict[str, str]) -> set[str]:
    """The archived files a renumbering moved (both names), for the commit."""
    return {event_rel(i) for pair in renamed.items() for i in pair}
