"""One organization run: finish what a killed run left, read the access logs, have the model
propose a plan, check it, pass it through the retrieval gate, apply it, rotate the log and
commit, all under the long-term-memory lock."""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import clock, git
from ...infra.errors import BraniacError, LockBusy, ReadOnlyFile
from ...infra.fsio import append_line, locked, refuse_read_only
from ...infra.fsio_folders import remove_stale_temps
from ...infra.notices import notice
from ...model import MemoryModel
from ...model.offline import OfflineModel
from ...model.organization_types import OrganizationPlan, OrganizationRequest
from ...search.index import update_after_write
from ...vault.layout import FOLDER_INDEX
from ...vault.moves import finish, pending, referrers
from ...vault.usage import read_usage
from ..adoption import adopt
from ..commits import WorkerCommits, commit_leftovers
from .apply import apply, note_moves
from .gate import clear_staging, gate
from .operations import Operation, Rejected, Relocation, parse, without_conflicts
from .report import OrganizeReport
from .rotation import finish_rotation, refuse_unsafe_log, rotate
from .writable import writable_only

if TYPE_CHECKING:
    from ...infra.config import Config
    from ...vault.store import VaultStore

WORKER = "organization"
ARCHIVE_AFTER_DAYS = 180
MAX_OPERATIONS = 500
MAX_COMMIT_LINES = 200


def organize(vault: "VaultStore", config: "Config", *, model: MemoryModel | None = None, dry_run: bool = False,
             archive_after_days: float | None = None) -> OrganizeReport:
    """Organize long-term memory from its use (with the offline engine when no model is given)."""
    report = OrganizeReport()
    try:
        with locked(vault.lock_path("ltm"), timeout=0, what="long-term memory"):
            return _organize(vault, config, OfflineModel() if model is None else model, report, dry_run,
                             ARCHIVE_AFTER_DAYS if archive_after_days is None else archive_after_days)
    except LockBusy:
        report.status, report.reason = "skipped", "another organization or promotion is running"
        return report


def _organize(vault, config, model, report, dry_run, archive_days) -> OrganizeReport:
    if git.merge_in_progress(vault.root):   # no worker touches files a person must merge first
        report.status, report.reason = "skipped", git.MERGE_WAITS
        return report
    written: set[Path] = set()
    refuse_unsafe_log(vault)   # before anything changes
    autocommit = not dry_run and config.git_autocommit and git.is_repo(vault.root)
    commits = WorkerCommits(vault, WORKER)
    if not dry_run:   # what killed runs left (we hold the LTM lock: no writer runs)
        remove_stale_temps(vault.ltm_root)
        clear_staging(vault)
    recording = commits.recording if autocommit else contextlib.nullcontext
    with recording():   # what a killed run left half done
        leftovers = pending(vault)
        if leftovers and not dry_run:
            notice(f"finishing {len(leftovers)} moves of an interrupted organize run")
            note_moves(vault, leftovers)   # (perhaps again: noting a move twice changes nothing)
            finish(vault, leftovers, written)
        finish_rotation(vault)
    if autocommit:   # what killed runs changed, committed before anything new
        report.commit = commit_leftovers(vault, also=written, worker=WORKER)
        written = set()
    if not dry_run:   # notes written by hand first become memories (a commit of their own)
        adoption = adopt(vault, config, holding_ltm=True)
        report.adopted = adoption.adopted
        if adoption.adopted or adoption.folders:
            notice(adoption.describe())
    with recording():
        history = read_usage(vault.logs_dir)
        recent = read_usage(vault.logs_dir, only_current=True)
        report.log_lines, report.malformed_log_lines = recent.lines, len(recent.malformed)
        plan = _propose(model, OrganizationRequest(vault, history, recent, archive_days))
        operations = without_conflicts(_writable(vault, _checked(vault, plan, report), report))
        operations = writable_only(vault, operations, lambda reason: _reject(vault, report, reason))
        report.operations = operations
        if dry_run:
            report.status = "dry-run"
            return report
        if any(isinstance(op, Relocation) for op in operations):
            operations = gate(vault, history, operations, report)
            report.operations = operations
        if operations:
            apply(vault, operations, written)
        if rotate(vault):
            written |= {vault.access_log_path, *vault.access_log_path.parent.glob("access-*.log")}
        vault.record_run("organization")
        report.files = sorted(vault.relative(p) for p in written if p.exists())
        if written:
            update_after_write(vault, written)
        if autocommit:
            report.commit = _commit(commits, written, operations) or report.commit
    if report.status != "gated":
        report.status = "done"
    return report


def _propose(model: MemoryModel, request: OrganizationRequest) -> OrganizationPlan:
    try:
        return model.propose_organization(request)
    except BraniacError as exc:
        notice(f"the model could not propose a plan ({exc}); using the statistics alone")
    return OfflineModel().propose_organization(request)


def _checked(vault: "VaultStore", plan: OrganizationPlan, report: OrganizeReport) -> list[Operation]:
    """The plan's operations that pass the schema and the vault's bounds; the rest are rejected."""
    # the limit bounds what a model may ask for; braniac's own plan is bounded by the vault (cut,
    # its tail would land over the next runs: a second run without new use would still move)
    limit = len(plan.operations) if plan.from_statistics_alone else MAX_OPERATIONS
    operations = []
    for raw in plan.operations[:limit]:
        try:
            operations.append(parse(vault, raw))
        except Rejected as rejection:
            _reject(vault, report, str(rejection))
    if len(plan.operations) > limit:
        _reject(vault, report, f"{len(plan.operations) - limit} operations beyond the limit of {limit} ignored")
    return operations


def _writable(vault: "VaultStore", operations: list[Operation], report: OrganizeReport) -> list[Operation]:
    """The operations that change no file a person made read-only; the others are rejected. A
    link writes both notes; a move or an archive takes the note out of its folder and that
    folder's _index.md, puts it in a folder that may have to be made, and repairs every link
    to it (a person's read-only note linking to it included)."""
    moved = [vault.root / op.path for op in operations if isinstance(op, Relocation)]
    linking = referrers(vault, moved) if moved else {}
    kept = []
    for op in operations:
        if isinstance(op, Relocation):
            old = vault.root / op.path
            touched = [old, old.parent / FOLDER_INDEX, vault.root / op.to, *sorted(linking.get(old, ()))]
        else:
            touched = [vault.root / op.a, vault.root / op.b]
        try:
            for path in touched:
                refuse_read_only(path)
        except ReadOnlyFile as exc:
            _reject(vault, report, f"{op.summary()}: {exc}")
            continue
        kept.append(op)
    return kept


def _reject(vault: "VaultStore", report: OrganizeReport, reason: str) -> None:
    report.rejected.append(reason)
    log = vault.logs_dir / "organize.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    append_line(log, f"{clock.iso(clock.now())} | REJECTED | {reason}")


def _commit(commits: WorkerCommits, written: set[Path], operations: list[Operation]) -> str | None:
    lines = [op.summary() for op in operations[:MAX_COMMIT_LINES]]
    message = "braniac: organize long-term memory\n\n" + "\n".join(lines) + "\n"
    # with the lines of logs/model.log the model's plan may have added (what it got wrong)
    return commits.commit(written | {commits.vault.logs_dir / "model.log"}, message)
