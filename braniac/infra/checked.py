"""The writes that must find a file as braniac read it, offered by fsio: a replacement that is
undone when a person's save landed meanwhile (`replace_unchanged`, behind `atomic_write`'s
`expect_unchanged`), and the removal of a moved note's old copy only as it was copied
(`remove_unchanged`, `recover_removal`). A person's content is never deleted: what cannot go
back in place is kept beside it, under a visible name.
"""
from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import time
from pathlib import Path
from typing import Iterable

from .errors import ReadOnlyFile
from .intents import announce
from .filestate import SETTLE_S, SETTLE_STEP_S, exchange, is_marked_complete, open_for_writing, read_only_message
from .filestate import read_only_mode, refuse_read_only, same_version


class ConcurrentEdit(Exception):
    """The file changed between our read and our write; the caller re-reads and retries."""


def replace_unchanged(temp: Path, path: Path, expected: os.stat_result, written: os.stat_result) -> None:
    """Put `temp` (whose stat is `written`) in place of `path` only if `path` is still the file
    `expected` describes.

    A check followed by a rename leaves a window in which a person's save (their editor's own
    temp file renamed over the note) lands and is then overwritten. Linux closes it: the two
    names are exchanged in one step (renameat2 RENAME_EXCHANGE), and what was at `path` at
    that instant is now at the temp name, where nobody else writes, to be checked at leisure.
    If it is not the file we read, the exchange is undone (theirs back in place, ours deleted
    unless an editor wrote into it meanwhile: `_give_back`) and the caller re-reads; should
    braniac be killed before that, the cleanup after a kill keeps theirs beside the note. The
    file is also checked just before the exchange, so that a save that landed while ours was
    written never sees ours at all. Elsewhere (other systems, a
    file system without the exchange) that check alone narrows the window without closing it.
    """
    # checked again now that ours is written (it took a write and an fsync): a save that landed
    # meanwhile, or an editor holding the file open to save it, is found before the exchange.
    # An exchange given back is not harmless: for its microseconds, a reader (an editor
    # loading the file) sees our stale version, and stat before and after cannot tell.
    try:
        if not same_version(os.stat(path), expected) or open_for_writing(path):
            raise ConcurrentEdit(path)
    except FileNotFoundError:
        raise ConcurrentEdit(path) from None  # deleted since our read
    # from the exchange on, what is at the temp name may be a save of a person's that landed
    # after the check: under a held name, cleanup after a kill keeps it unless braniac wrote it
    temp = _held(temp)
    try:
        swapped = exchange(temp, path)
    except FileNotFoundError:
        os.unlink(temp)   # ours: nothing was exchanged
        raise ConcurrentEdit(path) from None  # deleted since our read
    except BaseException:
        if os.lstat(temp).st_ino == written.st_ino:
            os.unlink(temp)
        raise
    if not swapped:
        os.replace(temp, path)   # (checked just above: a window narrowed, not closed)
        return
    # an editor that checked the file and is about to write it in place still has it open:
    # unlinked now, its save would go nowhere, so it gets its file back
    closed, displaced = _closed_then_stat(temp)
    if closed and same_version(displaced, expected) and not read_only_mode(displaced):
        os.unlink(temp)  # the version we read, which our new text replaces
        # an editor that checked the file before the exchange and renamed its save over it just
        # after replaced ours: its save stays, and the caller re-reads (a chaos run lost an event so)
        try:
            if os.lstat(path).st_ino == written.st_ino:
                return
        except FileNotFoundError:
            pass
        raise ConcurrentEdit(path)
    _give_back(temp, path, written)
    if read_only_mode(displaced):
        raise ReadOnlyFile(read_only_message(path))
    raise ConcurrentEdit(path)


def _closed_then_stat(hidden: Path) -> tuple[bool, os.stat_result]:
    """Whether nobody holds a file braniac took out of sight open for writing, then its stat.
    In this order: an editor that opened it before it was taken and finished its save before
    the first check has its writes in the stat; one that finished between a stat and a later
    check would have been missed (a chaos run under load lost a line that way). Nobody can
    open it afterwards: its name is braniac's own."""
    closed = not open_for_writing(hidden)
    return closed, os.lstat(hidden)


