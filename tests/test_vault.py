"""The vault on disk: init, discovery, remember, uuid map, doctor, stats, locks and writes."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import datetime, timezone

import pytest

from braniac import Vault
from braniac.vault import access_log, folder_index, links, notes, stm
from braniac.infra import clock, fsio
from braniac.infra.errors import InputError, LockBusy, NoteError, STMError, VaultExists, VaultNotFound
from braniac.vault.folder_index import Entry

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def problems(vault: Vault) -> list[tuple[str, str]]:
    return [(f.path, f.reason) for f in vault.doctor() if f.severity == "problem"]


# ------------------------------------------------------------------------------ init

def test_init_creates_the_spec_layout_and_is_healthy(vault):
    for rel in ("system/core_identity.md", "memory/short_term.md", "logs/access.log", "braniac.toml",
                "memory/long_term/_index.md", "memory/long_term/concrete/_index.md",
                "memory/long_term/events/_index.md", "memory/long_term/skills/_index.md"):
        assert (vault.root / rel).is_file(), rel
    assert vault.doctor() == []
    text = "".join(p.read_text(encoding="utf-8") for p in vault.root.rglob("*.md"))
    assert "__UUID" not in text and "__NOW__" not in text
    for path in vault.iter_markdown():
        if path != vault.stm_path:
            note = notes.read(path)
            assert note.problems() == [], path
            assert UUID.match(note.uuid)


def test_init_links_the_root_index_to_its_children_by_uuid(vault):
    root = folder_index.read(vault.ltm_root / "_index.md")
    uuids = vault.uuid_map()
    assert len(root.manifest) == 3
    for entry in root.manifest:
        assert entry.path.exists()
        assert uuids[entry.uuid] == entry.path
    assert len(set(uuids)) == len(list(vault.iter_markdown())) - 1  # every file but short_term.md


def test_init_uses_the_clock(tmp_path):
    with clock.frozen(datetime(2025, 9, 16, 15, 30, tzinfo=timezone.utc)):
        made, _ = Vault.init(tmp_path / "v")
    assert notes.read(made.identity_path).meta["created_at"] == datetime(2025, 9, 16, 15, 30, tzinfo=timezone.utc)


def test_init_refuses_non_empty_and_force_adds_only_missing(tmp_path):
    root = tmp_path / "v"
    root.mkdir()
    (root / "mine.txt").write_text("mine")
    with pytest.raises(VaultExists, match="not empty.*--force"):
        Vault.init(root)
    assert sorted(p.name for p in root.iterdir()) == ["mine.txt"]
    (root / "system").mkdir()
    (root / "system" / "core_identity.md").write_text("my own identity\n")
    made, created = Vault.init(root, force=True)
    assert (root / "system" / "core_identity.md").read_text() == "my own identity\n"
    assert (root / "mine.txt").read_text() == "mine"
    assert root / "system" / "core_identity.md" not in created
    assert root / "memory" / "short_term.md" in created
    again, created_again = Vault.init(root, force=True)
    assert created_again == []


def test_init_on_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(VaultExists, match="not a folder"):
        Vault.init(tmp_path / "f")


# ------------------------------------------------------------------------------ finding

def test_find_order_explicit_then_env_then_cwd(tmp_path):
    a, _ = Vault.init(tmp_path / "a")
    b, _ = Vault.init(tmp_path / "b")
    c, _ = Vault.init(tmp_path / "c")
    deep = c.ltm_root / "concrete" / "deep folder"
    deep.mkdir()
    env = {"BRANIAC_VAULT": str(b.root)}
    assert Vault.find(a.root, env=env, cwd=deep).root == a.root
    assert Vault.find(None, env=env, cwd=deep).root == b.root
    assert Vault.find(None, env={}, cwd=deep).root == c.root
    with pytest.raises(VaultNotFound, match="braniac init"):
        Vault.find(None, env={}, cwd=tmp_path)


@pytest.mark.parametrize("make", ["missing", "empty", "file"])
def test_not_a_vault(tmp_path, make):
    path = tmp_path / "x"
    if make == "empty":
        path.mkdir()
    elif make == "file":
        path.write_text("x")
    with pytest.raises(VaultNotFound) as info:
        Vault(path)
    assert str(path) in str(info.value) and "braniac init PATH" in str(info.value)


# ------------------------------------------------------------------------------ remember

def test_remember_puts_newest_first_with_distinct_ids(vault):
    with clock.frozen(datetime(2025, 9, 16, 15, 30, tzinfo=timezone.utc)):
        stored = [vault.remember(f"fact number {n}") for n in range(5)]
    assert [s.id for s in stored] == ["2025-09-16T15:30:00Z"] + [f"2025-09-16T15:30:00.00{n}Z" for n in range(1, 5)]
    events = vault.read_stm().events
    assert [e.id for e in events] == [s.id for s in reversed(stored)]
    assert [e.fields["User"] for e in events] == [f"fact number {n}" for n in reversed(range(5))]
    assert vault.stats()["short_term"]["events"] == 5
    assert problems(vault) == []


def test_remember_skips_ids_already_archived_that_day(vault):
    day = vault.ltm_root / "events" / "2025" / "09" / "16"
    day.mkdir(parents=True)
    archived = notes.Note.new(title="Archive", body="### 2025-09-16T15:30:00Z\nold\n\n### 2025-09-16T15:30:00.001Z\n")
    notes.write(archived, day / "archive.md")
    with clock.frozen(datetime(2025, 9, 16, 15, 30, tzinfo=timezone.utc)):
        event = vault.remember("new")
    assert event.id == "2025-09-16T15:30:00.002Z"


def test_remember_refuses_empty_nul_and_undecodable_text(vault):
    before = vault.stm_path.read_bytes()
    for bad in ["", "   \n", "a\x00b", "bad \udcff byte", "x" * 200_001]:
        with pytest.raises(InputError):
            vault.remember(bad)
    assert vault.stm_path.read_bytes() == before


def test_summary_is_never_touched_by_remember(vault):
    text = stm.render_new("A summary a promotion wrote.\n\nSecond paragraph.")
    vault.stm_path.write_text(text, encoding="utf-8")
    vault.remember("hello")
    assert vault.read_stm().summary == "A summary a promotion wrote.\n\nSecond paragraph."
    assert vault.stm_path.read_text(encoding="utf-8").startswith(text[: text.index("## Event Log")])


def test_remember_without_short_term_memory(vault):
    vault.stm_path.unlink()
    with pytest.raises(STMError, match="init --force"):
        vault.remember("x")
    assert not vault.stm_path.exists()


# ------------------------------------------------------------------------------ uuid map

def test_uuid_map_resolves_uuids_to_paths_and_follows_moves(vault):
    folder = vault.ltm_root / "concrete" / "café notes"
    folder.mkdir()
    note = notes.Note.new(title="Espresso", body="Ratio 1:2.\n")
    old = notes.write(note, folder / "espresso ratio.md")
    assert vault.uuid_map()[note.uuid] == old
    new = vault.ltm_root / "skills" / "-dash name ü.md"
    old.rename(new)
    mapping = vault.uuid_map()
    assert mapping[note.uuid] == new
    # a link written before the move no longer resolves by path, but its uuid still finds the note
    index = vault.ltm_root / "concrete" / "_index.md"
    (found,) = links.find_links(links.make_link("Espresso", index, old, note.uuid))
    assert not found.resolve(index).exists()
    assert mapping[found.uuid] == new
    assert mapping[notes.read(index).uuid] == index


def test_uuid_map_skips_unreadable_files(vault):
    (vault.ltm_root / "concrete" / "broken.md").write_text("---\nuuid: [x\n---\n", encoding="utf-8")
    (vault.ltm_root / "concrete" / "binary.md").write_bytes(b"\x00\x01")
    mapping = vault.uuid_map()
    assert all(p.name not in ("broken.md", "binary.md") for p in mapping.values())


# ------------------------------------------------------------------------------ doctor and stats

def test_doctor_names_each_problem_with_its_file(vault):
    concrete = vault.ltm_root / "concrete"
    dup = notes.read(concrete / "_index.md").uuid
    (concrete / "dup.md").write_text(f"---\nuuid: {dup}\ncreated_at: 2025-01-01T00:00:00Z\n"
                                     "updated_at: 2025-01-01T00:00:00Z\ntags: []\nemotion: calm\n---\n"
                                     "[gone](nowhere.md \"uuid:abc\") [out](../../../../etc/passwd)\n")
    (concrete / "no index").mkdir()
    (concrete / ".stale.md.1234.braniac-tmp").write_text("x")
    found = {(f.path, f.reason, f.severity) for f in vault.doctor()}
    rel = "memory/long_term/concrete/dup.md"
    assert (rel, f"duplicate uuid {dup} (also in memory/long_term/concrete/_index.md)", "problem") in found
    assert (rel, "link 'nowhere.md' (uuid abc) does not resolve", "problem") in found
    assert (rel, "link '../../../../etc/passwd' leaves the vault", "problem") in found
    assert ("memory/long_term/concrete/no index", "long-term memory folder has no _index.md (vault-format.md §7)",
            "problem") in found
    assert ("memory/long_term/concrete/_index.md", "'dup.md' is not in the manifest", "warning") in found
    assert ("memory/long_term/concrete/.stale.md.1234.braniac-tmp",
            "leftover temp file of an interrupted write (safe to delete)", "warning") in found


def test_doctor_sees_a_moved_manifest_entry(vault):
    concrete = vault.ltm_root / "concrete"
    note = notes.Note.new(title="A", body="a\n")
    path = notes.write(note, concrete / "a.md")
    index = folder_index.read(concrete / "_index.md")
    index.set_manifest([Entry("A", path, note.uuid)])
    fsio.atomic_write(index.path, index.render())
    assert problems(vault) == []
    (vault.ltm_root / "skills" / "a.md").write_bytes(path.read_bytes())
    path.unlink()
    assert ("memory/long_term/concrete/_index.md",
            f"manifest entry 'A' points at a.md, but uuid {note.uuid} is now memory/long_term/skills/a.md") in problems(vault)


def test_stats_counts_tiers(vault):
    for tier, count in (("concrete", 2), ("events", 1), ("skills", 0)):
        for n in range(count):
            notes.write(notes.Note.new(title=f"{tier}{n}", body="x\n"), vault.ltm_root / tier / f"n{n}.md")
    notes.write(notes.Note.new(title="loose", body="x\n"), vault.ltm_root / "loose.md")
    vault.remember("one")
    data = vault.stats()
    assert data["vault"] == str(vault.root)
    assert data["long_term"] == {"concrete": 2, "events": 1, "skills": 0, "other": 1, "indexes": 4}
    assert data["short_term"] == {"events": 1, "open_goals": 0, "open_tasks": 0}
    assert data["last_promotion"] is None


# ------------------------------------------------------------------------------ access log

def test_access_log_round_trip_and_malformed_lines(vault):
    at = datetime(2025, 9, 16, 15, 30, tzinfo=timezone.utc)
    target = vault.ltm_root / "concrete" / "a b.md"
    access_log.record(vault.access_log_path, [target, vault.ltm_root / "_index.md"], at=at)
    with open(vault.access_log_path, "a", encoding="utf-8") as handle:
        handle.write("garbage line\nnot-a-time | READ | /x\n")
    lines = vault.access_log_path.read_text(encoding="utf-8").splitlines()
    # vault-relative: the log means the same at every path and on every machine the vault is cloned to
    assert lines[0] == "2025-09-16T15:30:00Z | READ | memory/long_term/concrete/a b.md"
    parsed = access_log.read(vault.access_log_path)
    assert [(e.at, e.action, e.path) for e in parsed.entries] == [
        (at, "READ", "memory/long_term/concrete/a b.md"), (at, "READ", "memory/long_term/_index.md")]
    assert [n for n, _ in parsed.malformed] == [3, 4]


# ------------------------------------------------------------------------------ writes and locks

def test_atomic_write_refuses_to_overwrite_a_concurrent_edit(tmp_path):
    path = tmp_path / "note.md"
    path.write_text("original")
    before = os.stat(path)
    time.sleep(0.01)
    path.write_text("edited by a person")
    with pytest.raises(fsio.ConcurrentEdit):
        fsio.atomic_write(path, "stale copy", expect_unchanged=before)
    assert path.read_text() == "edited by a person"
    assert fsio.stale_temp_files(tmp_path) == []


def test_atomic_write_keeps_the_mode(tmp_path):
    path = tmp_path / "x.md"
    path.write_text("a")
    path.chmod(0o600)
    fsio.atomic_write(path, "b")
    assert path.read_text() == "b" and (path.stat().st_mode & 0o777) == 0o600


def test_update_text_retries_after_a_concurrent_edit(tmp_path):
    path = tmp_path / "x.md"
    path.write_text("1")
    calls = []

    def change(text: str) -> str:
        calls.append(text)
        if len(calls) == 1:
            time.sleep(0.01)
            path.write_text("2")  # someone edits while we think
        return text + "+"

    assert fsio.update_text(path, change) == "2+"
    assert calls == ["1", "2"] and path.read_text() == "2+"


@pytest.mark.parametrize("data, words", [(b"\x00abc", "binary"), (b"ok\n\xff\xfe", ":2: not valid UTF-8"),
                                         (b"x" * 2048, "too large")])
def test_read_text_refusals(tmp_path, data, words):
    path = tmp_path / "f.md"
    path.write_bytes(data)
    with pytest.raises(NoteError, match=words):
        fsio.read_text(path, limit=1024)


def test_lock_held_by_another_process_gives_lock_busy(vault):
    lock = vault.lock_path("stm")
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from braniac.infra import fsio\n"
         f"with fsio.locked({str(lock)!r}):\n    print('held', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with pytest.raises(LockBusy, match="short-term memory"):
            with fsio.locked(lock, timeout=0.3, what="short-term memory"):
                pass
        assert time.monotonic() - started < 5
    finally:
        holder.kill()
        holder.wait()
    with fsio.locked(lock, timeout=5):  # released by the kernel when the holder died
        pass


def test_symlinked_note_leaving_the_vault_is_not_read(vault, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = notes.Note.new(title="Secret", body="not yours\n")
    notes.write(secret, outside / "secret.md")
    (vault.ltm_root / "concrete" / "link.md").symlink_to(outside / "secret.md")
    assert secret.uuid not in vault.uuid_map()
    assert all("link.md" not in str(p) for p in vault.iter_markdown())
    inner = vault.ltm_root / "concrete" / "inner.md"
    inner.symlink_to(vault.identity_path)  # a symlink inside the vault is fine
    assert inner in list(vault.iter_markdown())


def test_init_works_where_hard_links_do_not(tmp_path, monkeypatch):
    """A vault on a file system without hard links (exFAT, some shares) is still created whole,
    and init still never overwrites a file."""
    def no_links(src, dst):
        raise OSError(1, "Operation not permitted")
    monkeypatch.setattr(fsio.os, "link", no_links)
    vault, created = Vault.init(tmp_path / "v")
    assert created and not [p for p in (tmp_path / "v").rglob("*braniac-tmp")]
    assert fsio.create_file(vault.stm_path, "x") is False
    assert "Event Log" in vault.stm_path.read_text(encoding="utf-8")
