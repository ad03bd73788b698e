"""short_term.md under many writers at once: `remember` loops, promotions and a person saving it
in place (issue 15, the "everything at once" run). Each test stops a real braniac process at the
instant that matters (a hook set in the child only) and makes the person's move while it waits.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from braniac.infra import fsio
from braniac.infra.filestate import SETTLE_S
from braniac.vault import stm

import forked
from test_person_edits import PERSON_FACT, _pair, save_by_rename, spawn, with_person_fact

def wait_for_any(flags: list[Path], child: forked.Forked, timeout: float = 30.0) -> Path:
    deadline = time.monotonic() + timeout
    while True:
        for flag in flags:
            if flag.exists():
                return flag
        if child.poll() is not None:
            out, err = child.communicate()
            raise AssertionError(f"the child ended before {[f.name for f in flags]}: {out}\n{err}")
        assert time.monotonic() < deadline, f"none of {[f.name for f in flags]} from the child"
        time.sleep(0.002)


# ------------------------------------------------------------------------------ a save in place, displaced

# In the child: `remember`, paused just before it exchanges its new short_term.md with the file
# it read (until `go`). After that, it says `waiting` when it waits for a quiet file, and `reread`
# when it reads short_term.md again (the retry after finding the person's save).
DISPLACING_REMEMBER = """
    import os, sys, time
    from pathlib import Path
    from braniac import Vault
    from braniac.infra import checked, fsio
    root, flags = sys.argv[1], Path(sys.argv[2])
    vault = Vault(root)
    target = os.path.realpath(vault.stm_path)
    state = {"exchanges": 0, "reads": 0}

    real_exchange = checked.exchange
    def exchange(a, b):
        if os.path.realpath(b) == target and not state["exchanges"]:
            (flags / "paused").touch()
            while not (flags / "go").exists():
                time.sleep(0.001)
        state["exchanges"] += 1
        return real_exchange(a, b)
    checked.exchange = exchange

    real_read = fsio.read_text
    def read_text(path, *args, **kwargs):
        if os.path.realpath(path) == target and state["exchanges"]:
            (flags / "reread").touch()
        return real_read(path, *args, **kwargs)
    fsio.read_text = read_text

    real_sleep = time.sleep
    def sleep(seconds):
        if state["exchanges"]:
            (flags / "waiting").touch()
        return real_sleep(seconds)
    time.sleep = sleep
    print(vault.remember("braniac's own event about the garden").id)
"""


def _remember_paused_before_its_exchange(vault, tmp_path: Path) -> tuple[forked.Forked, Path, bytes]:
    """20 events, then DISPLACING_REMEMBER paused; the person's save to come (theirs, with a
    key fact) as bytes."""
    if not fsio.exchange(*_pair(tmp_path)):
        import pytest
        pytest.skip("no renameat2 exchange on this system")
    for n in range(20):
        vault.remember(f"event number {n} about the long history of the allotment")
    flags = tmp_path / "flags"
    flags.mkdir()
    child = spawn(DISPLACING_REMEMBER, vault.root, flags)
    wait_for_any([flags / "paused"], child)
    return child, flags, with_person_fact(vault.stm_path.read_text(encoding="utf-8")).encode("utf-8")


def _events_after(child: forked.Forked, vault) -> list[str]:
    """Once the child is done: the person's key fact is there, braniac's event on top; the
    events' User lines, newest first."""
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    text = vault.stm_path.read_text(encoding="utf-8")
    assert PERSON_FACT in text.splitlines()
    users = [e.fields["User"] for e in stm.parse(text).events]
    assert users[0] == "braniac's own event about the garden"
    return users


def test_a_save_in_place_that_braniac_displaced_and_gave_back_is_still_waited_for(vault, tmp_path):
    """braniac's exchange finds a person's in-place save under way and gives it back; the give-back
    (a rename) touches the file's ctime. The retry must still see a file being written, not take
    it for one braniac wrote in full, read its first half and replace it (the second half would
    go to the replaced file: every event and the person's line lost)."""
    child, flags, data = _remember_paused_before_its_exchange(vault, tmp_path)
    half = len(data) // 3
    with open(vault.stm_path, "r+b") as handle:      # an editor saving in place, one chunk written
        handle.truncate(0)
        handle.write(data[:half])
        handle.flush()
        time.sleep(0.02)                              # (a pause between chunks, as editors make)
        (flags / "go").touch()
        wait_for_any([flags / "waiting", flags / "reread"], child)
        handle.write(data[half:])                     # the rest of the save
        handle.flush()
    users = _events_after(child, vault)
    assert len(users) == 21                           # every event from before the save is there