def _give_back(temp: Path, path: Path, written: os.stat_result) -> None:
    """Undo an exchange that displaced a save made since our read: theirs goes back in place, and
    the caller re-reads. Nothing a person saved is ever deleted on the way:

    - a save that replaced ours in the instant between is the newest: it stays in place, and
      the one it superseded is kept beside it;
    - for that instant our version was in place, and an editor may have opened it and written
      into it (its writes go to our file, wherever it is): then our file, with their writes, is
      the newest and stays in place, theirs beside it; one still held open for writing is kept
      beside, where the editor's writes stay visible. Only our file as we wrote it, closed, is
      deleted. What the editor wrote may or may not hold our change, so the caller re-reads in
      every case (update_text applies the change again where it is missing)."""
    if not _swap(temp, path):
        return                    # theirs went back under its name (ours was deleted meanwhile)
    # what is out of sight now may be a person's (a save that replaced ours, or ours written
    # into): under a name that cleanup after a kill keeps beside the note, never deletes
    temp = _held(temp)
    if os.lstat(temp).st_ino != written.st_ino:
        if _swap(temp, path):     # the newest save back in place
            _keep_beside(temp, path, "was saved twice while braniac updated it")
        return
    state = _state_of_ours(temp, written)
    if state == "untouched":
        os.unlink(temp)
    elif state == "written into":
        if _swap(temp, path):
            _keep_beside(temp, path, "was saved while braniac updated it, and saved again on braniac's version")
    else:
        _keep_beside(temp, path, "was saved while braniac updated it", "braniac's version, which an editor holds open,")


# What every write is first written as (`.NAME.HEX.braniac-tmp`, beside its target): git-ignored,
# and removed by the cleanup after a kill (`discard_stale_temp`).
TEMP_SUFFIX = ".braniac-tmp"
# A file given back (`_give_back`) waits under this name: still a temp file to git, the watcher
# and doctor, but one that cleanup after a kill keeps beside its note unless braniac wrote it
# whole.
HELD_SUFFIX = ".given-back" + TEMP_SUFFIX


def _held(temp: Path) -> Path:
    if temp.name.endswith(HELD_SUFFIX):
        return temp
    held = temp.with_name(temp.name.removesuffix(TEMP_SUFFIX) + HELD_SUFFIX)
    os.rename(temp, held)
    return held


def holds_a_save(temp: Path) -> bool:
    """Whether a stale temp file is one a give-back was holding that braniac did not write whole:
    a person's save, which cleanup keeps (`discard_stale_temp`)."""
    return temp.name.endswith(HELD_SUFFIX) and not is_marked_complete(os.lstat(temp))


def discard_stale_temp(temp: Path) -> None:
    """A temp file a killed writer left (the caller knows no live writer is using it): deleted,
    but for one a give-back was holding that braniac did not write whole, a person's save: that
    one is kept beside its note as a conflict copy."""
    if holds_a_save(temp):
        name = temp.name[1:-len(HELD_SUFFIX)].rsplit(".", 1)[0]   # (".NAME.HEX" + suffix)
        _keep_beside(temp, temp.with_name(name), "was being saved when braniac was stopped", "that save")
        return
    os.unlink(temp)


def _swap(temp: Path, path: Path) -> bool:
    """Exchange `temp` and `path`; where `path` is gone, `temp` goes there instead (False: then
    nothing is left at `temp`). Should a file appear at `path` meanwhile, `temp` is kept beside."""
    try:
        exchange(temp, path)
        return True
    except FileNotFoundError:
        _link_back(temp, path, "was saved again while braniac updated it")
        return False


def _link_back(hidden: Path, path: Path, why: str) -> None:
    """Put a file braniac holds out of sight back under its name, never over a file that is there
    (a save made meanwhile: then the one held is kept beside it, for `why`)."""
    try:
        os.link(hidden, path)
        os.unlink(hidden)
    except FileExistsError:
        _keep_beside(hidden, path, why)


