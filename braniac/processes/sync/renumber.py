"""Event ids that stay unique across machines (vault-format.md §11.3).

An event id is the second the event happened, made unique by a millisecond step against the
events one machine can see. Two machines that each remember something in the same second make
the same id for two different events. Before it merges, `braniac sync` finds the ids both sides
made since their last common commit and gives the local event the next id free on both sides,
everywhere it is named (its Event Log heading, its archived file and that file's uuid, every
citation, `sources` list and access-log line), in a commit of its own. The rule is the same on
every machine (whoever merges renumbers their own, not yet shared, events), so shared history is
never rewritten and no citation ever points at the other machine's event.

The plan (old -> new) is journaled under `.braniac/sync/` before the first file changes, and
every step can be done again: a sync killed midway is finished by the next one (`finish_pending`)
before it commits anything else, so no half-renumbered citation is ever committed or pushed.
"""
from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import clock, git
from ...infra.errors import NoteError
from ...infra.fsio import atomic_write, create_file, read_text, remove_file, update_text
from ...infra.notices import notice
from ...vault.claims import stable_uuid
from ...vault.layout import EVENT_ID, LONG_TERM, SHORT_TERM, event_id_of_file, event_order, event_rel

if TYPE_CHECKING:
    from ...vault.store import VaultStore

SUBJECT = "braniac: sync: renumber events whose ids another machine also used"
_HEADING = re.compile(r"^### (\S+)[ \t]*$", re.MULTILINE)
_PAIR = re.compile(r"^(\S+) -> (\S+)$", re.MULTILINE)
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


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


def renumber(vault: "VaultStore", ids: set[str], taken: set[str], theirs: str) -> dict[str, str]:
    """Give each of these local events the next id free everywhere; returns old -> new. The
    caller holds the LTM and STM locks, commits `files_changed` and then calls `forget`."""
    renamed: dict[str, str] = {}
    for old in sorted(ids, key=event_order):   # the new ids keep the events' order in time
        new = next_free(old, taken | set(renamed.values()))
        taken.add(new)
        renamed[old] = new
    if renamed:
        # durable before the first move; `theirs` tells a journal a merge has overtaken (stale)
        atomic_write(journal_path(vault), json.dumps({"renamed": renamed, "theirs": theirs}))
        _apply(vault, renamed)
    return renamed


def finish_pending(vault: "VaultStore") -> dict[str, str]:
    """The renumbering a killed sync journaled, done to the end (old -> new; empty if none).
    The caller holds the locks, commits `files_changed` and calls `forget`."""
    try:
        data = json.loads(journal_path(vault).read_text(encoding="utf-8"))
        renamed = {str(old): str(new) for old, new in data["renamed"].items()
                   if EVENT_ID.match(str(old)) and EVENT_ID.match(str(new))}
        theirs = str(data["theirs"])
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        notice(f"set aside an unreadable record of an interrupted sync ({exc}); `braniac doctor` "
               "lists any citation it had left unfinished")
        forget(vault)
        return {}
    unfit = _unfit(vault, renamed, theirs)
    if unfit:
        notice(f"set aside a record of an interrupted sync that does not fit this vault ({unfit}); "
               "nothing was renumbered, and `braniac doctor` lists any citation it had left unfinished")
        forget(vault)
        return {}
    merged = git.run(vault.root, "merge-base", "--is-ancestor", theirs, "HEAD", check=False).returncode == 0
    if merged:   # merged since without braniac (`git pull`): the old ids may now name the other machine's events
        notice("an interrupted sync's renumbering of " + ", ".join(sorted(renamed)) + " was overtaken by a merge "
               "made without braniac sync and is not finished; `braniac doctor` lists what it left")
        forget(vault)
        return {}
    _apply(vault, renamed)
    return renamed


