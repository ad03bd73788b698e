"""Adoption: the notes and folders a person makes by hand under `memory/long_term/` become full
memories (vault-format.md §3.1), from `braniac watch`, the chat, `braniac organize` and
`braniac doctor --fix`.

A file is adopted only once it has been quiet for QUIET_SECONDS (a person may still be typing,
or their editor saving in several steps), and only as it was read: the write is checked against
the stat taken when braniac read it (fsio's `expect_unchanged`), so a save that lands meanwhile
is kept and adopted at a later pass. Folders without an `_index.md` get one; every folder
touched has its manifest refreshed, and so has a folder whose notes a person renamed, moved or
deleted by hand (its manifest listed a file that is gone, or left one out). With `git.autocommit` the run is one commit of its own.
"""
from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..infra import git
from ..infra.errors import LockBusy, NoteError, ReadOnlyFile
from ..infra.fsio import ConcurrentEdit, atomic_write, locked, read_settled, same_version
from ..search.index import update_after_write
from ..vault.adoption import adopted_text, memory_tree, notes_among
from ..vault.folders import ensure_folder, manifest_out_of_date, refresh_indexes
from ..vault.layout import FOLDER_INDEX
from .commits import WorkerCommits

if TYPE_CHECKING:
    from ..infra.config import Config
    from ..vault.store import VaultStore

WORKER = "adoption"
QUIET_SECONDS = 5.0