def test_an_editor_that_checked_the_file_and_holds_it_open_keeps_its_save(vault, tmp_path):
    """An editor saving in place opens short_term.md and checks it is the version it loaded; then
    braniac's `remember` replaces the file; then the editor truncates and writes. Replaced at that
    instant, the editor's whole save would go to the inode braniac took away. braniac sees the
    file is still held open for writing and gives it back (the chaos run's last lost line)."""
    child, flags, data = _remember_paused_before_its_exchange(vault, tmp_path)
    with open(vault.stm_path, "r+b") as handle:      # opened and checked: the editor's next step is the truncate
        (flags / "go").touch()
        deadline = time.monotonic() + 10
        while not ((flags / "waiting").exists() or (flags / "reread").exists() or child.poll() is not None):
            assert time.monotonic() < deadline
            time.sleep(0.002)
        handle.truncate(0)
        handle.write(data)
        handle.flush()
    users = _events_after(child, vault)
    assert len(users) == 21


# In the child: `remember`, paused once its new short_term.md is written (before the fsync and the
# exchange), until `go`; it prints how many exchanges it had to give back.
PAUSED_AFTER_WRITING = """
    import os, sys, time
    from pathlib import Path
    from braniac import Vault
    from braniac.infra import checked, fsio
    root, flags = sys.argv[1], Path(sys.argv[2])
    state = {"paused": False, "given back": 0}
    real_mark = fsio.mark_complete
    def mark_complete(fd):
        if not state["paused"] and "short_term.md" in os.readlink(f"/proc/self/fd/{fd}"):
            state["paused"] = True
            (flags / "paused").touch()
            while not (flags / "go").exists():
                time.sleep(0.001)
        return real_mark(fd)
    fsio.mark_complete = mark_complete
    real_give_back = checked._give_back
    def give_back(*args):
        state["given back"] += 1
        return real_give_back(*args)
    checked._give_back = give_back
    Vault(root).remember("braniac's own event about the garden")
    print(state["given back"])
"""


def test_a_save_landing_while_braniac_writes_never_sees_braniac_s_stale_version(vault, tmp_path):
    """A person's save lands while braniac writes its new short_term.md (a write and an fsync:
    milliseconds). braniac must find it before exchanging the files: an exchange given back
    still shows braniac's stale version for an instant, and an editor loading the file then
    (its stat the same before and after) saves on top of it, dropping its own last save."""
    if not fsio.exchange(*_pair(tmp_path)) or not Path("/proc/self/fd").is_dir():
        import pytest
        pytest.skip("no renameat2 exchange or /proc on this system")
    vault.remember("an event from before")
    flags = tmp_path / "flags"
    flags.mkdir()
    child = spawn(PAUSED_AFTER_WRITING, vault.root, flags)
    wait_for_any([flags / "paused"], child)
    save_by_rename(vault.stm_path, with_person_fact(vault.stm_path.read_text(encoding="utf-8")))
    (flags / "go").touch()
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert out.split() == ["0"]                      # no exchange to give back: found before
    text = vault.stm_path.read_text(encoding="utf-8")
    assert PERSON_FACT in text.splitlines()
    assert "braniac's own event about the garden" in text


def test_a_file_renamed_while_half_written_is_not_taken_for_one_braniac_wrote(tmp_path, monkeypatch):
    """filestate level: braniac's mark on its own writes survives only braniac's writes; a rename,
    a chmod or a link (anything that touches ctime alone) on a file someone is writing in place
    does not make it look complete. (The writer here keeps the file open, which alone is waited
    for; the mark is tested without that.)"""
    from braniac.infra import filestate
    monkeypatch.setattr(filestate, "open_for_writing", lambda path: False)
    path = tmp_path / "short_term.md"
    fsio.atomic_write(path, "braniac's complete text\n" * 50)
    with open(path, "r+b") as handle:
        handle.truncate(0)
        handle.write(b"the first half of a person's save\n")
        handle.flush()
        wrote = time.monotonic()
        time.sleep(0.01)
        os.chmod(path, 0o644)                      # metadata only: ctime moves, mtime does not
        os.rename(path, tmp_path / "aside.md")     # and a rename there and back (braniac's give-back)
        os.rename(tmp_path / "aside.md", path)
        fsio.settled_stat(path)
        assert time.monotonic() - wrote >= SETTLE_S * 0.9   # quiet for the settling time since the write



def test_a_file_last_written_longer_ago_than_an_editor_pauses_is_not_waited_for(tmp_path):
    """Quiet is read off the mtime (where it has sub-second precision): a person's save that ended
    SETTLE_S ago costs no wait, whoever wrote it (a remember loop must not queue behind it)."""
    path = tmp_path / "short_term.md"
    path.write_text("a person's complete save\n", encoding="utf-8")
    if not os.stat(path).st_mtime_ns % 1_000_000_000:
        import pytest
        pytest.skip("this file system keeps whole seconds")
    time.sleep(SETTLE_S * 1.5)
    started = time.monotonic()
    fsio.settled_stat(path)
    assert time.monotonic() - started < SETTLE_S / 2

