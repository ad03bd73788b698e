"""The worker runs a person can undo: braniac's own promotion and organization commits, read
back from `git log` (the audit trail is the list; nothing else records runs)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...infra import git
from ...infra.errors import InputError
from ..sync import renumber as renumbering

if TYPE_CHECKING:
    from ...vault.store import VaultStore

PROMOTION, ORGANIZATION = "promotion", "organization"
UNDO_SUBJECT = "braniac: undo "
UNDOES = "Undoes:"   # the trailer an undo commit carries, naming the run it undid

# what each worker's commit subject starts with (processes/promotion/bookkeeping.py and
# processes/organization/run.py write them)
_KINDS = (("braniac: promote ", PROMOTION), ("braniac: finish an interrupted promotion", PROMOTION),
          ("braniac: organize ", ORGANIZATION))
_FIELD, _RECORD = "\x1f", "\x1e"


@dataclass(frozen=True)
class WorkerRun:
    commit: str        # full hash
    kind: str          # PROMOTION or ORGANIZATION
    date: str          # ISO 8601, the commit's
    subject: str
    undone_by: str | None = None

    @property
    def short(self) -> str:
        return self.commit[:8]

    def as_dict(self) -> dict:
        return {"commit": self.commit, "kind": self.kind, "date": self.date, "subject": self.subject,
                "undone_by": self.undone_by}


def _kind(subject: str) -> str | None:
    return next((kind for prefix, kind in _KINDS if subject.startswith(prefix)), None)


def _log(vault: "VaultStore", *extra: str) -> list[tuple[str, str, str, str]]:
    """(hash, date, subject, body) of the commits that touched the vault, newest first."""
    fmt = _FIELD.join(("%H", "%aI", "%s", "%b")) + _RECORD
    out = git.run(vault.root, "log", f"--format={fmt}", *extra, "--", ".").stdout
    records = []
    for record in out.split(_RECORD):
        parts = record.strip("\n").split(_FIELD)
        if len(parts) == 4:
            records.append((parts[0], parts[1], parts[2], parts[3]))
    return records


def list_runs(vault: "VaultStore", *, limit: int = 20) -> list[WorkerRun]:
    """The most recent worker runs, newest first, each marked with the undo that undid it."""
    undone: dict[str, str] = {}
    runs: list[WorkerRun] = []
    for commit, date, subject, body in _log(vault):
        if subject.startswith(UNDO_SUBJECT):
            for target in re.findall(rf"^{UNDOES}\s*([0-9a-f]{{40}})\s*$", body, re.M):
                undone.setdefault(target, commit)
            continue
        kind = _kind(subject)
        if kind is not None and len(runs) < limit:
            runs.append(WorkerRun(commit, kind, date, subject, undone.get(commit)))
    # an undo is newer than its run, so every undo was seen before the run it names
    return runs


def lines_written(vault: "VaultStore", run: WorkerRun, renamed: dict[str, str] | None = None) -> set[str]:
    """Every line braniac's runs added from `run` on (its line endings cut): a line not among them
    is one the person wrote or changed. Renames are followed, so a note a run moved does not
    count the person's lines in it as braniac's; so are event ids sync renumbered (`renamed`)."""
    out = git.run(vault.root, "log", f"--format={_RECORD}%s", "-p", "-U0", "-M", "--no-color", "--no-ext-diff",
                  f"{run.commit}~1..HEAD", "--", ".").stdout
    found: set[str] = set()
    for record in out.split(_RECORD)[1:]:
        subject, _, patch = record.partition("\n")
        if _kind(subject) is not None:
            found.update(line[1:].rstrip("\r") for line in patch.split("\n")
                         if line.startswith("+") and not line.startswith("+++ "))
    if renamed:
        found |= {renumbering.replaced(line, renamed) for line in found}
    return found


def renumbered_since(vault: "VaultStore", run: WorkerRun) -> dict[str, str]:
    """old -> new of the event ids `braniac sync` renumbered on this machine after `run` (another
    machine had made the same id), so the run's events are found under the ids they have now.
    Only commits made on top of the run count: a renumbering the other machine made, merged in
    since, was of its own events, not of this run's."""
    out = git.run(vault.root, "log", "--reverse", "--ancestry-path", f"--format=%s{_FIELD}%b{_RECORD}",
                  f"{run.commit}..HEAD").stdout
    renamed: dict[str, str] = {}
    for record in out.split(_RECORD):
        subject, _, body = record.strip("\n").partition(_FIELD)
        for old, new in renumbering.recorded(subject, body).items():
            # an id renumbered twice (a third machine) is followed to the last one
            earlier = [k for k, v in renamed.items() if v == old]
            for key in earlier or [old]:
                renamed[key] = new
    return renamed


def require_repo(vault: "VaultStore") -> None:
    if not git.is_repo(vault.root):
        raise InputError("undo works on a vault kept in git (braniac init --git, or `git init` in the vault): "
                         "without git braniac keeps no record of what a run changed")


def resolve(vault: "VaultStore", ref: str | None) -> WorkerRun:
    """The run a person named (any commit-ish: a hash, HEAD~2), or the latest one not undone."""
    require_repo(vault)
    runs = list_runs(vault, limit=10_000)
    if ref is None:
        run = next((r for r in runs if r.undone_by is None), None)
        if run is None:
            raise InputError("there is no promotion or organization to undo in this vault's git history")
        return run
    found = git.run(vault.root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    full = found.stdout.strip()
    if found.returncode != 0 or not full:
        raise InputError(f"{ref!r} is not a commit of this vault's git repository (see `braniac undo --list`)")
    run = next((r for r in runs if r.commit == full), None)
    if run is None:
        raise InputError(f"{ref} is not a promotion or organization run; `braniac undo` undoes only braniac's "
                         "own runs (see `braniac undo --list`; for anything else use git)")
    if run.undone_by:
        raise InputError(f"run {run.short} was already undone by {run.undone_by[:8]}")
    return run