@dataclass
class AdoptionReport:
    status: str = "done"              # done | off | skipped | dry-run
    adopted: list[str] = field(default_factory=list)   # notes given their missing keys
    folders: list[str] = field(default_factory=list)   # folders given an _index.md
    manifests: list[str] = field(default_factory=list)  # folders whose notes changed by hand: manifest refreshed
    waiting: list[str] = field(default_factory=list)   # saved too recently: adopted at a later pass
    left: list[str] = field(default_factory=list)      # "path: why" (broken YAML, read-only)
    files: list[str] = field(default_factory=list)     # every file written
    commit: str | None = None

    def describe(self) -> str:
        if self.status == "off":
            return "adoption is off in braniac.toml ([vault] adopt_notes = false)"
        if self.status == "skipped":
            return "adoption skipped: another braniac worker holds long-term memory"
        verb = "would adopt" if self.status == "dry-run" else "adopted"
        text = f"{verb} {len(self.adopted)} note(s) written by hand"
        if self.folders:
            text += f", {len(self.folders)} folder(s) given an _index.md"
        if self.manifests:
            done = "to bring up to date" if self.status == "dry-run" else "brought up to date"
            text += f", {len(self.manifests)} folder manifest(s) {done} (notes renamed, moved or deleted by hand)"
        if self.waiting:
            text += f"; {len(self.waiting)} still being edited (adopted once quiet)"
        return text

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class Adopter:
    """Adoption passes over one vault. It remembers each file it found needing nothing (by its
    stat), so that frequent passes (the watcher's, every few seconds) read only what changed."""

    def __init__(self, vault: "VaultStore", config: "Config", *, quiet_seconds: float = QUIET_SECONDS):
        self.vault, self.config, self.quiet = vault, config, quiet_seconds
        self._known: dict[Path, tuple] = {}
        self._refused: set[Path] = set()   # read-only folders without an _index.md
        # each folder's mtime when its manifest was last found to match its files: a rename,
        # a move or a delete by hand changes it
        self._matching: dict[Path, int] = {}

    def run(self, *, dry_run: bool = False, holding_ltm: bool = False) -> AdoptionReport:
        report = AdoptionReport(status="dry-run" if dry_run else "done")
        if not self.config.adopt_notes:
            report.status = "off"
            return report
        if not self._anything_new():
            return report   # (the usual pass: stats only, no lock taken)
        try:
            guard = contextlib.nullcontext() if holding_ltm or dry_run else \
                locked(self.vault.lock_path("ltm"), timeout=0, what="long-term memory")
            with guard:
                self._run(report, dry_run)
        except LockBusy:
            report.status = "skipped"
        return report

    def _anything_new(self) -> bool:
        """Whether a file changed since it was last found complete, a folder lacks its index, or
        a folder changed since its manifest last matched it (one walk: stats only)."""
        for folder, names in memory_tree(self.vault):
            if self._matching.get(folder) != _mtime_ns(folder):
                return True
            if FOLDER_INDEX not in names and folder not in self._refused:
                return True
            for path in notes_among(folder, names):
                try:
                    st = os.stat(path)
                except FileNotFoundError:
                    continue
                if self._known.get(path) != (st.st_mtime_ns, st.st_size, st.st_ino):
                    return True
        return False

    def _run(self, report: AdoptionReport, dry_run: bool) -> None:
        vault = self.vault
        autocommit = not dry_run and self.config.git_autocommit and git.is_repo(vault.root)
        commits = WorkerCommits(vault, WORKER)
        written: set[Path] = set()
        with commits.recording() if autocommit else contextlib.nullcontext():
            now = time.time()   # (folders first: adopting a note touches its folder's mtime)
            tree = list(memory_tree(vault))   # (one walk for the whole pass)
            bare = [f for f, _names in tree if not (f / FOLDER_INDEX).exists() and f not in self._refused]
            folders = [f for f in bare if now - _mtime(f) >= self.quiet]
            report.waiting += [vault.relative(f) for f in bare if f not in folders]   # made moments ago
            adopted = [p for f, names in tree for p in notes_among(f, names) if self._adopt(p, report, dry_run, written)]
            marks = self._stale_manifests([f for f, _names in tree], now, dry_run)
            report.adopted = [vault.relative(p) for p in adopted]
            report.folders = [vault.relative(f) for f in folders]
            # (a folder a new note was adopted into is refreshed for that, not for a rename)
            stale = [f for f in marks if f not in {p.parent for p in adopted} and f not in folders]
            report.manifests = [vault.relative(f) for f in stale]   # (what a dry run would refresh)
            if dry_run or not (adopted or folders or stale):
                return
            for folder in folders:
                try:
                    ensure_folder(vault, folder, written)
                except ReadOnlyFile as exc:   # the person's "leave it alone": asked once, not every pass
                    report.left.append(f"{vault.relative(folder)}: {exc}")
                    report.folders.remove(vault.relative(folder))
                    self._refused.add(folder)
            try:
                refresh_indexes(vault, {p.parent for p in adopted} | set(stale) | (set(folders) - self._refused),
                                written)
            except ReadOnlyFile as exc:
                report.left.append(str(exc))
            for folder in stale:
                if folder / FOLDER_INDEX not in written:
                    self._matching[folder] = marks[folder]   # (read-only, say: tried again once it changes)
            report.manifests = [vault.relative(f) for f in stale if f / FOLDER_INDEX in written]
        report.files = sorted(vault.relative(p) for p in written if p.exists())
        update_after_write(vault, written)
        if autocommit:
            count = len(adopted)
            subject = f"braniac: adopt {count} note{'' if count == 1 else 's'} written by hand"
            if not (adopted or folders):
                subject = "braniac: list the notes a person renamed, moved or deleted by hand"
            lines = report.adopted + [f"{f}/_index.md" for f in report.folders + report.manifests]
            report.commit = commits.commit(written, subject + "\n\n" + "\n".join(lines[:200]) + "\n")

    def _stale_manifests(self, folders: list[Path], now: float, dry_run: bool) -> dict[Path, int]:
        """Of these folders, those quiet for a while whose manifest no longer matches their files
        (each with its mtime); a folder is read only when its mtime changed since its manifest
        last matched."""
        stale = {}
        for folder in folders:
            mark = _mtime_ns(folder)
            if self._matching.get(folder) == mark or 0 <= now - mark / 1e9 < self.quiet:
                continue   # unchanged, or the person may be moving more files (a future mtime: quiet)
            if manifest_out_of_date(self.vault, folder):
                stale[folder] = mark
            elif not dry_run:
                self._matching[folder] = mark
        return stale

    def _adopt(self, path: Path, report: AdoptionReport, dry_run: bool, written: set[Path]) -> bool:
        """Whether `path` was adopted (or, in a dry run, would be) in this pass."""
        rel = self.vault.relative(path)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return False
        signature = (st.st_mtime_ns, st.st_size, st.st_ino)
        if self._known.get(path) == signature:
            return False
        try:
            text, read_at = read_settled(path)
        except (NoteError, LockBusy) as exc:
            report.left.append(f"{rel}: {exc}")
            return False
        if read_at is None:
            return False
        new = adopted_text(text, rel, read_at)
        if new is None or new == text:
            if new is None:
                report.left.append(f"{rel}: its frontmatter cannot be read (braniac doctor says where)")
            self._known[path] = (read_at.st_mtime_ns, read_at.st_size, read_at.st_ino)
            return False
        if time.time() - read_at.st_mtime < self.quiet or not same_version(read_at, st):
            report.waiting.append(rel)   # saved moments ago: the person may still be typing
            return False
        if dry_run:
            return True
        try:
            now = atomic_write(path, new, expect_unchanged=read_at)
        except ConcurrentEdit:
            report.waiting.append(rel)   # a save landed as braniac wrote: it stands, adopted later
            return False
        except ReadOnlyFile:
            report.left.append(f"{rel}: read-only, left as it is")
            self._known[path] = signature
            return False
        written.add(path)
        self._known[path] = (now.st_mtime_ns, now.st_size, now.st_ino)
        return True


def _mtime_ns(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return time.time_ns()


def _mtime(path: Path) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return time.time()


def adopt(vault: "VaultStore", config: "Config", *, quiet_seconds: float = QUIET_SECONDS, dry_run: bool = False,
          holding_ltm: bool = False) -> AdoptionReport:
    """One adoption pass over the whole vault (`holding_ltm`: the caller holds the LTM lock)."""
    return Adopter(vault, config, quiet_seconds=quiet_seconds).run(dry_run=dry_run, holding_ltm=holding_ltm)
