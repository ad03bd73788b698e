"""One `braniac sync`: commit what is uncommitted, fetch, merge (never a rebase, never a force),
repair what the merge requires, push; again from the fetch when another machine pushed first.

It holds the LTM lock for the whole run (promotion and organization skip meanwhile, and a second
sync skips), and the STM lock while git changes files (reflection waits a moment). A merge git
cannot finish is resolved file by file (`resolve`); what stays in conflict is left to the person
as an ordinary git conflict, the merge unfinished and nothing pushed: no worker runs until the
next `braniac sync` finds it resolved and finishes it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...infra import git
from ...infra.errors import BraniacError, LockBusy
from ...infra.fsio import create_file, locked, read_text, update_text
from ...search.index import SearchIndex
from ..commits import commit_leftovers, commit_now
from . import renumber as numbering
from .repair import after_merge
from .report import RemoteSyncReport
from .resolve import Resolution, made_on_both, relink_aliases, resolve_conflicts

if TYPE_CHECKING:
    from ...vault.store import VaultStore

ATTEMPTS = 5          # pushes tried when other machines keep pushing first
ATTRIBUTES = ("logs/*.log merge=union",)   # lines a plain `git pull` merges right too
_RETRY = ("rejected", "fetch first", "non-fast-forward", "cannot lock ref", "failed to update ref",
          "failed to lock")


def sync(vault: "VaultStore", *, remote: str | None = None, push: bool = True) -> RemoteSyncReport:
    root = vault.root
    if not git.is_repo(root):
        raise BraniacError(f"{root} is not in git; share it with `braniac init --git --remote URL` "
                           "(a new vault) or `git init` and `git remote add origin URL`")
    report = RemoteSyncReport(remote=remote or "origin")
    if git.remote_url(root, report.remote) is None:
        raise BraniacError(f"this vault has no git remote {report.remote!r}; add one with "
                           f"`git remote add {report.remote} URL` (a private repository on any git host)")
    branch = git.current_branch(root)
    if branch is None:
        raise BraniacError("the vault's git repository is not on a branch (detached HEAD); "
                           "`git switch main` (or your branch) and sync again")
    report.branch = branch
    try:
        with locked(vault.lock_path("ltm"), timeout=0, what="long-term memory"):
            _sync(vault, report, push)
    except LockBusy:
        report.status, report.reason = "skipped", "a promotion, organization or another sync holds the vault"
        return report
    if report.received or report.resolved:
        index = SearchIndex(vault)
        try:
            index.sync()
        finally:
            index.close()
    return report


def _sync(vault: "VaultStore", report: RemoteSyncReport, push: bool) -> None:
    root = vault.root
    if git.merge_in_progress(root) and not _finish_merge(vault, report):
        return
    commit_leftovers(vault)   # what a killed promotion or organization left uncommitted
    with locked(vault.lock_path("stm"), what="short-term memory"):
        # event ids a killed sync had begun to renumber: finished before anything else is
        # committed, so no commit holds a citation half moved to the new id
        _commit_renumbering(vault, report, numbering.finish_pending(vault))
    for attempt in range(1, ATTEMPTS + 1):
        report.attempts = attempt
        with locked(vault.lock_path("stm"), what="short-term memory"):
            _ensure_attributes(vault)
            report.committed = _commit_all(vault, "braniac: sync: changes made on this machine") or report.committed
        theirs = _fetch(root, report.remote, report.branch)
        if theirs is not None:
            with locked(vault.lock_path("stm"), what="short-term memory"):
                _merge(vault, report, theirs)
            if report.conflicts:
                report.status = "conflicts"
                return
        if not push:
            report.status = "offline"
            return
        if theirs is not None and git.rev(root, "HEAD") == theirs:
            report.status = "synced" if report.received else "up-to-date"
            return
        if _push(root, report.remote, report.branch, first=theirs is None):
            report.sent = True
            report.status = "synced"
            return
    raise BraniacError(f"could not push to {report.remote}/{report.branch}: other machines kept pushing "
                       f"first ({ATTEMPTS} tries); run `braniac sync` again")


def _fetch(root, remote: str, branch: str) -> str | None:
    """The remote branch's commit, fetched; None when the remote has no such branch yet."""
    tracking = f"refs/remotes/{remote}/{branch}"
    result = git.run_quiet(root, "fetch", "-q", "--no-tags", remote, f"+refs/heads/{branch}:{tracking}", check=False)
    if result.returncode != 0:
        said = result.stderr.strip()
        if "couldn't find remote ref" in said:
            return None
        raise BraniacError(f"could not fetch from {remote}: {(said.splitlines() or ['exit ' + str(result.returncode)])[-1]}")
    return git.rev(root, tracking)