def test_a_save_that_pauses_longer_than_the_settling_time_is_still_waited_for(tmp_path):
    """Quiet alone cannot tell a finished save from an editor pausing between two chunks (a slow
    disk, a loaded machine): a file still held open for writing is still being saved."""
    import threading
    path = tmp_path / "short_term.md"
    path.write_text("the old text\n", encoding="utf-8")
    got = []
    with open(path, "r+b") as handle:
        handle.truncate(0)
        handle.write(b"the first half of the ")
        handle.flush()
        time.sleep(SETTLE_S * 2)
        reader = threading.Thread(target=lambda: got.append(fsio.read_settled(path)[0]))
        reader.start()
        time.sleep(SETTLE_S * 2)
        assert got == []                       # still waiting
        handle.write(b"new text\n")
    reader.join(timeout=30)
    assert got == ["the first half of the new text\n"]


# ------------------------------------------------------------------------------ promotion's snapshot

# In the child: `braniac promote --force`; it says `read` when it reads short_term.md and
# `waiting` when it waits for a quiet file.
WATCHED_PROMOTE = """
    import os, sys, time
    from pathlib import Path
    from braniac.infra import reading
    flags, target = Path(sys.argv[1]), os.path.realpath(sys.argv[2])
    real_read = reading.read_bytes
    def read_bytes(path, *args, **kwargs):
        if os.path.realpath(path) == target:
            (flags / "read").touch()
        return real_read(path, *args, **kwargs)
    reading.read_bytes = read_bytes
    real_sleep = time.sleep
    def sleep(seconds):
        (flags / "waiting").touch()
        return real_sleep(seconds)
    time.sleep = sleep
    from braniac.app.cli import main
    sys.argv = ["braniac", *sys.argv[3:]]
    main()
"""


def test_promotion_never_archives_half_of_a_save_in_place(vault, tmp_path):
    """A promotion starting while a person saves short_term.md in place must not take the half
    written so far for short-term memory: it would archive an event cut in the middle (and
    write that half into notes and the digest)."""
    for n in range(12):
        vault.remember(f"event number {n} about the allotment; the whole of event {n} ends here")
    data = with_person_fact(vault.stm_path.read_text(encoding="utf-8")).encode("utf-8")
    cut = data.index(b"the whole of event 3 ends here")            # in the middle of an event
    flags = tmp_path / "flags"
    flags.mkdir()
    with open(vault.stm_path, "r+b") as handle:
        handle.truncate(0)
        handle.write(data[:cut])
        handle.flush()
        child = spawn(WATCHED_PROMOTE, flags, vault.stm_path, "--vault", vault.root, "promote", "--force")
        wait_for_any([flags / "waiting", flags / "read"], child)
        time.sleep(0.02)
        handle.write(data[cut:])
        handle.flush()
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    archived = [p.read_text(encoding="utf-8") for p in (vault.root / "memory" / "long_term" / "events").rglob("20*.md")]
    assert len(archived) == 12
    for text in archived:
        n = text.split("event number ", 1)[1].split(" ", 1)[0]
        assert f"the whole of event {n} ends here" in text, text
    assert PERSON_FACT in vault.root.joinpath("memory", "short_term.md").read_text(encoding="utf-8").splitlines() \
        or any(PERSON_FACT[2:] in p.read_text(encoding="utf-8") for p in (vault.root / "memory").rglob("*.md"))


def test_an_in_place_save_that_ends_between_braniacs_last_two_checks_is_kept(tmp_path, monkeypatch):
    """The chaos run's lost line under load: an editor opens the file just after braniac's check
    before the exchange, and its save ends while braniac checks the file it displaced. Looked at
    in the wrong order (its stat, then whether anyone holds it open), the save fell between the
    two and was deleted with the displaced file. Here the save ends just before the second check."""
    from braniac.infra import checked, filestate

    path = tmp_path / "short_term.md"
    fsio.atomic_write(path, "# Short-term memory\n")
    before = os.stat(path)
    if not filestate.exchange(path, path):     # (a file system without RENAME_EXCHANGE: not this race)
        pytest.skip("no renameat2 RENAME_EXCHANGE here")
    real = checked.open_for_writing
    editor: dict = {}

    def racing(name):
        if "fd" not in editor:                 # the check before the exchange: the editor opens just after it
            held = real(name)
            editor["fd"] = os.open(path, os.O_WRONLY)
            return held
        if not editor.get("saved"):            # its save (truncate, write, close) ends now
            os.ftruncate(editor["fd"], 0)
            os.write(editor["fd"], b"# Short-term memory\nthe person's own line\n")
            os.close(editor["fd"])
            editor["saved"] = True
        return real(name)

    monkeypatch.setattr(checked, "open_for_writing", racing)
    try:
        fsio.atomic_write(path, "# Short-term memory\nbraniac's stale rewrite\n", expect_unchanged=before)
    except fsio.ConcurrentEdit:
        pass                                   # (the caller reads again and merges)
    assert editor.get("saved")
    assert path.read_text() == "# Short-term memory\nthe person's own line\n"
    assert [p.name for p in tmp_path.iterdir()] == ["short_term.md"]
