"""A promotion's bookkeeping around its writes: leftovers of a killed run, the journal of the
run in progress, and its git commits (through the workers' shared `WorkerCommits`)."""
from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, ContextManager

from ...infra import clock, git
from ...infra.fsio import settled_stat, write_derived
from ...infra.fsio_folders import remove_stale_temps
from .. import commits
from ..commits import WorkerCommits
from .report import PromotionReport

if TYPE_CHECKING:
    from ...infra.config import Config
    from ...vault.store import VaultStore

WORKER = "promotion"


def remove_stale_temp_files(vault: "VaultStore") -> None:
    """Temp files and half-made folders a killed run left in long-term memory. Every writer of
    memory/long_term/ holds the LTM lock, which this run holds, so none of them is being written
    now; left alone they would show up in `git status` and in folders that should be empty."""
    remove_stale_temps(vault.ltm_root)


def journal_path(vault: "VaultStore") -> Path:
    return vault.state_dir / WORKER / "pending.json"


def start_journal(vault: "VaultStore", event_ids: list[str]) -> None:
    """Which events the run in progress promotes, and since when. Nothing reads it back (a re-run
    finds its work by the stable paths), so it is derived state."""
    write_derived(journal_path(vault), json.dumps({"events": event_ids, "started": clock.iso(clock.now())}))


def end_journal(vault: "VaultStore") -> None:
    journal_path(vault).unlink(missing_ok=True)


def checkpoint(vault: "VaultStore") -> None:
    """Reflection never commits, so the events a promotion consumes are usually only in the
    working tree: commit short_term.md as it is now (with any files a killed run left
    uncommitted) before writing anything, so that `git revert` of the promotion's own commit
    brings the events back into short-term memory instead of losing them. A save in place
    under way is waited for first: the checkpoint is a whole version of the file."""
    if WorkerCommits(vault, WORKER).recorded() is not None:
        with contextlib.suppress(OSError):
            settled_stat(vault.stm_path)
        commits.commit_leftovers(vault, also={vault.stm_path}, worker=WORKER)
    else:
        commits.commit_leftovers(vault)   # an interrupted organize run's, if any
        commits.keep_short_term(vault, "promotion")


def commit_leftovers(vault: "VaultStore", config: "Config") -> str | None:
    """A run killed before its commit left files uncommitted; the next run commits them."""
    records = [vault.state_dir / worker / name for worker in commits.INTERRUPTED
               for name in (commits.RECORD, commits.LEGACY_RECORD)]
    if not (any(r.exists() for r in records) and config.git_autocommit and git.is_repo(vault.root)):
        return None
    return commits.commit_leftovers(vault)


def recording(vault: "VaultStore", on: bool) -> ContextManager:
    """Record every file the run changes (when it commits), so that a run killed midway still
    gets all of them committed, the link repairs of a move and its removals included."""
    return WorkerCommits(vault, WORKER).recording() if on else contextlib.nullcontext()


def keep_persons_edits(vault: "VaultStore", targets: set[Path]) -> None:
    """What a person changed and did not commit in the files this run will write (a line they
    added to a note, a note of theirs promotion writes into): committed as theirs first, so that
    undoing the promotion takes back only what braniac wrote, never their edits."""
    commits.keep_persons_edits(vault, targets - {vault.stm_path}, "promotion")


def remember_targets(vault: "VaultStore", targets: set[Path]) -> None:
    """Record what the run is about to write, before any write."""
    WorkerCommits(vault, WORKER).remember(targets)


def commit_promotion(vault: "VaultStore", written: set[Path], report: PromotionReport) -> str | None:
    created = ", ".join(Path(p).stem for p in report.notes_created[:8])
    message = (f"braniac: promote {len(report.events)} events into long-term memory\n\n"
               + (f"New notes: {created}\n" if created else "")
               + (f"Updated notes: {len(report.notes_updated)}\n" if report.notes_updated else "")
               + f"Claims: {report.claims['added']} added, {report.claims['strengthened']} strengthened, "
                 f"{report.claims['superseded']} superseded\n"
               + f"Events: {report.events[-1]} … {report.events[0]}\n")
    # with what it refused and what the model got wrong (logged while the model thought,
    # before anything was recorded)
    logs = {vault.logs_dir / "promotion.log", vault.logs_dir / "model.log"}
    return WorkerCommits(vault, WORKER).commit(written | logs, message)