def _state_of_ours(ours: Path, written: os.stat_result) -> str:
    """Our file, out of sight now: "untouched" (as we wrote it, and closed), "written into" or
    "held open" (unchanged, but still open for writing after SETTLE_S). An editor that opened it
    and finds it is not the version it loaded closes it unchanged: it is waited for, that long,
    rather than taken for a save."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        closed, now = _closed_then_stat(ours)
        if not same_version(now, written):
            return "written into"
        if closed:
            return "untouched"
        if time.monotonic() > deadline:
            return "held open"
        time.sleep(SETTLE_STEP_S)


_CONFLICT_MARK = ".conflict-"
_CONFLICT_COPY = re.compile(rf"(?P<stem>.+){re.escape(_CONFLICT_MARK)}[0-9a-f]{{6}}")


def _keep_beside(displaced: Path, path: Path, why: str, what: str = "the earlier save") -> None:
    """A version that lost its place (a person's save to a newer one of theirs, say): kept next
    to it, visibly."""
    kept = path.with_name(f"{path.stem}{_CONFLICT_MARK}{secrets.token_hex(3)}{path.suffix}")
    os.rename(displaced, kept)
    from .notices import notice
    notice(f"{path} {why}; {what} is kept as {kept.name}")


def kept_beside(path: Path) -> Path | None:
    """The file a conflict copy was kept beside (`_keep_beside`): `ana.md` for
    `ana.conflict-1a2b3c.md`; None for any other file."""
    found = _CONFLICT_COPY.fullmatch(path.stem)
    return path.with_name(found["stem"] + path.suffix) if found else None


def beside_its_note(path: Path) -> bool:
    """A conflict copy whose note is there beside it (a person's own "notes.conflict-240315.md"
    has none)."""
    original = kept_beside(path)
    return original is not None and original.exists()


def uuid_home(held: Path | None, path: Path) -> Path:
    """Of two files carrying one uuid, the one that uuid stands for: `held` (found first) unless
    it is a conflict copy and `path` is not. A copy kept beside its note keeps the note's
    frontmatter, but links, manifests and promotion mean the note, in whatever order the files
    are found, and after a person renamed the note too."""
    return path if held is None or kept_beside(held) is not None and kept_beside(path) is None else held


def uuid_homes(carriers: Iterable[tuple[str, Path]]) -> dict[str, Path]:
    """uuid -> the file it stands for (`uuid_home`), of (uuid, path) pairs in any order."""
    found: dict[str, Path] = {}
    for uuid, path in carriers:
        found[uuid] = uuid_home(found.get(uuid), path)
    return found


def fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


MOVING_SUFFIX = ".braniac-moving"


def _out_of_sight(path: Path) -> Path:
    return path.with_name(f".{path.name}{MOVING_SUFFIX}")


def remove_unchanged(path: Path, expected: os.stat_result, *, check: Path | None = None) -> bool:
    """Remove `path` (the old copy of a moved note, or with `check` a folder holding only the
    file `check`) only if it is still the version `expected` describes. It is first renamed out
    of sight, in one step (a save landing after that makes a new file, which stays), then
    checked; a version saved since the caller read it is put back, and False returned, so the
    caller copies it again. A kill in between leaves it out of sight under a fixed name, and
    `recover_removal` puts it back. A read-only file or folder raises ReadOnlyFile."""
    refuse_read_only(check or path)
    announce(check if check is not None else path)
    hidden = _out_of_sight(path)
    os.rename(path, hidden)
    inside_file = hidden / check.name if check is not None else hidden
    try:
        closed, now = _closed_then_stat(inside_file)
        same = closed and same_version(now, expected) and (check is None or os.listdir(hidden) == [check.name])
    except FileNotFoundError:
        same = False
    if same:
        if check is not None:
            shutil.rmtree(hidden)
        else:
            os.unlink(hidden)
        fsync_dir(path.parent)
        return True
    recover_removal(path)
    return False


def recover_removal(path: Path) -> None:
    """Put back what `remove_unchanged` took out of sight and did not remove (a kill, or a
    version saved meanwhile). Should a newer save be at `path` already, the one taken is kept
    beside it."""
    hidden = _out_of_sight(path)
    if not os.path.lexists(hidden):
        return
    if hidden.is_dir():
        with contextlib.suppress(OSError):
            os.rename(hidden, path)   # (fails, and stays hidden, only if the folder was made again)
        return
    _link_back(hidden, path, "was saved again while braniac moved it")
