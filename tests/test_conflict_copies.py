"""A conflict copy (`NAME.conflict-XXXXXX.md`, what braniac keeps beside a note when two saves
crossed, vault-format.md §10.7) carries the note's frontmatter, uuid included. Until the person
merges it, the uuid still means the note: links are repaired to the note, the manifest lists the
copy under a name of its own, promotion writes into the note, and doctor names the copy as a
copy to merge, not as a duplicate uuid."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from braniac import Vault
from braniac.infra import clock
from braniac.infra.checked import kept_beside, uuid_home
from braniac.vault import notes


def _at(y, m, d, h=10):
    return clock.frozen(datetime(y, m, d, h, tzinfo=timezone.utc))


def _note(path: Path, title: str, body: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(notes.Note.new(title=title, body=body).render(), encoding="utf-8")
    return notes.read(path).uuid


def _copy_beside(note: Path, extra: str = "") -> Path:
    """What braniac's give-back leaves: the note's text as it was, under a conflict name (one
    that sorts before the note's own: `ana.conflict-…` < `ana.md`)."""
    copy = note.with_name(f"{note.stem}.conflict-0a1b2c{note.suffix}")
    copy.write_text(note.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return copy


def test_a_conflict_copy_names_the_note_it_was_kept_beside():
    assert kept_beside(Path("people/ana.conflict-1a2b3c.md")) == Path("people/ana.md")
    assert kept_beside(Path("people/ana.md")) is None
    assert kept_beside(Path("people/ana.conflict-notes.md")) is None   # a person's own name
    note, copy = Path("ana.md"), Path("ana.conflict-1a2b3c.md")
    assert uuid_home(copy, note) == uuid_home(note, copy) == uuid_home(None, note) == note
    assert uuid_home(Path("ana-silva.md"), copy) == Path("ana-silva.md")   # a note renamed since


def test_the_uuid_means_the_note_whatever_order_the_files_come_in(vault: Vault):
    note = vault.ltm_root / "concrete" / "people" / "ana.md"
    uuid = _note(note, "Ana", "# Ana\n\n- Ana lives in Porto.\n")
    _copy_beside(note)
    assert vault.uuid_map()[uuid] == note


def test_doctor_names_the_copy_to_merge_and_no_duplicate_uuid(vault: Vault):
    note = vault.ltm_root / "concrete" / "people" / "ana.md"
    _note(note, "Ana", "# Ana\n\n- Ana lives in Porto.\n")
    copy = _copy_beside(note, "- a line only the copy has\n")
    other = vault.ltm_root / "concrete" / "people" / "bob.md"
    other.write_text(note.read_text(encoding="utf-8").replace("Ana", "Bob"), encoding="utf-8")   # a real duplicate
    found = vault.doctor()
    about_copy = [f for f in found if f.path.endswith(copy.name)]
    assert [f.severity for f in about_copy] == ["warning"], found
    assert "conflict copy of ana.md" in about_copy[0].reason and "merge" in about_copy[0].reason
    duplicates = [f for f in found if f.reason.startswith("duplicate uuid")]
    assert len(duplicates) == 1, duplicates
    said = duplicates[0].path + " " + duplicates[0].reason
    assert "people/ana.md" in said and "people/bob.md" in said, said


def test_a_link_is_repaired_to_the_note_not_to_its_copy(vault: Vault):
    """The person renamed ana.md: its link in bob.md leads nowhere, and only its uuid says where
    it went; the conflict copy left under the old name shares that uuid."""
    note = vault.ltm_root / "concrete" / "people" / "ana.md"
    uuid = _note(note, "Ana", "# Ana\n")
    linking = vault.ltm_root / "concrete" / "people" / "bob.md"
    _note(linking, "Bob", f'# Bob\n\nKnows [Ana](ana.md "uuid:{uuid}").\n')
    _copy_beside(note)
    renamed = note.with_name("ana-silva.md")
    note.rename(renamed)
    vault.repair()
    assert f'[Ana](ana-silva.md "uuid:{uuid}")' in linking.read_text(encoding="utf-8")


def test_promotion_writes_into_the_note_and_lists_the_copy_apart(vault: Vault):
    with _at(2025, 3, 1):
        vault.remember("My sister Ana lives in Porto and works at Globex as an engineer.")
    with _at(2025, 3, 1, 11):
        vault.remember("Ana loves climbing and plays the cello.")
    with _at(2025, 3, 1, 23):
        vault.promote(force=True)
    note = next(vault.ltm_root.rglob("ana.md"))
    copy = _copy_beside(note, "- a line only the copy has\n")
    with _at(2025, 3, 5):
        vault.remember("Ana adopted a cat named Miso.")
    with _at(2025, 3, 5, 11):
        vault.remember("Ana started learning Japanese.")
    with _at(2025, 3, 5, 23):
        vault.promote(force=True)
    assert "Miso" in note.read_text(encoding="utf-8") and "Miso" not in copy.read_text(encoding="utf-8")
    manifest = (note.parent / "_index.md").read_text(encoding="utf-8")
    uuid = notes.read(note).uuid
    assert f'[Ana](ana.md "uuid:{uuid}")' in manifest
    assert f"[Ana (conflict copy)]({copy.name})" in manifest, manifest
    assert [f.severity for f in vault.doctor()] == ["warning"]
