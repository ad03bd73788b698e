"""Adoption (vault-format.md §3.1): a note a person writes by hand under long-term memory, in a
folder they made, becomes a full memory (missing keys added, body bytes unchanged, `_index.md`
chain, manifests, its own commit) from `doctor --fix`, `organize` and `watch`; only once it has
been quiet, and never over a save that lands meanwhile."""
from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from braniac import Vault
from braniac.app import watch
from braniac.infra.config import load
from braniac.processes import adoption as adoption_process
from braniac.processes.adoption import Adopter
from braniac.processes.idle import IdleWorker
from braniac.vault import folder_index, notes

from helpers import check_healthy, run_cli, snapshot

REL = "memory/long_term/concrete/recipes/breakfast/Pancakes.md"
BODY = b"# Pancakes\n\nMix flour, eggs and milk; rest the batter. #recipe #breakfast\n\nGoes with [[Maple syrup]].\n"


@pytest.fixture
def git_vault(tmp_path: Path) -> Vault:
    vault, _ = Vault.init(tmp_path / "vault", use_git=True)
    return vault


def hand_write(vault: Vault, rel: str = REL, data: bytes = BODY, *, age: float = 60.0) -> Path:
    """A file written in an editor `age` seconds ago, in folders made by hand."""
    path = vault.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    past = time.time() - age
    for p in [path, *path.parents]:
        if p == vault.ltm_root:
            break
        os.utime(p, (past, past))
    return path


def assert_adopted(vault: Vault, path: Path, body: bytes = BODY) -> None:
    data = path.read_bytes()
    assert data.startswith(b"---\n") and data.endswith(body), data   # the body, byte for byte
    note = notes.read(path)
    assert note.problems() == []
    assert note.tags == ["recipe", "breakfast"] and note.meta["emotion"] == "neutral"
    assert note.body.encode() == body
    for folder in (path.parent, path.parent.parent):   # the _index.md chain, each listing its child
        index = folder_index.read(folder / "_index.md")
        assert [e.path.resolve() for e in index.manifest if e.path.resolve() in (path, path.parent / "_index.md")]
    listed = folder_index.read(path.parent / "_index.md").manifest
    assert [e.uuid for e in listed] == [note.uuid]
    check_healthy(vault)


def adoption_commits(vault: Vault) -> list[str]:
    log = subprocess.run(["git", "-C", str(vault.root), "log", "--format=%s"], capture_output=True, text=True).stdout
    return [line for line in log.splitlines() if "written by hand" in line]


def test_doctor_fix_adopts_a_note_in_a_new_nested_folder(git_vault: Vault) -> None:
    path = hand_write(git_vault)
    assert any("no _index.md" in f.reason for f in git_vault.doctor())
    before = snapshot(git_vault.root)
    plan = run_cli("--vault", git_vault.root, "doctor", "--fix", "--dry-run")
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert f"would    adopt {REL}" in plan.stdout and "recipes/_index.md" in plan.stdout
    assert snapshot(git_vault.root) == before   # a dry run writes nothing
    done = run_cli("--vault", git_vault.root, "doctor", "--fix")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"did      adopt {REL}" in done.stdout
    assert_adopted(git_vault, path)
    assert adoption_commits(git_vault) == ["braniac: adopt 1 note written by hand"]
    status = subprocess.run(["git", "-C", str(git_vault.root), "status", "--porcelain"], capture_output=True, text=True)
    assert status.stdout == ""   # everything it wrote is in that commit
    assert git_vault.search("batter")[0].path == REL


def test_organize_adopts_notes_first_in_a_commit_of_their_own(git_vault: Vault) -> None:
    path = hand_write(git_vault)
    report = git_vault.organize()
    assert report.adopted == [REL]
    assert_adopted(git_vault, path)
    assert adoption_commits(git_vault) == ["braniac: adopt 1 note written by hand"]


def test_keys_the_person_wrote_stay_and_only_missing_ones_are_added(vault: Vault) -> None:
    front = b"---\n# my own comment\naliases: [hotcakes]\ntags:\n  - recipe\n  - breakfast\nemotion: happy\n---\n"
    path = hand_write(vault, data=front + BODY)
    vault.repair()
    data = path.read_bytes()
    head, body = data[:-len(BODY)], data[-len(BODY):]
    assert body == BODY
    assert head.startswith(front[:-4])   # every line the person wrote, in place; new keys after
    note = notes.read(path)
    assert note.meta["emotion"] == "happy" and note.meta["aliases"] == ["hotcakes"] and note.problems() == []


def test_a_note_saved_in_several_steps_is_adopted_once_after_it_is_quiet(git_vault: Vault) -> None:
    config = load(git_vault.root)
    adopter = Adopter(git_vault, config, quiet_seconds=0.4)
    saves = [b"# Pancakes\n", b"# Pancakes\n\nMix flour", BODY]
    for data in saves:
        hand_write(git_vault, data=data, age=0)
        report = adopter.run()
        # the folders made by hand a moment ago wait too (each gets its _index.md once quiet)
        assert report.adopted == [] and report.waiting == ["memory/long_term/concrete/recipes",
                                                           "memory/long_term/concrete/recipes/breakfast", REL]
        time.sleep(0.1)
    assert not (git_vault.root / REL).read_bytes().startswith(b"---")
    time.sleep(0.4)
    assert adopter.run().adopted == [REL]
    assert adopter.run().adopted == []   # once
    assert_adopted(git_vault, git_vault.root / REL)   # the last save's body
    assert adoption_commits(git_vault) == ["braniac: adopt 1 note written by hand"]


