"""git for the vault: make it a repository, commit exactly what a worker changed, and the
plumbing `braniac sync` shares a vault through (fetch, merge, conflicts, push)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Iterable

from .errors import BraniacError

# Used only when the person has no git identity configured, so a commit never fails for it.
_FALLBACK_IDENTITY = ("-c", "user.name=braniac", "-c", "user.email=braniac@localhost")


def available() -> bool:
    return shutil.which("git") is not None


def _decoded(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    """Output as text, its line endings as git gave them: a note a person saved with CRLF (and
    its older versions, which undo and sync merge) keeps them, where text mode would make LF."""
    result.stdout = result.stdout.decode("utf-8", "replace")
    result.stderr = result.stderr.decode("utf-8", "replace")
    return result


def run(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    if not available():
        raise BraniacError("git is not installed; install it or run without --git")
    # literal: a note named `[draft].md` or `*.md` is that file, never a pattern for others
    result = _decoded(subprocess.run(["git", "--literal-pathspecs", *args], cwd=root, capture_output=True))
    if check and result.returncode != 0:
        said = (result.stderr.strip() or result.stdout.strip()).splitlines()
        raise BraniacError(f"git {' '.join(args[:3])} failed: {said[0] if said else f'exit {result.returncode}'}")
    return result


def is_repo(root: Path) -> bool:
    return available() and run(root, "rev-parse", "--is-inside-work-tree", check=False).returncode == 0


def _identity_args(root: Path) -> tuple[str, ...]:
    has_name = run(root, "config", "user.name", check=False).stdout.strip()
    has_email = run(root, "config", "user.email", check=False).stdout.strip()
    return () if has_name and has_email else _FALLBACK_IDENTITY


def init(root: Path, message: str) -> None:
    if not is_repo(root):
        run(root, "init", "-q")
    run(root, "add", "-A")
    run(root, *_identity_args(root), "commit", "-q", "--allow-empty", "-m", message)


def commit_paths(root: Path, paths: Iterable[Path], message: str) -> bool:
    """Commit exactly `paths` (added, changed or deleted), leaving other work untouched."""
    root = Path(root).resolve()
    rels = sorted({str(Path(p).absolute().relative_to(root)) for p in paths})
    indexed = set(run(root, "ls-files", "--", *rels).stdout.split("\n")) if rels else set()
    # in HEAD alone: a removal already staged (by a run killed between git's add and its commit)
    in_head = set()
    if rels and run(root, "rev-parse", "--verify", "-q", "HEAD", check=False).returncode == 0:
        in_head = set(run(root, "ls-tree", "-r", "--name-only", "HEAD", "--", *rels).stdout.split("\n"))
    to_add = [r for r in rels if (root / r).exists() or r in indexed]  # `git add` fails on a path it never saw
    rels = [r for r in rels if r in to_add or r in in_head]
    if not rels:
        return False
    if to_add:
        run(root, "add", "-A", "--", *to_add)
    staged = run(root, "diff", "--cached", "--name-only", "--", *rels).stdout.strip()
    if not staged:
        return False
    run(root, *_identity_args(root), "commit", "-q", "-m", message, "--", *rels)
    return True


def show(root: Path, rev: str, rel: str) -> str | None:
    """A file's text at a commit (`rel` relative to `root`), or None where it did not exist."""
    result = run(root, "show", f"{rev}:./{rel}", check=False)
    return result.stdout if result.returncode == 0 else None


# git's own lock on its index: a git process killed while holding it leaves it, and every later
# git command that writes the index fails until it is removed
STALE_LOCK_SECONDS = 60.0


