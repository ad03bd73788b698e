"""The git bookkeeping of the workers that change long-term memory (promotion, organization).

While a run works, every file it is about to change through fsio (written, created, moved,
removed) is first recorded in `.braniac/<worker>/uncommitted.log`, so that a run killed before
its commit (or between git's add and its commit) leaves a list the next run of either worker
commits first. Each commit names exactly the paths the worker changed, deletions included: a
person's unrelated changes in the working tree are never swept into braniac's commits.

All of it runs under the LTM lock, which every worker holds: a git index.lock older than a
minute with no git process alive is a killed git's, and is removed with a notice.
"""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Iterable, Iterator

from ..infra import git
from ..infra.errors import BraniacError, NoteError
from ..infra.fsio import TEMP_SUFFIX, announcing, append_bytes, read_text, settled_stat
from ..infra.notices import notice
from ..vault import notes
from ..vault.store import VaultStore

RECORD = "uncommitted.log"
LEGACY_RECORD = "uncommitted.json"      # what earlier versions wrote (a JSON list)
# what the next run's commit of a killed run's files says, per worker
INTERRUPTED = {"promotion": "braniac: finish an interrupted promotion",
               "organization": "braniac: finish an interrupted organize run",
               "adoption": "braniac: finish an interrupted adoption of notes written by hand"}


class WorkerCommits:
    def __init__(self, vault: VaultStore, worker: str):
        self.vault = vault
        self.worker = worker
        self.pending = vault.state_dir / worker / RECORD
        self._noted: set[str] = set()

    def recorded(self) -> set[Path] | None:
        """The paths a killed run left uncommitted; None when there is no record."""
        found: set[Path] | None = None
        try:
            data = self.pending.read_bytes()
            # a line a crash cut short is not a path braniac wrote (nor a folder to sweep in)
            lines = data.decode("utf-8", "replace").split("\n")[:-1]
            found = {self.vault.root / line for line in lines if line}
        except OSError:
            pass
        try:
            legacy = json.loads((self.pending.parent / LEGACY_RECORD).read_text(encoding="utf-8"))
            found = (found or set()) | {self.vault.root / p for p in legacy if isinstance(p, str)}
        except (OSError, ValueError, TypeError):
            pass
        return found

    def remember(self, paths: Iterable[Path]) -> None:
        """Record paths (durably, before they are written)."""
        for path in paths:
            self.note(path)

    def note(self, path: Path) -> None:
        """Record one path the run is about to change, unless it is braniac's derived state."""
        full = Path(os.path.normpath(Path(path).absolute()))
        try:
            rel = full.relative_to(self.vault.root).as_posix()
        except ValueError:
            return
        if rel in self._noted or rel.split("/", 1)[0] in (".braniac", ".git") or TEMP_SUFFIX in rel:
            return   # derived state, git's own, or a temp name that is never committed
        self.pending.parent.mkdir(parents=True, exist_ok=True)
        append_bytes(self.pending, (rel + "\n").encode("utf-8"), durable=True)
        self._noted.add(rel)

    @contextlib.contextmanager
    def recording(self) -> Iterator["WorkerCommits"]:
        """Record every file this thread changes through fsio while inside."""
        with announcing(self.note):
            yield self

    def commit(self, paths: Iterable[Path], message: str) -> str | None:
        """Commit these paths and every recorded one; the short hash, or None if nothing changed."""
        known = set(paths) | (self.recorded() or set())
        committed = commit_now(self.vault, known, message)
        self.clear()
        return committed

    def clear(self) -> None:
        self.pending.unlink(missing_ok=True)
        (self.pending.parent / LEGACY_RECORD).unlink(missing_ok=True)
        self._noted.clear()


def commit_leftovers(vault: VaultStore, *, also: Iterable[Path] = (), worker: str = "promotion") -> str | None:
    """Commit what killed runs of every worker left uncommitted, each worker's files in a commit
    of their own ("finish an interrupted …"); `also` goes with `worker`'s. The last hash, or None."""
    last = None
    for name, message in INTERRUPTED.items():
        commits = WorkerCommits(vault, name)
        leftovers = commits.recorded()
        extra = set(also) if name == worker else set()
        if leftovers is None and not extra:
            continue
        last = commit_now(vault, (leftovers or set()) | extra, message) or last
        commits.clear()
    return last


def commit_now(vault: VaultStore, paths: Iterable[Path], message: str) -> str | None:
    """Commit exactly these paths (a file removed is committed as removed); the short hash, or
    None if nothing changed."""
    clear_stale_index_lock(vault)
    files = {Path(p) for p in paths if not Path(p).is_dir()}   # never a whole folder swept in
    return head(vault) if git.commit_paths(vault.root, files, message) else None


def keep_short_term(vault: VaultStore, before: str) -> str | None:
    """Short-term memory as it stands, in a commit of its own before a run rewrites it: `remember`
    and reflection never commit, and `git revert` of the run must not take what they wrote back.
    A save in place under way is waited for first: the commit is a whole version of the file."""
    with contextlib.suppress(OSError):
        settled_stat(vault.stm_path)
    return commit_now(vault, {vault.stm_path}, f"braniac: short-term memory before {before}")


def keep_persons_edits(vault: VaultStore, targets: Iterable[Path], before: str) -> str | None:
    """What a person changed and did not commit in the files a run is about to write, committed
    as theirs first, so that undoing the run takes back only what braniac wrote. A note they
    renamed or moved goes in whole, with the removal of the file it came from: half a rename
    would leave two notes with one uuid in every commit after it."""
    theirs = git.uncommitted(vault.root, [t for t in targets if t.is_file()])
    if not theirs:
        return None
    theirs += sorted(_renamed_from(vault, theirs))
    return commit_now(vault, theirs, f"braniac: your own edits to {len(theirs)} file(s), kept before {before}\n\n"
                      + "\n".join(vault.relative(p) for p in sorted(theirs)[:200]) + "\n")


def _renamed_from(vault: VaultStore, files: list[Path]) -> set[Path]:
    """The tracked notes, removed and not committed as removed, whose uuid one of `files` carries."""
    gone = [p for p in git.deleted(vault.root) if p.suffix == ".md"]
    if not gone:
        return set()
    uuids = {_uuid(f) for f in files if f.suffix == ".md"} - {None}
    return {p for p in gone if uuids and _uuid(p, git.show(vault.root, "HEAD", vault.relative(p))) in uuids}


def _uuid(path: Path, text: str | None = None) -> str | None:
    """A note's uuid (from `text`, else from the file), or None."""
    try:
        text = read_text(path) if text is None else text
        return notes.parse(text, path=path).uuid or None
    except (NoteError, OSError):
        return None


def clear_stale_index_lock(vault: VaultStore) -> None:
    """Remove the index.lock a killed git left (the caller holds the LTM lock, so it is no
    worker's); a live git's lock stays, and braniac says that git is busy."""
    lock, stale = git.index_lock(vault.root)
    if lock is None:
        return
    if not stale:
        raise BraniacError(f"git is busy in this vault (a running git command holds {lock}); "
                           "braniac commits once it has finished: try again then")
    with contextlib.suppress(FileNotFoundError):
        lock.unlink()
    notice(f"removed {lock}, left by a git process that no longer runs")


def head(vault: VaultStore) -> str:
    return git.run(vault.root, "rev-parse", "--short", "HEAD").stdout.strip()