def test_a_save_landing_while_braniac_adopts_is_kept(vault: Vault, monkeypatch) -> None:
    path = hand_write(vault, data=b"# Pancakes\n\nfirst\n")
    real = adoption_process.adopted_text

    def meanwhile(text, rel, st):
        os.utime(path, (st.st_mtime - 100, st.st_mtime - 100))
        path.write_bytes(BODY)   # the person saves between braniac's read and its write
        return real(text, rel, st)

    monkeypatch.setattr(adoption_process, "adopted_text", meanwhile)
    report = Adopter(vault, load(vault.root), quiet_seconds=0).run()
    assert report.adopted == [] and report.waiting == [REL]
    assert path.read_bytes() == BODY   # their save stands
    monkeypatch.setattr(adoption_process, "adopted_text", real)
    assert Adopter(vault, load(vault.root), quiet_seconds=0).run().adopted == [REL]
    assert_adopted(vault, path)


def test_adoption_can_be_turned_off(vault: Vault) -> None:
    (vault.root / "braniac.toml").write_text("[vault]\nadopt_notes = false\n", encoding="utf-8")
    path = hand_write(vault)
    assert vault.organize().adopted == []
    report = vault.repair()
    assert any("adoption is off" in line for line in report.done)
    assert path.read_bytes() == BODY


@contextlib.contextmanager
def watching(vault: Vault):
    """`braniac watch` with its idle worker (adoption after 0.5 s of quiet), in a thread, live."""
    stop = threading.Event()
    worker = IdleWorker(vault, adopt_quiet_seconds=0.5)
    thread = threading.Thread(target=watch.run, args=(vault,), kwargs={"stop": stop, "on_idle": worker.tick})
    thread.start()
    try:
        time.sleep(0.5)
        yield
    finally:
        stop.set()
        thread.join(timeout=30)


def until(done, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not done():
        time.sleep(0.1)


def test_watch_adopts_a_note_once_it_is_quiet(vault: Vault) -> None:
    with watching(vault):
        path = hand_write(vault, age=0)
        until(lambda: path.read_bytes().startswith(b"---"))
    assert_adopted(vault, path)


def test_doctor_fix_repairs_links_from_their_uuid_and_reports_what_it_cannot(vault: Vault) -> None:
    target = vault.ltm_root / "concrete" / "ana.md"
    target.write_text(notes.Note.new(title="Ana", body="# Ana\n").render(), encoding="utf-8")
    uuid = notes.read(target).uuid
    moved = vault.ltm_root / "skills" / "ana.md"
    linking = vault.ltm_root / "concrete" / "bob.md"
    linking.write_text(notes.Note.new(title="Bob", body=f'# Bob\n\nKnows [Ana](ana.md "uuid:{uuid}").\n').render(),
                       encoding="utf-8")
    target.rename(moved)   # a move by hand
    bob_copy = vault.ltm_root / "skills" / "bob-copy.md"
    bob_copy.write_text(linking.read_text(encoding="utf-8"), encoding="utf-8")   # a duplicate uuid
    dup = notes.read(linking).uuid
    temp = vault.ltm_root / ".ana.md.1234abcd.braniac-tmp"
    temp.write_text("half", encoding="utf-8")
    report = vault.repair()
    assert f'[Ana](../skills/ana.md "uuid:{uuid}")' in linking.read_text(encoding="utf-8")
    assert f'[Ana](ana.md "uuid:{uuid}")' in bob_copy.read_text(encoding="utf-8")   # (it was right there)
    assert not temp.exists()
    left = [f for f in report.remaining if f.severity == "problem"]
    assert left and all(dup in f.reason for f in left)   # what needs a person: the duplicate alone
    duplicate = next(f for f in left if f.reason.startswith(f"duplicate uuid {dup}"))
    assert "new uuid" in report.advice(duplicate)


def test_watch_brings_a_manifest_up_to_date_after_a_person_renames_a_note(vault: Vault) -> None:
    """A note renamed in a file manager: the folder's manifest lists the new name, not the old,
    without waiting for `doctor --fix`."""
    path = hand_write(vault)
    vault.adopt()
    folder = path.parent
    assert "](Pancakes.md" in (folder / "_index.md").read_text(encoding="utf-8")
    with watching(vault):
        path.rename(folder / "Fluffy pancakes.md")
        until(lambda: "Fluffy%20pancakes.md" in (folder / "_index.md").read_text(encoding="utf-8"))
    manifest = folder_index.read(folder / "_index.md").manifest
    assert [e.path.name for e in manifest] == ["Fluffy pancakes.md"]
    assert not [f for f in vault.doctor() if "manifest" in f.reason], vault.doctor()


def test_doctor_fix_says_a_folder_made_moments_ago_waits_rather_than_that_it_is_left(vault: Vault) -> None:
    (vault.ltm_root / "concrete/garden").mkdir()
    report = vault.repair()
    assert "memory/long_term/concrete/garden" in report.waiting
    left = [f for f in report.remaining if f.path == "memory/long_term/concrete/garden"]
    assert left and report.advice(left[0]).startswith("saved moments ago")