def index_lock(root: Path) -> tuple[Path | None, bool]:
    """git's `index.lock` if there is one, and whether it is stale: no git process runs in this
    repository (read from /proc); without /proc, also older than a minute (when braniac cannot
    tell, it is not stale)."""
    where = run(root, "rev-parse", "--git-path", "index.lock", check=False).stdout.strip()
    if not where:
        return None, False
    lock = Path(where) if Path(where).is_absolute() else Path(root) / where
    try:
        age = time.time() - lock.stat().st_mtime
    except FileNotFoundError:
        return None, False
    if Path("/proc/self/cwd").exists():
        # where /proc tells which git processes work in this vault, a lock none of them holds is
        # stale at once: the next run after a kill must not wait a minute (or fail)
        return lock, not _git_running(Path(root))
    return lock, age >= STALE_LOCK_SECONDS and not _git_running(Path(root))


def _git_running(root: Path) -> bool:
    """Whether a git process may be working in `root` (a person's `git commit` waiting for its
    message editor holds the lock for as long as the editor is open)."""
    proc = Path("/proc")
    if not (proc / "self" / "cwd").exists():
        return _any_git_process()   # no /proc (macOS, BSD): any git process at all
    top = Path(root).resolve()
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = (entry / "comm").read_text().strip()
        except OSError:
            continue   # gone meanwhile
        if not name.startswith("git"):
            continue
        try:
            cwd = Path(os.readlink(entry / "cwd"))
        except FileNotFoundError:
            continue
        except OSError:
            return True   # someone else's git: cannot tell where it works
        if cwd == top or top in cwd.parents:
            return True
    return False


def _any_git_process() -> bool:
    try:
        listing = subprocess.run(["ps", "-axo", "comm="], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return True
    if listing.returncode != 0:
        return True
    return any(Path(line.strip()).name.startswith("git") for line in listing.stdout.splitlines())


# ---------------------------------------------------------------------- remotes (braniac sync)
# Every command below is non-interactive: no editor, no credential prompt (cron has no terminal;
# a prompt would hang it), and the output is read by braniac, never shown raw.
_QUIET_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "true", "GIT_MERGE_AUTOEDIT": "no",
              "GIT_ASKPASS": "true", "SSH_ASKPASS": "true", "LC_ALL": "C"}


