"""Where things are in a vault: the names every other module uses (docs/vault-format.md §1).

    system/core_identity.md
    memory/short_term.md
    memory/long_term/{concrete,events,skills,archive}/…   each folder with an _index.md
    memory/long_term/events/YYYY/MM/DD/<event id>.md      an archived short-term event
    logs/access.log
    .braniac/                                              derived state only
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from ..infra import clock
from ..infra.errors import UnsafePath

MEMORY_ROOTS = ("system", "memory")              # what search indexes
IDENTITY = "system/core_identity.md"
SHORT_TERM = "memory/short_term.md"
LONG_TERM = "memory/long_term"
LOGS = "logs"                                    # the access log and what workers rejected
ACCESS_LOG = "logs/access.log"
TIERS = ("concrete", "events", "skills")         # long-term memory's kinds, one top folder each
RESTRUCTURED_TIERS = ("concrete", "skills")      # organization reshapes these; events stay by date
ARCHIVE = "archive"                              # notes organization retired (searched on request)
FOLDER_INDEX = "_index.md"                       # every long-term folder's summary and manifest

# Folders and files that are never memory: tool folders (.git, .obsidian, .trash, braniac's own
# .braniac), anything hidden, and package folders a person's tools may create inside a vault.
NOT_MEMORY_NAMES = frozenset({"node_modules"})

# An event id is its UTC timestamp, made unique in the vault by a millisecond step.
EVENT_ID_PATTERN = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z"
EVENT_ID = re.compile(rf"^{EVENT_ID_PATTERN}$")
EVENT_ID_IN_TEXT = re.compile(EVENT_ID_PATTERN)
EVENT_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2}(?:\.\d+)?Z)\.md$")

# Derived state under .braniac/ (deleting any of it loses nothing)
STATE_DIR = ".braniac"
SEARCH_INDEX_DIR = "index"        # the Whoosh index and its file list
READ_COUNTS = "reads.json"        # reads per note, counted from the access logs
LOCKS_DIR = "locks"
RUN_MARKERS_DIR = "state"         # when each worker last finished


def is_memory_name(name: str) -> bool:
    """Whether a folder or file of this name can hold memory (hidden and tool folders cannot)."""
    return bool(name) and not name.startswith(".") and name not in NOT_MEMORY_NAMES


def is_event_id(text: str) -> bool:
    return isinstance(text, str) and bool(EVENT_ID.fullmatch(text))


def printable_id(heading: str) -> str:
    """An event heading as a message may quote it: at most 80 characters."""
    return heading if len(heading) <= 80 else heading[:79] + "…"


def event_day(event_id: str) -> date:
    """The person's day an event happened on, what their "yesterday" or "last Friday" counts
    from (its id is the UTC time; its archive folder is the UTC day)."""
    return clock.local_day(clock.parse_iso(event_id))


def event_rel(event_id: str) -> str:
    """The vault-relative path of an archived event: events/YYYY/MM/DD/<id>.md, with ':' replaced
    so the name is valid on every file system. Only an event id has one: a `### ` heading that is
    anything else (a path, `../..`) is refused, never turned into a path."""
    if not is_event_id(event_id):
        raise UnsafePath(f"{str(event_id)[:80]!r} is not an event id (a UTC timestamp such as 2025-03-06T09:00:00Z)")
    return f"{event_day_rel(event_id)}/{event_id.replace(':', '-')}.md"


def digest_summary(day: str) -> str:
    """The summary a day's digest opens with: it names the day and says nothing of it."""
    return f"What happened on {day}."


def is_digest_summary(text: str) -> bool:
    return bool(re.fullmatch(r"What happened on \d{4}-\d{2}-\d{2}\.", text.strip()))


def event_day_rel(day: str) -> str:
    """The vault-relative folder of one day's archived events (`day` starts YYYY-MM-DD)."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day[:10]):
        raise UnsafePath(f"{day[:80]!r} is not a date")
    return f"{LONG_TERM}/events/{day[:4]}/{day[5:7]}/{day[8:10]}"


def event_order(event_id: str) -> tuple[str, str]:
    """A sort key that puts event ids in time order: as plain text "10:00:00.001Z" would sort
    before "10:00:00Z" (a '.' before the 'Z'), so the fraction of a second is compared apart."""
    return event_id[:19], event_id[19:-1]


def newest_event(ids: Iterable[str]) -> str:
    """The latest of some event ids, in time order (see event_order)."""
    return max(ids, key=event_order)


def event_id_of_file(name: str) -> str | None:
    """The event id an archived event's file name stands for (the inverse of `event_rel`)."""
    match = EVENT_FILE.match(name)
    return f"{match.group(1)}:{match.group(2)}:{match.group(3)}" if match else None