def _unfit(vault: "VaultStore", renamed: dict[str, str], theirs: str) -> str | None:
    """Why a journal cannot be a renumbering this vault was killed in (None when it can be): a
    sync gives each event an id free everywhere, so the new id names nothing but the event it
    renumbered, and applying such a record would merge two events into one name (or delete one)."""
    if not _COMMIT.fullmatch(theirs):
        return f"{theirs[:60]!r} is no commit"
    news = list(renamed.values())
    if set(news) & set(renamed) or len(set(news)) != len(news):
        return "an event id it renames is also a new id"
    heads = set(_HEADING.findall(_text(vault.root / SHORT_TERM) or ""))
    for old, new in renamed.items():
        if old in heads and new in heads:
            return f"{new} is another event of short-term memory"
        source, target = (_text(vault.root / event_rel(i)) for i in (old, new))
        # (a kill between the copy and the removal leaves both: the copy is then the same event)
        if source is not None and target is not None and target != replaced(source, renamed):
            return f"{new} is another archived event"
    return None


def _text(path: Path) -> str | None:
    """A file's text; None when there is no such file, and for one that cannot be read as text
    (no renumbering wrote it) a text no event's copy is."""
    if not path.exists():
        return None
    try:
        return read_text(path)
    except NoteError:
        return "\0"


def _apply(vault: "VaultStore", renamed: dict[str, str]) -> None:
    """Each step again on what a killed run left: an id already replaced is not found again."""
    uuids = _uuids(renamed)
    # the archived files first: the uuid of an archived event is derived from its id
    for old, new in renamed.items():
        source = vault.root / event_rel(old)
        if source.exists():
            # (False when the copy was made before a kill: the copy is whole, so the old file goes)
            create_file(vault.root / event_rel(new), replaced(read_text(source), renamed))
            remove_file(source)
    for rel in _naming(vault, [*renamed, *(old.replace(":", "-") for old in renamed), *uuids]):
        update_text(vault.root / rel, lambda text: replaced(text, renamed))


def files_changed(vault: "VaultStore", renamed: dict[str, str]) -> set[Path]:
    """Every file a renumbering changed: the archived events under both names, and every tracked
    file that names a new id (whether this run or a killed one rewrote it)."""
    names = {event_rel(i) for pair in renamed.items() for i in pair}
    needles = [*renamed.values(), *(new.replace(":", "-") for new in renamed.values()), *_uuids(renamed).values()]
    return {vault.root / rel for rel in names | set(_naming(vault, needles))}


def forget(vault: "VaultStore") -> None:
    """The journal goes once the renumbering is committed."""
    journal_path(vault).unlink(missing_ok=True)


def journal_path(vault: "VaultStore") -> Path:
    return vault.state_dir / "sync" / "renumber.json"


def message(renamed: dict[str, str]) -> str:
    return f"{SUBJECT}\n\n" + "\n".join(f"{old} -> {new}" for old, new in sorted(renamed.items()))


def recorded(subject: str, body: str) -> dict[str, str]:
    """old -> new, as a renumbering's commit message lists them (empty for any other commit)."""
    if subject != SUBJECT:
        return {}
    return {old: new for old, new in _PAIR.findall(body) if EVENT_ID.match(old) and EVENT_ID.match(new)}


def replaced(text: str, renamed: dict[str, str]) -> str:
    """`text` with each old id (as an id, in a file name, in the archived file's uuid) the new one."""
    # an id ends in `Z` and starts with its year, so it is never part of another id
    for old, new in renamed.items():
        text = text.replace(old, new).replace(old.replace(":", "-"), new.replace(":", "-"))
    for old, new in _uuids(renamed).items():
        text = text.replace(old, new)
    return text


def _uuids(renamed: dict[str, str]) -> dict[str, str]:
    return {stable_uuid("event", old): stable_uuid("event", new) for old, new in renamed.items()}


def _naming(vault: "VaultStore", needles: list[str]) -> list[str]:
    """The tracked files under memory/, system/ and logs/ that hold one of `needles`."""
    grep = git.run(vault.root, "grep", "-l", "-z", "-F", *[a for n in needles for a in ("-e", n)],
                   "--", "memory", "system", "logs", check=False).stdout
    return list(filter(None, grep.split("\0")))