def run_quiet(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """`run` without any prompt (network commands, merges)."""
    if not available():
        raise BraniacError("git is not installed; install it to share a vault through a remote")
    env = {**os.environ, **_QUIET_ENV}
    result = _decoded(subprocess.run(["git", *args], cwd=root, capture_output=True, env=env, stdin=subprocess.DEVNULL))
    if check and result.returncode != 0:
        said = (result.stderr.strip() or result.stdout.strip()).splitlines()
        raise BraniacError(f"git {' '.join(args[:2])} failed: {said[-1] if said else f'exit {result.returncode}'}")
    return result


def rev(root: Path, name: str) -> str | None:
    """The full hash `name` stands for, or None."""
    found = run(root, "rev-parse", "--verify", "-q", f"{name}^{{commit}}", check=False)
    return found.stdout.strip() or None if found.returncode == 0 else None


def current_branch(root: Path) -> str | None:
    found = run(root, "symbolic-ref", "-q", "--short", "HEAD", check=False)
    return found.stdout.strip() or None


def remote_url(root: Path, remote: str) -> str | None:
    found = run(root, "remote", "get-url", remote, check=False)
    return found.stdout.strip() or None if found.returncode == 0 else None


MERGE_WAITS = ("a `braniac sync` merge waits for a conflict to be resolved (`braniac sync` lists the files; "
               "run it again once they are edited)")


def merge_in_progress(root: Path) -> bool:
    """Whether a merge waits for its conflicts to be resolved (cheap: no git process when the
    vault's `.git` is a folder)."""
    dot = Path(root) / ".git"
    if dot.is_dir():
        return (dot / "MERGE_HEAD").exists()
    if not dot.exists():
        return False
    where = run(root, "rev-parse", "--git-path", "MERGE_HEAD", check=False).stdout.strip()
    return bool(where) and (Path(root) / where).exists()


# git writes markers of 7 characters, and longer ones for a conflict inside another (8 for the
# line both machines changed in a note each renamed): any length from 7 on is git's
_MARKER_LINE = re.compile(r"^(<{7,}|>{7,})( |$)", re.MULTILINE)
_MARKED_BLOCK = re.compile(r"^<{7,} .*\n(?:.*\n)*?={7,}\n(?:.*\n)*?>{7,}( |$)", re.MULTILINE)


def marker_line(text: str) -> bool:
    """Whether any line of a conflict git wrote is left (the file is not resolved yet)."""
    return _MARKER_LINE.search(text) is not None


def marked_conflict(text: str) -> bool:
    """Whether a whole conflict as git writes it is in the text (<<<, ===, >>> in that order):
    stricter, for files a person's own `>>>>>>>` line may be in."""
    return _MARKED_BLOCK.search(text) is not None


def unmerged(root: Path) -> dict[str, set[int]]:
    """Paths git left in conflict, each with its stages (1 base, 2 ours, 3 theirs)."""
    found: dict[str, set[int]] = {}
    listing = run(root, "ls-files", "-u", "-z", check=False).stdout
    for entry in listing.split("\0"):
        if "\t" not in entry:
            continue
        info, path = entry.split("\t", 1)
        found.setdefault(path, set()).add(int(info.split()[2]))
    return found


def changed_between(root: Path, old: str, new: str) -> list[str]:
    """Paths that differ between two commits (renames as a removal and an addition)."""
    out = run(root, "diff", "--no-renames", "--name-only", "-z", old, new, "--").stdout
    return [p for p in out.split("\0") if p]


def tree_names(root: Path, commit: str, under: str) -> list[str]:
    out = run(root, "ls-tree", "-r", "--name-only", "-z", commit, "--", under, check=False).stdout
    return [p for p in out.split("\0") if p]


def stage_text(root: Path, stage: int, rel: str) -> str | None:
    """A conflicted file's text at one stage (1 base, 2 ours, 3 theirs), or None."""
    result = run(root, "show", f":{stage}:{rel}", check=False)
    return result.stdout if result.returncode == 0 else None


def uncommitted(root: Path, paths: Iterable[Path]) -> list[Path]:
    """Of these files, those whose content differs from HEAD's or that git does not track yet."""
    rels = [str(Path(p).relative_to(root)) for p in paths]
    if not rels:
        return []
    listed = run(root, "status", "--porcelain", "-z", "--untracked-files=all", "--", *rels, check=False).stdout
    found, entries = [], iter(listed.split("\0"))
    for entry in entries:
        if len(entry) > 3:
            found.append(root / entry[3:])
            if entry[0] in "RC":
                next(entries, None)   # (a rename's old path follows it)
    return found


def deleted(root: Path) -> list[Path]:
    """Tracked files gone from the working tree and not committed as gone (each half of a rename
    is its own entry: git pairs renames by similarity, which a note's uuid says better)."""
    listed = run(root, "status", "--porcelain", "-z", "--no-renames", "--untracked-files=no", check=False).stdout
    return [root / entry[3:] for entry in listed.split("\0")
            if len(entry) > 3 and "D" in entry[:2] and not (root / entry[3:]).exists()]


def identity(root: Path) -> tuple[str, ...]:
    return _identity_args(root)


def committed_unchanged(root: Path, rels: list[str]) -> dict[str, int]:
    """For each of `rels` that is as the last commit that changed it left it: when that commit
    was made (seconds since the epoch). Untracked or changed files are left out; so is all when
    there is no repo. Two git processes for all of them."""
    if not rels or not available() or not (root / ".git").exists():
        return {}
    changed = run(root, "diff", "--name-only", "--relative", "HEAD", "--", *rels, check=False)
    if changed.returncode != 0:
        return {}
    dirty = set(changed.stdout.splitlines())
    history = run(root, "log", "--format=%x00%ct", "--name-only", "--relative", "--", *rels, check=False)
    found: dict[str, int] = {}
    when = None
    for line in history.stdout.splitlines():
        if line.startswith("\0"):
            when = int(line[1:]) if line[1:].isdigit() else None
        elif line and when is not None and line not in found:
            found[line] = when
    return {rel: t for rel, t in found.items() if rel in rels and rel not in dirty}