def _merge(vault: "VaultStore", report: RemoteSyncReport, theirs: str) -> None:
    root = vault.root
    ours = git.rev(root, "HEAD")
    base = git.run(root, "merge-base", ours, theirs, check=False).stdout.strip() or None
    if base == theirs:
        return                              # nothing new over there
    if base is None:
        raise BraniacError(f"{report.remote}/{report.branch} holds another vault (no history in common with this "
                           "one); set this machine up with `braniac clone URL PATH` instead")
    report.received += int(git.run(root, "rev-list", "--count", f"{ours}..{theirs}").stdout.strip() or 0)
    if base == ours:
        git.run_quiet(root, *git.identity(root), "merge", "-q", "--ff-only", theirs)
        return
    collisions, taken = numbering.colliding(root, base, ours, theirs)
    if collisions:
        _commit_renumbering(vault, report, numbering.renumber(vault, collisions, taken, theirs))
        ours = git.rev(root, "HEAD")
    changed = set(git.changed_between(root, base, ours)) | set(git.changed_between(root, base, theirs))
    merged = git.run_quiet(root, *git.identity(root), "merge", "-q", "--no-ff", "--no-commit", "--no-edit", theirs, check=False)
    if merged.returncode != 0 and not git.unmerged(root):
        git.run_quiet(root, "merge", "--abort", check=False)
        said = (merged.stderr.strip() or merged.stdout.strip()).splitlines()
        raise BraniacError(f"git could not merge {report.remote}/{report.branch}: {said[-1] if said else 'unknown error'}")
    resolution = resolve_conflicts(vault)
    _take(report, resolution)
    _repair(vault, report, changed)
    # a note under two names until the person keeps one: the conflict says so already
    report.duplicates = [line for line in report.duplicates if not any(rel in line for rel in resolution.held)]
    if resolution.conflicts:
        report.conflicts = resolution.conflicts
        return
    report.merge = _commit_merge(vault, report)


def _finish_merge(vault: "VaultStore", report: RemoteSyncReport) -> bool:
    """A merge left unfinished: by a sync that stopped for the person, or by one killed before it
    had merged every file. What braniac merges by structure is merged from git's stages, as the
    uninterrupted sync would have; any other file counts once the person removed its markers."""
    root = vault.root
    with locked(vault.lock_path("stm"), what="short-term memory"):
        resolution = resolve_conflicts(vault)
        _take(report, resolution)
        for rel in resolution.conflicts:
            if rel in resolution.held:
                continue          # one note still under two names: the person keeps one
            try:
                resolved = not git.marker_line(read_text(root / rel))
            except (OSError, BraniacError):
                resolved = not (root / rel).exists()
            if resolved:
                git.run(root, "add", "-A", "--", rel)
        left = git.unmerged(root)
        if left:   # (the old name of a note renamed twice is no file to edit)
            report.conflicts = sorted(set(resolution.conflicts) & set(left)) or sorted(left)
            report.status = "conflicts"
            return False
        theirs = git.rev(root, "MERGE_HEAD")
        ours = git.rev(root, "HEAD")
        base = git.run(root, "merge-base", ours, theirs, check=False).stdout.strip() if theirs else ""
        changed = set(git.changed_between(root, base, ours)) | set(git.changed_between(root, base, theirs)) if base else set()
        if theirs:
            report.received += int(git.run(root, "rev-list", "--count", f"HEAD..{theirs}").stdout.strip() or 0)
        if base:   # links to a note made on both machines, in case the killed sync had not re-aimed them
            aliases = made_on_both(vault, base, ours, theirs)
            if aliases:
                relink_aliases(vault, aliases)
        _repair(vault, report, changed)
        report.merge = _commit_merge(vault, report)
    return True


def _take(report: RemoteSyncReport, resolution: Resolution) -> None:
    report.resolved += resolution.resolved
    report.renamed_twice += resolution.renamed
    report.two_names = sorted(resolution.held)


def _repair(vault: "VaultStore", report: RemoteSyncReport, changed: set[str]) -> None:
    written, report.duplicates = after_merge(vault, changed)
    if written:
        git.run(vault.root, "add", "-A", "--", *sorted(vault.relative(p) for p in written))


def _commit_merge(vault: "VaultStore", report: RemoteSyncReport) -> str:
    git.run_quiet(vault.root, *git.identity(vault.root), "commit", "-q", "--no-edit", "-m",
                  f"braniac: sync with {report.remote}/{report.branch}")
    return git.rev(vault.root, "HEAD")[:12]


def _commit_renumbering(vault: "VaultStore", report: RemoteSyncReport, renamed: dict[str, str]) -> None:
    if not renamed:
        return
    report.renumbered.update(renamed)
    commit_now(vault, numbering.files_changed(vault, renamed), numbering.message(renamed))
    numbering.forget(vault)   # only once committed: a kill before this finishes it next time


def _commit_all(vault: "VaultStore", message: str) -> str | None:
    """Commit every change in the working tree (what a person or a worker left uncommitted)."""
    root = vault.root
    git.run(root, "add", "-A")
    if git.run(root, "diff", "--cached", "--quiet", check=False).returncode == 0:
        return None
    git.run_quiet(root, *git.identity(root), "commit", "-q", "--no-verify", "-m", message)
    return git.rev(root, "HEAD")[:12]


def _push(root, remote: str, branch: str, *, first: bool) -> bool:
    """Whether the push landed; False when the remote moved meanwhile (fetch and merge again)."""
    args = ["push", "--porcelain", *(["-u"] if first else []), remote, f"HEAD:refs/heads/{branch}"]
    result = git.run_quiet(root, *args, check=False)
    if result.returncode == 0:
        return True
    said = f"{result.stdout}\n{result.stderr}"
    if any(word in said for word in _RETRY):
        return False
    lines = [line for line in result.stderr.strip().splitlines() if line.strip()]
    raise BraniacError(f"could not push to {remote}: {lines[-1] if lines else 'exit ' + str(result.returncode)}")


def _ensure_attributes(vault: "VaultStore") -> None:
    """The vault's `.gitattributes` asks git to union the logs (so a plain `git pull` does too)."""
    path = vault.root / ".gitattributes"
    wanted = "".join(f"{line}\n" for line in ATTRIBUTES)
    if create_file(path, wanted):
        return

    def add(text: str) -> str:
        missing = [line for line in ATTRIBUTES if line not in text.splitlines()]
        return text if not missing else text.rstrip("\n") + ("\n" if text.strip() else "") + "".join(f"{m}\n" for m in missing)
    update_text(path, add)
