"""The git bookkeeping of the workers that change long-term memory (promotion, organization).

A run records the paths it is about to write (`.braniac/<worker>/uncommitted.json`) before it
writes them, so that a run killed before its commit leaves a list the next run commits first.
Each commit names exactly the paths the worker wrote: a person's unrelated changes in the
working tree are never swept into braniac's commits.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from ..infra import git
from ..infra.fsio import atomic_write
from ..vault.store import VaultStore


class WorkerCommits:
    def __init__(self, vault: VaultStore, worker: str):
        self.vault = vault
        self.pending = vault.state_dir / worker / "uncommitted.json"

    def recorded(self) -> set[Path] | None:
        """The paths a killed run left uncommitted; None when there is no (readable) record."""
        try:
            return {self.vault.root / p for p in json.loads(self.pending.read_text(encoding="utf-8"))}
        except (OSError, ValueError, TypeError):
            return None

    def remember(self, paths: Iterable[Path]) -> set[Path]:
        """Add paths to the record (durably, before they are written); returns all recorded."""
        known = set(paths) | (self.recorded() or set())
        self.pending.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.pending, json.dumps(sorted(str(p.relative_to(self.vault.root)) for p in known)))
        return known

    def commit(self, paths: Iterable[Path], message: str) -> str | None:
        """Commit these paths and any recorded ones; the short hash, or None if nothing changed."""
        known = self.remember(paths)
        committed = git.commit_paths(self.vault.root, existing(known), message)
        self.clear()
        return head(self.vault) if committed else None

    def clear(self) -> None:
        self.pending.unlink(missing_ok=True)


def commit_now(vault: VaultStore, paths: Iterable[Path], message: str) -> str | None:
    """Commit exactly these paths; the short hash, or None if nothing changed."""
    return head(vault) if git.commit_paths(vault.root, set(paths), message) else None


def head(vault: VaultStore) -> str:
    return git.run(vault.root, "rev-parse", "--short", "HEAD").stdout.strip()


def existing(paths: Iterable[Path]) -> set[Path]:
    """The recorded paths that were written. A run killed early recorded targets it never created,
    and `git add -- <path>` fails on a path that neither exists nor is tracked, which would make
    every later run fail. The workers that record never delete a recorded file, so the rest can
    be dropped."""
    return {Path(p) for p in paths if Path(p).exists()}
