"""A person's edits are never lost, whatever braniac is doing when they save (issue 15, items 3-8).

The races are real (braniac runs as its own process, forked from tests/forked.py, while this
test saves files as a person's editor would) and deterministic: where an instant matters, the
braniac process is paused at that instant by a hook set in the child only, and the person's
save is made while it waits.
"""
from __future__ import annotations

import json
import os
import stat
import subprocess
import textwrap
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from braniac import ScriptedModel
from braniac.infra import clock, fsio
from braniac.model.organization_types import OrganizationPlan
from braniac.vault import stm
from braniac.vault.claims import event_path

import forked
from helpers import assert_clean_error, clean_env, snapshot, write_note

PERSON_FACT = "- The person decided the report goes out on Fridays."


def spawn(code: str, *args: object) -> forked.Forked:
    """`python -c CODE ARGS` as a real process, its stdout and stderr piped."""
    return forked.start(code=textwrap.dedent(code), argv=[str(a) for a in args], env=clean_env(),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for(flag: Path, child: forked.Forked, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not flag.exists():
        if child.poll() is not None:
            out, err = child.communicate()
            raise AssertionError(f"the child ended before {flag.name}: {out}\n{err}")
        assert time.monotonic() < deadline, f"no {flag.name} from the child"
        time.sleep(0.002)


def save_by_rename(path: Path, text: str) -> None:
    """A careful editor's save: the whole text to a file of its own, renamed over the note."""
    temp = path.with_name(f".{path.name}.editor-swap")
    temp.write_text(text, encoding="utf-8")
    os.rename(temp, path)


def with_person_fact(text: str) -> str:
    heading = f"### {stm.FACTS}\n"
    assert heading in text
    return text.replace(heading, heading + PERSON_FACT + "\n", 1)


def cli(*args: object) -> subprocess.CompletedProcess:
    return forked.run([str(a) for a in args], env=clean_env(), timeout=60)


# ------------------------------------------------------------------------------ item 6: check, then replace

# In the child: `remember`, paused just before braniac puts its new short_term.md in place (at
# the rename on today's code, at the exchange where there is one), until the test says go.
PAUSED_REMEMBER = """
    import os, sys, time
    from pathlib import Path
    from braniac import Vault
    root, flags = sys.argv[1], Path(sys.argv[2])
    vault = Vault(root)
    target = os.path.realpath(vault.stm_path)
    paused = []

    def pause(destination):
        if not paused and os.path.realpath(destination) == target:
            paused.append(True)
            (flags / "paused").touch()
            while not (flags / "go").exists():
                time.sleep(0.001)

    real_replace = os.replace
    def replace(source, destination, *args, **kwargs):
        pause(destination)
        return real_replace(source, destination, *args, **kwargs)
    os.replace = replace
    try:
        from braniac.infra import checked
    except ImportError:        # today's code: no exchange
        checked = None
    if checked is not None:
        real_exchange = checked.exchange
        def exchange(a, b):
            pause(b)
            return real_exchange(a, b)
        checked.exchange = exchange
    print(vault.remember("braniac's own event about the garden").id)
"""


def test_a_save_landing_between_the_check_and_the_replace_is_kept(vault, tmp_path):
    vault.remember("an earlier event about the kitchen")
    flags = tmp_path / "flags"
    flags.mkdir()
    child = spawn(PAUSED_REMEMBER, vault.root, flags)
    wait_for(flags / "paused", child)
    # braniac has read short_term.md, checked it is unchanged, and is about to replace it
    save_by_rename(vault.stm_path, with_person_fact(vault.stm_path.read_text(encoding="utf-8")))
    (flags / "go").touch()
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    text = vault.stm_path.read_text(encoding="utf-8")
    assert PERSON_FACT in text.splitlines()                      # the person's save is kept
    users = [e.fields["User"] for e in stm.parse(text).events]   # and braniac's event is in it too
    assert users == ["braniac's own event about the garden", "an earlier event about the kitchen"]
    assert fsio.stale_temp_files(vault.root) == []
    assert not list(vault.stm_path.parent.glob("*conflict*"))


def test_the_exchange_puts_back_a_save_it_displaced(tmp_path):
    """fsio level: the check happens after the exchange; a save found there goes back."""
    if not fsio.exchange(*_pair(tmp_path)):
        pytest.skip("no renameat2 exchange on this system; the fallback check is used")
    path = tmp_path / "note.md"
    path.write_text("version 1\n", encoding="utf-8")
    before = os.stat(path)
    save_by_rename(path, "the person's version 2\n")
    with pytest.raises(fsio.ConcurrentEdit):
        fsio.atomic_write(path, "braniac's stale rewrite of version 1\n", expect_unchanged=before)
    assert path.read_text(encoding="utf-8") == "the person's version 2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "note.md"]


def _saved_meanwhile(monkeypatch, path: Path, save_on_braniacs_version) -> None:
    """In the instant between braniac's exchange and its check: the version it displaced is saved
    (so braniac gives it back), and an editor loads braniac's version, in place at that instant,
    and saves on it (`save_on_braniacs_version(path, loaded)`)."""
    from braniac.infra import checked
    real = checked._closed_then_stat

    def meanwhile(hidden):
        if not meanwhile.done:
            meanwhile.done = True
            with open(hidden, "a", encoding="utf-8") as displaced:
                displaced.write("A line saved before braniac's check.\n")
            save_on_braniacs_version(path, path.read_text(encoding="utf-8"))
        return real(hidden)
    meanwhile.done = False
    monkeypatch.setattr(checked, "_closed_then_stat", meanwhile)


def _save_in_place(path: Path, text: str) -> None:
    with open(path, "r+", encoding="utf-8") as handle:
        handle.truncate(0)
        handle.write(text)


def _writes_a_line(path: Path, loaded: str) -> None:
    """An editor that loaded braniac's version saves it in place with a line of its own."""
    _save_in_place(path, loaded + "A line saved on braniac's version.\n")


def _version_1(folder: Path) -> tuple[Path, os.stat_result]:
    """note.md at version 1 and its stat as braniac read it (skipped without the exchange)."""
    if not fsio.exchange(*_pair(folder)):
        pytest.skip("no renameat2 exchange on this system; the fallback check is used")
    path = folder / "note.md"
    path.write_text("version 1\n", encoding="utf-8")
    return path, os.stat(path)


def _braniacs_write(path: Path, before: os.stat_result) -> None:
    fsio.atomic_write(path, "version 1\nbraniac's line\n", expect_unchanged=before)


def _kept_beside(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if ".conflict-" in p.name]


def test_a_save_in_place_on_braniacs_version_while_it_was_in_place_is_never_deleted(tmp_path, monkeypatch):
    """Giving back the displaced version used to delete braniac's file, and with it the writes of
    an editor that had loaded and saved it in that instant (a chaos run lost a person's line in
    short_term.md this way). That save is the newest: it stays in place, the displaced version
    is kept beside it, and braniac re-reads (what the editor wrote may not hold its change)."""
    path, before = _version_1(tmp_path)
    _saved_meanwhile(monkeypatch, path, _writes_a_line)
    with pytest.raises(fsio.ConcurrentEdit):
        _braniacs_write(path, before)
    assert path.read_text(encoding="utf-8") == "version 1\nbraniac's line\nA line saved on braniac's version.\n"
    kept = _kept_beside(tmp_path)
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == "version 1\nA line saved before braniac's check.\n"


def test_an_editor_writing_its_own_text_into_braniacs_version_does_not_make_remember_lie(vault, monkeypatch):
    """The editor opened the file while braniac's version was in place, but checked it only once
    its own save was back, and wrote that (plus a line) into braniac's file: what stays in place
    then lacks braniac's event, and `remember` must not acknowledge an event that is nowhere (a
    review's proof): it re-reads, and adds it."""
    from braniac.infra import checked, filestate
    if not fsio.exchange(*_pair(vault.root)):
        pytest.skip("no renameat2 exchange on this system; the fallback check is used")
    vault.remember("an earlier event about the kitchen")
    path, editor = vault.stm_path, {}
    real_stat, real_state = checked._closed_then_stat, checked._state_of_ours

    def opened_braniacs(hidden):
        if "fd" not in editor:
            with open(hidden, "a", encoding="utf-8") as displaced:
                displaced.write("A line saved before braniac's check.\n")
            editor["loaded"], editor["text"] = os.stat(hidden), Path(hidden).read_text(encoding="utf-8")
            editor["fd"] = os.open(path, os.O_WRONLY)          # braniac's version, in place now
        return real_stat(hidden)

    def writes_its_own(ours, written):
        if "wrote" not in editor:
            editor["wrote"] = True
            assert filestate.same_version(os.stat(path), editor["loaded"])   # its own save is back: it goes on
            os.ftruncate(editor["fd"], 0)
            os.write(editor["fd"], (editor["text"] + PERSON_FACT + "\n").encode())
            os.close(editor["fd"])
        return real_state(ours, written)
    monkeypatch.setattr(checked, "_closed_then_stat", opened_braniacs)
    monkeypatch.setattr(checked, "_state_of_ours", writes_its_own)
    made = vault.remember("braniac's own event about the garden")
    text = path.read_text(encoding="utf-8")
    assert [e.id for e in stm.parse(text).events].count(made.id) == 1
    assert "A line saved before braniac's check." in text and PERSON_FACT in text.splitlines()


def test_an_editor_slow_to_close_braniacs_unchanged_version_does_not_push_the_persons_save_aside(tmp_path, monkeypatch):
    """An editor holding braniac's version open, unchanged, past the wait (a loaded machine, or
    an editor asking "changed on disk: overwrite?"): the person's save goes back in place, and
    braniac's version is kept beside it, where the editor's writes, if any come, stay visible."""
    import threading
    path, before = _version_1(tmp_path)

    def held_open(p, loaded):
        fd = os.open(p, os.O_WRONLY)
        threading.Timer(2.0, os.close, args=(fd,)).start()   # (well past the wait, even on a loaded machine)
    _saved_meanwhile(monkeypatch, path, held_open)
    with pytest.raises(fsio.ConcurrentEdit):
        _braniacs_write(path, before)
    assert path.read_text(encoding="utf-8") == "version 1\nA line saved before braniac's check.\n"
    kept = _kept_beside(tmp_path)
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == "version 1\nbraniac's line\n"


def test_a_note_deleted_while_braniac_gives_its_write_back_raises_no_stray_error(tmp_path, monkeypatch):
    """The note is deleted while braniac looks at its own version, which an editor wrote into:
    that save goes back under the note's name (nothing a person wrote is deleted by braniac),
    and braniac's write ends in ConcurrentEdit, not a FileNotFoundError its callers do not expect."""
    from braniac.infra import checked
    path, before = _version_1(tmp_path)
    _saved_meanwhile(monkeypatch, path, _writes_a_line)
    real_state = checked._state_of_ours

    def deleted_meanwhile(ours, written):
        os.unlink(path)
        return real_state(ours, written)
    monkeypatch.setattr(checked, "_state_of_ours", deleted_meanwhile)
    with pytest.raises(fsio.ConcurrentEdit):
        _braniacs_write(path, before)
    assert path.read_text(encoding="utf-8") == "version 1\nbraniac's line\nA line saved on braniac's version.\n"
    assert fsio.stale_temp_files(tmp_path) == []


def test_an_editor_that_only_opened_braniacs_version_in_that_instant_does_not_keep_it(tmp_path, monkeypatch):
    """An editor that opens braniac's version, finds it is not the one it loaded and closes it
    unchanged saved nothing on it: the displaced save goes back in place, no conflict copy."""
    import threading
    path, before = _version_1(tmp_path)

    def opened_then_closed(p, loaded):
        fd = os.open(p, os.O_WRONLY)
        threading.Timer(0.05, os.close, args=(fd,)).start()
    _saved_meanwhile(monkeypatch, path, opened_then_closed)
    from braniac.infra import checked
    monkeypatch.setattr(checked, "SETTLE_S", 5.0)   # (a loaded machine may run the timer late)
    with pytest.raises(fsio.ConcurrentEdit):
        _braniacs_write(path, before)
    assert path.read_text(encoding="utf-8") == "version 1\nA line saved before braniac's check.\n"
    assert not _kept_beside(tmp_path)


class _Killed(BaseException):
    """What a SIGKILL would do at that point: nothing after it runs (but the cleanup of
    atomic_write's own temp file, which a real kill would not get to either)."""


def test_a_kill_while_braniac_holds_a_save_made_into_its_version_loses_nothing(tmp_path, monkeypatch):
    """Killed while it looks at its own version, which an editor wrote into: the editor's writes
    are out of sight under a temp name. They used to be deleted, by atomic_write's cleanup or by
    the next run's removal of stale temp files; they are kept beside the note."""
    from braniac.infra import checked, fsio_folders
    path, before = _version_1(tmp_path)
    _saved_meanwhile(monkeypatch, path, _writes_a_line)

    def killed(ours, written):
        raise _Killed()
    monkeypatch.setattr(checked, "_state_of_ours", killed)
    with pytest.raises(_Killed):
        _braniacs_write(path, before)
    assert [checked.holds_a_save(t) for t in fsio.stale_temp_files(tmp_path)] == [True]   # (doctor says so)
    fsio_folders.remove_stale_temps(tmp_path)   # what the next promotion or organize does first
    texts = [p.read_text(encoding="utf-8") for p in tmp_path.glob("note*.md")]
    assert "version 1\nA line saved before braniac's check.\n" in texts     # the displaced save, in place
    assert "version 1\nbraniac's line\nA line saved on braniac's version.\n" in texts   # kept beside
    assert fsio.stale_temp_files(tmp_path) == []


def test_a_kill_right_after_the_exchange_keeps_the_save_it_displaced(tmp_path, monkeypatch):
    """A person's save lands between braniac's last check and its exchange, and braniac is killed
    right after the exchange: the save is out of sight under braniac's temp name. The next run's
    cleanup used to delete it as a stale temp file; it is kept beside the note."""
    from braniac.infra import checked, fsio_folders
    path, before = _version_1(tmp_path)
    real = checked.exchange

    def saved_then_killed(temp, target):
        save_by_rename(target, "the person's version 2\n")
        real(temp, target)
        raise _Killed()
    monkeypatch.setattr(checked, "exchange", saved_then_killed)
    with pytest.raises(_Killed):
        _braniacs_write(path, before)
    fsio_folders.remove_stale_temps(tmp_path)   # what the next promotion or organize does first
    texts = sorted(p.read_text(encoding="utf-8") for p in tmp_path.glob("note*.md"))
    assert texts == ["the person's version 2\n", "version 1\nbraniac's line\n"]
    assert fsio.stale_temp_files(tmp_path) == []


def test_a_kill_right_after_the_exchange_leaves_no_copy_of_braniacs_own_version(tmp_path, monkeypatch):
    """The same kill with nobody saving meanwhile, on a note braniac wrote: what the exchange
    displaced is braniac's own earlier write, removed by the cleanup like any stale temp file."""
    from braniac.infra import checked, fsio_folders
    if not fsio.exchange(*_pair(tmp_path)):
        pytest.skip("no renameat2 exchange on this system; the fallback check is used")
    path = tmp_path / "note.md"
    before = fsio.atomic_write(path, "version 1\n")
    real = checked.exchange

    def killed(temp, target):
        real(temp, target)
        raise _Killed()
    monkeypatch.setattr(checked, "exchange", killed)
    with pytest.raises(_Killed):
        _braniacs_write(path, before)
    fsio_folders.remove_stale_temps(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name not in ("a", "b")) == ["note.md"]
    assert path.read_text(encoding="utf-8") == "version 1\nbraniac's line\n"


def test_a_file_braniac_wrote_whole_and_gave_back_is_removed_after_a_kill(tmp_path):
    """The same name for braniac's own version, untouched (marked as braniac's whole write):
    nothing of a person's in it, so it is removed like any stale temp file."""
    from braniac.infra import checked, filestate, fsio_folders
    held = tmp_path / f".note.md.1a2b3c4d{checked.HELD_SUFFIX}"
    held.write_text("braniac's version\n", encoding="utf-8")
    fd = os.open(held, os.O_RDONLY)
    filestate.mark_complete(fd)
    os.close(fd)
    assert checked.HELD_SUFFIX.endswith(fsio.TEMP_SUFFIX) and fsio.stale_temp_files(tmp_path) == [held]
    fsio_folders.remove_stale_temps(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_an_event_a_person_saved_on_while_braniac_gave_its_write_back_is_not_remembered_twice(vault, monkeypatch):
    """The same instant, with the editor saving by rename: its save, holding braniac's new event,
    is the newest and stays; `remember` tries again on it and must find its event there, not
    add it a second time (a chaos run had one event under two ids, and another one lost)."""
    if not fsio.exchange(*_pair(vault.root)):
        pytest.skip("no renameat2 exchange on this system; the fallback check is used")
    vault.remember("an earlier event about the kitchen")
    _saved_meanwhile(monkeypatch, vault.stm_path, lambda p, loaded: save_by_rename(p, with_person_fact(loaded)))
    made = vault.remember("braniac's own event about the garden")
    text = vault.stm_path.read_text(encoding="utf-8")
    events = stm.parse(text).events
    assert [e.fields["User"] for e in events] == ["braniac's own event about the garden", "an earlier event about the kitchen"]
    assert events[0].id == made.id
    assert PERSON_FACT in text.splitlines()
    kept = list(vault.stm_path.parent.glob("*.conflict-*"))
    assert len(kept) == 1 and "A line saved before braniac's check." in kept[0].read_text(encoding="utf-8")


def test_an_event_a_person_edited_on_braniacs_version_in_that_instant_is_not_remembered_twice(vault, monkeypatch):
    """The save on braniac's version fixes a typo in the new event: it is still braniac's event
    (its id, chosen free under the lock braniac still holds), so it is not added again."""
    if not fsio.exchange(*_pair(vault.root)):
        pytest.skip("no renameat2 exchange on this system; the fallback check is used")
    vault.remember("an earlier event about the kitchen")
    _saved_meanwhile(monkeypatch, vault.stm_path, lambda p, loaded: save_by_rename(p, loaded.replace("tomatos", "tomatoes")))
    vault.remember("plant the tomatos in May")
    users = [e.fields["User"] for e in stm.parse(vault.stm_path.read_text(encoding="utf-8")).events]
    assert users == ["plant the tomatoes in May", "an earlier event about the kitchen"]


def test_without_the_exchange_the_check_before_the_rename_still_refuses_a_stale_copy(tmp_path, monkeypatch):
    from braniac.infra import checked
    monkeypatch.setattr(checked, "exchange", lambda a, b: False)   # a system without renameat2
    path = tmp_path / "note.md"
    path.write_text("version 1\n", encoding="utf-8")
    before = os.stat(path)
    fsio.atomic_write(path, "version 2\n", expect_unchanged=before)
    assert path.read_text(encoding="utf-8") == "version 2\n"
    with pytest.raises(fsio.ConcurrentEdit):
        fsio.atomic_write(path, "a stale rewrite of version 1\n", expect_unchanged=before)
    assert path.read_text(encoding="utf-8") == "version 2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["note.md"]


def _pair(folder: Path) -> tuple[Path, Path]:
    a, b = folder / "a", folder / "b"
    a.write_text("a")
    b.write_text("b")
    return a, b


# ------------------------------------------------------------------------------ item 7: a save in place

# `braniac remember` in the child, told to wait for a quiet spell longer than any stall of this
# test's writer on a busy machine (where there is such a setting: today's code has none)
REMEMBER_WAITING_LONGER = """
    import sys
    try:
        from braniac.infra import filestate
        filestate.SETTLE_S = 0.5
    except ImportError:
        pass
    from braniac.app.cli import main
    sys.argv = ["braniac", *sys.argv[1:]]
    main()
"""


def test_an_in_place_save_in_progress_is_waited_for_not_cut_in_half(vault):
    for n in range(60):
        vault.remember(f"event number {n} about the long history of the allotment, with enough words to fill lines")
    old = vault.stm_path.read_text(encoding="utf-8")
    data = with_person_fact(old).encode("utf-8")
    chunk = len(data) // 100 + 1
    # an editor saving a large file in place: truncate, then chunks a few ms apart
    with open(vault.stm_path, "r+b") as handle:
        handle.truncate(0)
        handle.write(data[:chunk])
        handle.flush()
        child = spawn(REMEMBER_WAITING_LONGER, "--vault", vault.root, "remember", "braniac's event during the save")
        for start in range(chunk, len(data), chunk):
            time.sleep(0.005)
            handle.write(data[start:start + chunk])
            handle.flush()
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    text = vault.stm_path.read_text(encoding="utf-8")
    doc = stm.parse(text)
    users = [e.fields["User"] for e in doc.events]
    assert users[0] == "braniac's event during the save"
    assert len(users) == 61                         # every old event is still there
    assert PERSON_FACT in text.splitlines()


def test_a_link_in_a_note_saved_in_place_during_a_move_is_re_aimed_once_the_save_is_done(vault):
    """A move re-aims every link to the moved note; a note whose editor is mid-save (truncated,
    its link not written back yet) is read once the save is done, not skipped as linkless."""
    import threading

    from braniac.vault.moves import repair_links
    from test_organize import add_note, link_to

    old_rel, new_rel, own_rel = ("memory/long_term/concrete/garden/Tomatoes.md",
                                 "memory/long_term/concrete/food/Tomatoes.md", "memory/long_term/concrete/My plot.md")
    old = add_note(vault, old_rel, "Tomatoes", "Sown in March.", ["garden"])
    own = vault.root / own_rel
    own.write_text("# My plot\n\n" + "A line of my own about the plot.\n" * 40 +
                   f"\nSee {link_to(vault, own_rel, old_rel)}.\n", encoding="utf-8")
    data = own.read_bytes()
    new = vault.root / new_rel
    new.parent.mkdir(parents=True)
    os.replace(old, new)
    time.sleep(1.1)   # (the note is not a recent write: only its editor's being open is waited for)
    with open(own, "r+b") as handle:   # an editor saving in place: truncated, the first half written
        handle.truncate(0)
        handle.write(data[:len(data) // 2])
        handle.flush()
        repair = threading.Thread(target=repair_links, args=(vault, {old: new}, {}, set()), kwargs={"files": [own]})
        repair.start()
        time.sleep(0.5)
        handle.write(data[len(data) // 2:])
    repair.join(timeout=30)
    text = own.read_text(encoding="utf-8")
    assert "concrete/garden/" not in text and "food/Tomatoes.md" in text, text[-200:]
    assert text.count("A line of my own") == 40


def test_a_note_held_open_for_writing_all_along_does_not_stop_organize_or_undo(tmp_path, monkeypatch):
    """Waiting for a save to finish has a limit: a note some process keeps open to write (a `tee
    -a`, a logger) is left as it is, and the organization or the undo around it completes."""
    import subprocess

    from braniac import Vault
    from braniac.infra import filestate
    from braniac.infra.config import load as load_config
    from braniac.processes.organization import organize
    from braniac.vault import moves
    from test_organize import build_scenario

    monkeypatch.setattr(filestate, "SETTLE_LIMIT_S", 0.5)
    s = build_scenario(tmp_path / "organized")
    held = s.path("macros")                 # links to nothing that moves
    with open(held, "a"):
        report = organize(s.vault, load_config(s.vault.root))
    assert report.status == "done", (report.status, report.reason)
    assert not moves.journal_path(s.vault).exists()

    vault, _ = Vault.init(tmp_path / "undone", use_git=True)
    (vault.root / "scratch.md").write_text("# Scratch\n\nA page of my own, no links.\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=vault.root, check=True)
    subprocess.run(["git", "-c", "user.name=p", "-c", "user.email=p@p", "commit", "-qm", "scratch"], cwd=vault.root,
                   check=True)
    for text in ("Marta leads the billing team in Lisbon.", "The billing database runs PostgreSQL 16."):
        vault.remember(text)
    assert vault.promote(force=True).status == "done"
    time.sleep(1.1)   # (not a recent write: only its being open is waited for)
    with open(vault.root / "scratch.md", "a"):
        assert vault.undo().commit, "the undo completes and is committed"


def test_a_file_braniac_wrote_itself_is_never_waited_for(tmp_path):
    path = tmp_path / "short_term.md"
    fsio.atomic_write(path, "one\n")
    started = time.monotonic()
    for n in range(20):
        fsio.update_text(path, lambda text, n=n: text + f"line {n}\n")
    from braniac.infra.filestate import SETTLE_S
    assert time.monotonic() - started < 20 * SETTLE_S / 2


# ------------------------------------------------------------------------------ item 8: read-only files

@pytest.fixture
def restore_modes():
    """Modes to put back after the test (so the tmp dir can be cleaned up)."""
    changed: list[tuple[Path, int]] = []

    def make_read_only(path: Path) -> None:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        changed.append((path, mode))
        os.chmod(path, mode & ~0o222)

    yield make_read_only
    for path, mode in reversed(changed):
        if path.exists():
            os.chmod(path, mode)


def test_remember_refuses_a_read_only_short_term_memory(vault, restore_modes):
    vault.remember("an earlier event")
    before = vault.stm_path.read_bytes()
    restore_modes(vault.stm_path)
    result = cli("--vault", vault.root, "remember", "something new")
    assert_clean_error(result, "short_term.md", "read-only")
    assert vault.stm_path.read_bytes() == before
    assert stat.S_IMODE(os.stat(vault.stm_path).st_mode) == 0o444
    assert fsio.stale_temp_files(vault.root) == []


def test_remember_refuses_a_read_only_folder(vault, restore_modes):
    before = vault.stm_path.read_bytes()
    restore_modes(vault.stm_path.parent)
    result = cli("--vault", vault.root, "remember", "something new")
    assert_clean_error(result, "memory", "folder is read-only")
    assert vault.stm_path.read_bytes() == before


def test_ask_keeps_the_exchange_but_leaves_a_read_only_short_term_memory_alone(vault, restore_modes):
    before = vault.stm_path.read_bytes()
    restore_modes(vault.stm_path)
    result = cli("--vault", vault.root, "ask", "what did I plant in the garden?")
    assert "Traceback" not in result.stderr
    assert "read-only" in result.stderr and "short_term.md" in result.stderr
    assert vault.stm_path.read_bytes() == before
    # the exchange waits in the journal until the file is writable again, then is recorded
    os.chmod(vault.stm_path, 0o644)
    result = cli("--vault", vault.root, "ask", "and the roses?")
    assert result.returncode == 0, result.stderr
    users = [e.fields.get("User") for e in vault.read_stm().events]
    assert sorted(users) == ["and the roses?", "what did I plant in the garden?"]


# ------------------------------------------------------------------------------ item 3: short_term.md during a promotion

T0 = datetime(2025, 3, 2, 9, 0, tzinfo=timezone.utc)
LISBON = "Ana: I moved to Lisbon last month and I love the tram rides there."
CORRECTED = "Ana: I moved to Lisbon in January and I love the tram rides there."
DENTIST = "Remind me to call the dentist on Friday."
PERSON_SUMMARY = "My own summary: Ana, Lisbon, and the dentist."


def remember_at(vault, minutes: float, text: str) -> str:
    with clock.frozen(T0 + timedelta(minutes=minutes)):
        return vault.remember(text).id


def promote_at(vault, days: float, model=None):
    with clock.frozen(T0 + timedelta(days=days)):
        return vault.promote(force=True, model=model)


def archive_of(vault, event_id: str) -> Path:
    return event_path(vault, event_id)


def test_edits_to_short_term_memory_during_a_promotion_are_kept(vault):
    lisbon = remember_at(vault, 0, LISBON)
    dentist = remember_at(vault, 1, DENTIST)

    def person_edits_while_the_model_thinks(events, titles):
        text = vault.stm_path.read_text(encoding="utf-8")
        text = text.replace(LISBON, CORRECTED)                                        # an event corrected
        text = with_person_fact(text)                                                 # a Key Fact added
        text = text.replace("- [ ] call the dentist on Friday", "- [x] call the dentist on Friday")  # a task ticked
        doc = stm.parse(text)
        doc.block(stm.SUMMARY).raw = f"## {stm.SUMMARY}\n{PERSON_SUMMARY}\n\n---\n"  # the Summary rewritten
        save_by_rename(vault.stm_path, doc.render())
        return model.fallback.analyze(events, titles)

    model = ScriptedModel().enqueue("analyze", person_edits_while_the_model_thinks)
    report = promote_at(vault, 1, model)
    assert report.status == "done"
    text = vault.stm_path.read_text(encoding="utf-8")
    doc = stm.parse(text)
    # the promotion recorded the event as it was: the corrected one stays for the next promotion
    assert [(e.id, e.fields["User"]) for e in doc.events] == [(lisbon, CORRECTED)]
    assert LISBON in archive_of(vault, lisbon).read_text(encoding="utf-8")
    assert archive_of(vault, dentist).is_file()
    assert PERSON_FACT in text.splitlines()
    assert [(t.text, t.done) for t in doc.items(stm.TASKS)] == [("call the dentist on Friday", True)]
    assert doc.summary == PERSON_SUMMARY

    # the next promotion records what the person changed, and only then takes it out
    report = promote_at(vault, 2)
    # the corrected event is another event of that id: archived under the next free id (§6)
    assert len(report.events) == 1 and report.events[0].startswith(lisbon.rstrip("Z"))
    corrected = report.events[0]
    assert corrected != lisbon
    doc = vault.read_stm()
    assert doc.events == [] and doc.items(stm.FACTS) == [] and doc.items(stm.TASKS) == []
    assert LISBON in archive_of(vault, lisbon).read_text(encoding="utf-8")      # both versions,
    assert CORRECTED in archive_of(vault, corrected).read_text(encoding="utf-8")  # nothing lost
    digest = (archive_of(vault, lisbon).parent / "digest.md").read_text(encoding="utf-8")
    assert "task done: call the dentist on Friday" in digest
    assert PERSON_FACT[2:] in digest
    assert vault.doctor() == []


# ------------------------------------------------------------------------------ item 4: a note during a promotion

# In the child: a promotion paused once the note `ana.md` is read for its merge, before it is
# written, until the test says go.
PAUSED_PROMOTION = """
    import os, sys, time
    from datetime import datetime
    from pathlib import Path
    from braniac import Vault
    from braniac.infra import clock
    from braniac.processes.promotion import writing
    root, flags, note, at = sys.argv[1], Path(sys.argv[2]), os.path.realpath(sys.argv[3]), sys.argv[4]
    real = writing._link_related

    def link_related(vault, fact_note, *args):
        if not (flags / "paused").exists() and os.path.realpath(fact_note.path) == note:
            (flags / "paused").touch()
            while not (flags / "go").exists():
                time.sleep(0.001)
        return real(vault, fact_note, *args)
    writing._link_related = link_related
    with clock.frozen(clock.parse_iso(at)):
        report = Vault(root).promote(force=True)
    print(report.status, report.notes_updated)
"""


def test_a_note_edited_during_a_promotion_keeps_the_edit(vault, tmp_path):
    remember_at(vault, 0, LISBON)
    promote_at(vault, 1)
    ana = vault.ltm_root / "concrete/people/ana.md"
    assert ana.is_file()
    remember_at(vault, 60 * 48, "Ana: my sister Maria is a nurse in Porto and Ana visits her often.")
    flags = tmp_path / "flags"
    flags.mkdir()
    child = spawn(PAUSED_PROMOTION, vault.root, flags, ana, clock.iso(T0 + timedelta(days=3)))
    wait_for(flags / "paused", child)
    mine = "\n## My notes\nAna prefers green tea, never coffee.\n"
    save_by_rename(ana, ana.read_text(encoding="utf-8") + mine)
    (flags / "go").touch()
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert out.startswith("done") and "ana.md" in out
    text = ana.read_text(encoding="utf-8")
    assert "Ana prefers green tea, never coffee." in text          # the person's edit
    assert "nurse in Porto" in text                                 # and the promotion's new claim
    assert "tram rides" in text


# ------------------------------------------------------------------------------ item 5: a note moved by organize

# In the child: moving a note as organize does, paused after the copy and the link repairs,
# before the old file is removed, until the test says go.
PAUSED_MOVE = """
    import sys, time
    from pathlib import Path
    from braniac import Vault
    from braniac.vault import moves
    root, flags, old, new = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
    real = moves.repair_links

    def repair_links(*args, **kwargs):
        changed = real(*args, **kwargs)
        (flags / "paused").touch()
        while not (flags / "go").exists():
            time.sleep(0.001)
        return changed
    moves.repair_links = repair_links
    moves.apply_moves(Vault(root), [moves.Move(old, new)], set())
"""


def test_a_save_to_the_old_place_during_a_move_is_not_deleted(vault, tmp_path):
    old = vault.ltm_root / "concrete/cobol.md"
    new = vault.ltm_root / "concrete/tech/cobol.md"
    write_note(vault, "memory/long_term/concrete/cobol.md", "COBOL", "# COBOL\n\nCopybooks describe records.\n")
    flags = tmp_path / "flags"
    flags.mkdir()
    child = spawn(PAUSED_MOVE, vault.root, flags, old, new)
    wait_for(flags / "paused", child)
    assert new.is_file() and old.is_file()      # copied, not yet removed
    save_by_rename(old, old.read_text(encoding="utf-8") + "\nPIC clauses give each field its size.\n")
    (flags / "go").touch()
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert "PIC clauses give each field its size." in new.read_text(encoding="utf-8")
    assert not old.exists()
    assert not list(old.parent.glob(".*"))       # nothing left out of sight either
    assert [f for f in vault.doctor() if f.severity == "problem"] == []


def test_a_save_that_makes_the_old_place_again_just_after_the_removal_goes_into_the_copy(vault, monkeypatch):
    """An editor checks the old file is the one it loaded, braniac removes it, and the editor's
    rename lands: the old place exists again, with the person's line and the note's uuid (a
    chaos run under load: a duplicate uuid for doctor). The move brings that save into the copy."""
    from braniac.vault import moves

    old = vault.ltm_root / "concrete/cobol.md"
    new = vault.ltm_root / "concrete/tech/cobol.md"
    write_note(vault, "memory/long_term/concrete/cobol.md", "COBOL", "# COBOL\n\nCopybooks describe records.\n")
    loaded = old.read_text(encoding="utf-8")
    real = moves.remove_unchanged

    def removed_then_saved(path, expected, **kwargs):
        done = real(path, expected, **kwargs)
        if done and path == old and not removed_then_saved.saved:
            removed_then_saved.saved = True
            save_by_rename(old, loaded + "\nPIC clauses give each field its size.\n")
        return done
    removed_then_saved.saved = False
    monkeypatch.setattr(moves, "remove_unchanged", removed_then_saved)
    moves.apply_moves(vault, [moves.Move(old, new)], set())
    assert removed_then_saved.saved
    assert "PIC clauses give each field its size." in new.read_text(encoding="utf-8")
    assert "Copybooks describe records." in new.read_text(encoding="utf-8")
    assert not old.exists() and not list(old.parent.glob(".*"))
    assert [f for f in vault.doctor() if f.severity == "problem"] == []


def test_saves_to_both_places_while_a_move_merges_them_still_end_in_one_note(vault, monkeypatch):
    """The old place is saved after the copy (its removal is refused), and the copy is saved in
    the instant braniac merges that save into it (its write is refused), twice. A chaos run with a
    person saving every few milliseconds left both copies, one uuid twice, for doctor: the
    refused write gave up instead of merging again into the copy as it now is."""
    from braniac.vault import moves, notes

    old = vault.ltm_root / "concrete/cobol.md"
    new = vault.ltm_root / "concrete/tech/cobol.md"
    write_note(vault, "memory/long_term/concrete/cobol.md", "COBOL", "# COBOL\n\nCopybooks describe records.\n")
    real_remove, real_parse = moves.remove_unchanged, notes.parse
    saved = []

    def saved_before_removal(path, expected, **kwargs):
        if path == old and not saved:
            saved.append("old")
            save_by_rename(old, old.read_text(encoding="utf-8") + "\nPIC clauses give each field its size.\n")
        return real_remove(path, expected, **kwargs)

    def copy_saved_while_merging(text, *args, **kwargs):
        if kwargs.get("path") == new and "PIC clauses" in text and len(saved) < 3:
            saved.append("copy")   # (twice: the second pass over moves that ended with both)
            save_by_rename(new, new.read_text(encoding="utf-8") + f"\nLevel 8{len(saved)} names a condition.\n")
        return real_parse(text, *args, **kwargs)
    monkeypatch.setattr(moves, "remove_unchanged", saved_before_removal)
    monkeypatch.setattr(notes, "parse", copy_saved_while_merging)
    moves.apply_moves(vault, [moves.Move(old, new)], set())
    assert saved == ["old", "copy", "copy"]
    text = new.read_text(encoding="utf-8")
    assert "PIC clauses give each field its size." in text
    assert "Level 82 names a condition." in text and "Level 83 names a condition." in text
    assert not old.exists() and not list(old.parent.glob(".*"))
    assert [f for f in vault.doctor() if f.severity == "problem"] == []


def test_a_save_to_the_old_place_of_a_note_whose_links_the_move_reaims_goes_into_the_copy(vault, monkeypatch):
    """Organize archives a note and moves the note it links to: the copy's link is re-aimed by
    the link repair, the old place's (read again for the merge) by the move itself, and the
    person's section added at the old place comes right after that link. Both sides changed
    the link line the same way; merging used to call that a conflict and keep both files (one
    uuid twice, in 2 of the chaos runs with two MCP servers)."""
    from braniac.vault import moves, notes

    ltm = vault.ltm_root
    jcl_old, jcl_new = ltm / "concrete/jcl.md", ltm / "concrete/tech/jcl.md"
    old, new = ltm / "concrete/cobol.md", ltm / "archive/concrete/cobol.md"
    write_note(vault, "memory/long_term/concrete/jcl.md", "JCL", "# JCL\n\nJob steps run programs.\n")
    jcl = notes.read(jcl_old).uuid
    write_note(vault, "memory/long_term/concrete/cobol.md", "COBOL",
               f'# COBOL\n\nCopybooks describe records.\n\nSee [JCL](jcl.md "uuid:{jcl}").\n')
    real = moves.remove_unchanged

    def saved_before_removal(path, expected, **kwargs):
        if path == old and not saved_before_removal.done:
            saved_before_removal.done = True
            save_by_rename(old, old.read_text(encoding="utf-8") + "\n## By hand\nPIC clauses give each field its size.\n")
        return real(path, expected, **kwargs)
    saved_before_removal.done = False
    monkeypatch.setattr(moves, "remove_unchanged", saved_before_removal)
    moves.apply_moves(vault, [moves.Move(old, new, status="archived"), moves.Move(jcl_old, jcl_new)], set())
    assert saved_before_removal.done
    text = new.read_text(encoding="utf-8")
    assert "PIC clauses give each field its size." in text and f'(../../concrete/tech/jcl.md "uuid:{jcl}")' in text
    assert not old.exists()
    assert [f for f in vault.doctor() if f.severity == "problem"] == []


# In the child: organize moving two notes into tech/, paused after the copies and before the
# links are repaired.
PAUSED_BEFORE_LINK_REPAIR = """
    import sys, time
    from pathlib import Path
    from braniac import Vault
    from braniac.vault import moves
    root, flags = sys.argv[1], Path(sys.argv[2])
    ltm = Path(root) / "memory" / "long_term" / "concrete"
    real = moves.repair_links

    def repair_links(*args, **kwargs):
        (flags / "paused").touch()
        while not (flags / "go").exists():
            time.sleep(0.001)
        return real(*args, **kwargs)
    moves.repair_links = repair_links
    moves.apply_moves(Vault(root), [moves.Move(ltm / "cobol.md", ltm / "tech" / "cobol.md"),
                                   moves.Move(ltm / "jcl.md", ltm / "tech" / "jcl.md")], set())
"""


@pytest.mark.parametrize("where", ["top", "end"])
def test_saves_to_both_places_during_a_move_are_both_kept(vault, tmp_path, where):
    """A person saves the new copy, with a link to the other note's old place that braniac's link
    repair then fixes (braniac re-writes the copy, their line in it), and then saves the old
    place. The old place's line is merged into the copy, and the copy's line stays (it used to
    be written over by a second copy of the old file, in the "everything at once" run)."""
    old = vault.ltm_root / "concrete/cobol.md"
    new = vault.ltm_root / "concrete/tech/cobol.md"
    write_note(vault, "memory/long_term/concrete/jcl.md", "JCL", "# JCL\n\nJob steps run programs.\n")
    write_note(vault, "memory/long_term/concrete/cobol.md", "COBOL", "# COBOL\n\nCopybooks describe records.\n")
    flags = tmp_path / "flags"
    flags.mkdir()
    child = spawn(PAUSED_BEFORE_LINK_REPAIR, vault.root, flags)
    wait_for(flags / "paused", child)
    assert new.is_file() and old.is_file()
    save_by_rename(new, new.read_text(encoding="utf-8") + "\nLevel 88 names a condition; see [JCL](../jcl.md).\n")
    before = old.read_text(encoding="utf-8")
    save_by_rename(old, before.replace("# COBOL\n", "# COBOL\n\nPIC clauses give each field its size.\n") if where == "top"
                   else before + "\nPIC clauses give each field its size.\n")   # (the same place as the copy's line)
    (flags / "go").touch()
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    text = new.read_text(encoding="utf-8")
    assert "[JCL](jcl.md)" in text                      # repaired: braniac wrote the copy again
    assert "Level 88 names a condition" in text and "PIC clauses give each field its size." in text, (out, err)
    assert not old.exists()
    assert [f for f in vault.doctor() if f.severity == "problem"] == []


def test_a_move_killed_with_the_old_copy_out_of_sight_is_put_back_by_the_next_run(vault):
    old = vault.ltm_root / "concrete/cobol.md"
    new = vault.ltm_root / "concrete/tech/cobol.md"
    write_note(vault, "memory/long_term/concrete/cobol.md", "COBOL", "# COBOL\n\nCopybooks.\n")
    from braniac.vault import moves
    moves.apply_moves(vault, [moves.Move(old, new)], set())
    # as a kill between the rename out of sight and its check would leave it, with the
    # person's newer save in it
    hidden = old.with_name(f".{old.name}{fsio.MOVING_SUFFIX}")
    hidden.write_text(new.read_text(encoding="utf-8") + "\nA line saved at the old place.\n", encoding="utf-8")
    moves.journal_path(vault).write_text(json.dumps({"moves": [
        {"old": "memory/long_term/concrete/cobol.md", "new": "memory/long_term/concrete/tech/cobol.md",
         "status": None, "uuid": None}]}), encoding="utf-8")
    moves.finish(vault, moves.pending(vault), set())
    assert "A line saved at the old place." in new.read_text(encoding="utf-8")
    assert not old.exists() and not hidden.exists()


# ------------------------------------------------------------------------------ item 8: promote and organize

def test_promote_stops_before_changing_anything_when_short_term_memory_is_read_only(vault, restore_modes):
    event = remember_at(vault, 0, LISBON)
    before = snapshot(vault.root)
    restore_modes(vault.stm_path)
    result = cli("--vault", vault.root, "promote", "--force")
    line = assert_clean_error(result, "short_term.md", "read-only")
    assert "before changing anything" in line
    assert snapshot(vault.root) == before
    # writable again, the promotion runs
    os.chmod(vault.stm_path, 0o644)
    result = cli("--vault", vault.root, "promote", "--force")
    assert result.returncode == 0, result.stderr
    assert vault.read_stm().events == [] and archive_of(vault, event).is_file()


def test_promote_leaves_a_read_only_note_alone_and_does_the_rest(vault, restore_modes):
    remember_at(vault, 0, LISBON)
    promote_at(vault, 1)
    ana = vault.ltm_root / "concrete/people/ana.md"
    ana_before = ana.read_bytes()
    restore_modes(ana)
    event = remember_at(vault, 60 * 48, "Ana: my sister Maria is a nurse in Porto and Ana visits her often.")
    report = promote_at(vault, 3)
    assert report.status == "done"
    assert ana.read_bytes() == ana_before and stat.S_IMODE(os.stat(ana).st_mode) == 0o444
    assert any("ana.md" in r and "read-only" in r for r in report.rejected), report.rejected
    assert (vault.ltm_root / "concrete/people/maria.md").is_file()      # the rest is done
    assert vault.read_stm().events == [] and archive_of(vault, event).is_file()


def test_promote_writes_no_new_note_into_a_read_only_folder(vault, restore_modes):
    remember_at(vault, 0, LISBON)
    promote_at(vault, 1)
    people = vault.ltm_root / "concrete/people"
    listing = sorted(p.name for p in people.iterdir())
    restore_modes(people)
    remember_at(vault, 60 * 48, "Ana: my sister Maria is a nurse in Porto and Ana visits her often.")
    report = promote_at(vault, 3)
    assert report.status == "done"
    assert sorted(p.name for p in people.iterdir()) == listing
    assert any("maria.md" in r or "people" in r for r in report.rejected), report.rejected


def test_organize_rejects_operations_on_read_only_notes(tmp_path, restore_modes):
    from test_organize import build_scenario
    s = build_scenario(tmp_path / "vault")
    macros, gil, asyncio, cobol = (s.path(n) for n in ("macros", "gil", "asyncio", "cobol"))
    for path in (macros, gil, asyncio):
        restore_modes(path)
    before = {p: p.read_bytes() for p in (macros, gil, asyncio)}
    model = ScriptedModel().enqueue("propose_organization", OrganizationPlan([
        {"op": "archive", "path": s.paths["macros"]},                                 # the note is read-only
        {"op": "link", "a": s.paths["cargo"], "b": s.paths["gil"], "weight": 0.5},    # one of the two is
        {"op": "archive", "path": s.paths["cobol"]},                                  # asyncio links to it
        {"op": "archive", "path": s.paths["ftp"]}]))                                  # nothing read-only
    report = s.vault.organize(model=model)
    for path, data in before.items():
        assert path.read_bytes() == data and stat.S_IMODE(os.stat(path).st_mode) == 0o444
    assert cobol.exists() and macros.exists()
    assert not s.path("ftp").exists()                                 # the rest lands
    rejected = "\n".join(report.rejected)
    for name in ("macros.md", "gil.md", "asyncio.md"):
        assert name in rejected and "read-only" in rejected, report.rejected


def test_notes_moved_together_that_link_to_each_other_leave_no_old_copy(vault, notices):
    from braniac.vault import moves
    a = write_note(vault, "memory/long_term/concrete/a.md", "A", "# A\n\nAbout a.\n")
    b = write_note(vault, "memory/long_term/concrete/b.md", "B", "# B\n\nSee [A](a.md).\n")
    a.write_text(a.read_text(encoding="utf-8") + "See [B](b.md).\n", encoding="utf-8")
    new_a, new_b = vault.ltm_root / "concrete/x/a.md", vault.ltm_root / "concrete/x/b.md"
    moves.apply_moves(vault, [moves.Move(a, new_a), moves.Move(b, new_b)], set())
    assert not a.exists() and not b.exists() and new_a.is_file() and new_b.is_file()
    assert "(b.md)" in new_a.read_text(encoding="utf-8") and "(a.md)" in new_b.read_text(encoding="utf-8")
    assert notices == []


def test_a_save_renamed_over_braniacs_version_right_after_the_exchange_is_kept_and_braniac_writes_again(tmp_path,
                                                                                                       monkeypatch):
    """An editor checked the file just before braniac's exchange and renamed its save over it just
    after: braniac's version is gone. braniac used to report its write done (a chaos run lost an
    acknowledged event so); it finds its version replaced, and update_text applies its change
    again on the person's save."""
    from braniac.infra import checked
    path, _ = _version_1(tmp_path)
    real = checked._closed_then_stat

    def renamed_over(hidden):
        if not renamed_over.done:
            renamed_over.done = True
            save_by_rename(path, "version 1\nThe person's line.\n")
        return real(hidden)
    renamed_over.done = False
    monkeypatch.setattr(checked, "_closed_then_stat", renamed_over)
    fsio.update_text(path, lambda text: text if "braniac's line" in text else text + "braniac's line\n")
    assert path.read_text(encoding="utf-8") == "version 1\nThe person's line.\nbraniac's line\n"
    assert fsio.stale_temp_files(tmp_path) == [] and not _kept_beside(tmp_path)
