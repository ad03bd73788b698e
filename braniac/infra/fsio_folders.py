"""fsio for whole folders: `swap_directory`, `publish_directory`, `remove_directory` for
folders that appear or go in one rename, `copy_tree` for a scratch copy, `remove_tree` and
`remove_stale_temps` for braniac's own scratch and what killed writers left behind. Like fsio's
own, each first announces the files it is about to change (`fsio.announcing`)."""
from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
from pathlib import Path

from .checked import discard_stale_temp
from .fsio import TEMP_SUFFIX, _fsync_dir, stale_temp_files
from .intents import announce


def _files_under(folder: Path, as_under: Path | None = None) -> list[Path]:
    """The files under `folder` (named as under `as_under`, where they are going)."""
    found = []
    for here, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(here) / name
            found.append(path if as_under is None else Path(as_under) / path.relative_to(folder))
    return found


def swap_directory(staging: Path, target: Path) -> None:
    """Put a fully built directory in place of `target` (the search index after a rebuild):
    readers see the old one or the new one, and the old one is removed afterwards."""
    old = target.with_name(f"{target.name}.old-{os.getpid()}-{secrets.token_hex(2)}")
    if target.exists():
        os.replace(target, old)
    os.replace(staging, target)
    _fsync_dir(target.parent)
    shutil.rmtree(old, ignore_errors=True)


def copy_tree(source: Path, target: Path, *, hard_links: bool = False) -> None:
    """A scratch copy of a folder (organization's staging vault under .braniac/); with
    `hard_links`, files are linked, not copied, which is safe for files braniac only ever
    replaces and never edits in place. A missing source copies nothing. A file that goes away
    while the copy runs (a writer's temp file renamed into place, a note a person deleted) is
    simply not in the copy; any other failure is raised as the OSError it was (a full disk),
    never as shutil's list of errors."""
    failures: list[OSError] = []

    def link_or_copy(src: str, dst: str) -> None:
        try:
            if hard_links:
                with contextlib.suppress(OSError):
                    os.link(src, dst)
                    return
            shutil.copy2(src, dst)
        except OSError as exc:
            if os.path.lexists(src):
                failures.append(exc)
                raise
            # gone meanwhile: not in the copy

    if not Path(source).is_dir():
        return
    try:
        shutil.copytree(source, target, symlinks=True, copy_function=link_or_copy,
                        ignore=shutil.ignore_patterns(f"*{TEMP_SUFFIX}"))
    except shutil.Error as exc:
        if failures:
            raise failures[0] from None
        real = [e for e in exc.args[0] if not (isinstance(e, tuple) and not os.path.lexists(e[0]))]
        if real:   # (a folder that could not be listed or given its permissions)
            raise OSError(f"could not copy {real[0][0]}: {real[0][2]}") from None


def publish_directory(staging: Path, target: Path) -> bool:
    """Move a fully prepared directory (e.g. a new folder with its _index.md) into place in one
    rename, so nobody sees it half made; False if `target` appeared meanwhile (theirs stands,
    and `staging` is removed)."""
    announce(*_files_under(staging, as_under=target))
    try:
        os.rename(staging, target)
        return True
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        return False


def remove_directory(folder: Path) -> None:
    """Remove a folder in one rename out of sight, then delete it: never seen half deleted."""
    announce(*_files_under(folder))
    hidden = folder.with_name(f".{folder.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    os.rename(folder, hidden)
    remove_tree(hidden)


def remove_tree(folder: Path) -> bool:
    """Delete a folder of braniac's own (a scratch copy, a folder out of sight on its way out),
    even where a permission copied along made part of it read-only: what braniac leaves behind
    must never block a later run. False when some of it could not be removed."""
    folder = Path(folder)
    if folder.is_symlink() or not folder.is_dir():
        with contextlib.suppress(FileNotFoundError):
            os.unlink(folder)
        return True
    _make_removable(folder)
    for here, dirs, _files in os.walk(folder):
        for name in dirs:
            _make_removable(Path(here) / name)
    shutil.rmtree(folder, ignore_errors=True)
    return not folder.exists()


def _make_removable(folder: Path) -> None:
    """u+rwx on a real folder (never through a symlink): its entries can be listed and removed."""
    with contextlib.suppress(OSError):
        mode = os.lstat(folder).st_mode
        if stat.S_ISDIR(mode) and mode & stat.S_IRWXU != stat.S_IRWXU:
            os.chmod(folder, stat.S_IMODE(mode) | stat.S_IRWXU)


def remove_stale_temps(root: Path) -> None:
    """Remove what killed writers left under `root`: temp files and half-made folders out of
    sight (`.name.XXXX.braniac-tmp/`). Only for a caller holding the lock every writer there
    takes (the LTM lock for memory/long_term/), so none of them is being written now."""
    for temp in stale_temp_files(root):
        if temp.is_dir() and not temp.is_symlink():
            remove_tree(temp)
        else:
            with contextlib.suppress(FileNotFoundError):
                discard_stale_temp(temp)   # (or inside a folder removed just before)
