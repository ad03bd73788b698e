"""git for the vault: make it a repository, and commit exactly what a worker changed."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterable

from .errors import BraniacError
from .fsio import write_derived

# Used only when the person has no git identity configured, so a commit never fails for it.
_FALLBACK_IDENTITY = ("-c", "user.name=braniac", "-c", "user.email=braniac@localhost")


def available() -> bool:
    return shutil.which("git") is not None


def run(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    if not available():
        raise BraniacError("git is not installed; install it or run without --git")
    result = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise BraniacError(f"git {' '.join(args)} failed: {result.stderr.strip() or result.stdout.strip()}")
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
    tracked = set(run(root, "ls-files", "--", *rels).stdout.split("\n")) if rels else set()
    rels = [r for r in rels if (root / r).exists() or r in tracked]  # `git add` fails on a path it never saw
    if not rels:
        return False
    run(root, "add", "-A", "--", *rels)
    staged = run(root, "diff", "--cached", "--name-only", "--", *rels).stdout.strip()
    if not staged:
        return False
    run(root, *_identity_args(root), "commit", "-q", "-m", message, "--", *rels)
    return True


def show(root: Path, rev: str, rel: str) -> str | None:
    """A file's text at a commit (`rel` relative to `root`), or None where it did not exist."""
    result = run(root, "show", f"{rev}:./{rel}", check=False)
    return result.stdout if result.returncode == 0 else None


def merge_texts(current: str, base: str, other: str) -> str | None:
    """Three-way merge of text: the changes from `base` to `other` applied to `current`
    (`git merge-file`), or None when they conflict (never a file with conflict markers)."""
    with tempfile.TemporaryDirectory(prefix="braniac-merge-") as scratch:
        files = []
        for name, text in (("current", current), ("base", base), ("other", other)):
            path = Path(scratch) / name
            write_derived(path, text)
            files.append(str(path))
        result = subprocess.run(["git", "merge-file", "-p", "--quiet", *files], capture_output=True, text=True)
    return result.stdout if result.returncode == 0 else None
