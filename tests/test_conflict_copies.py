"""A conflict copy (`NAME.conflict-XXXXXX.md`, what braniac keeps beside a note when two saves
crossed, vault-format.md §10.7) carries the note's frontmatter, uuid included. Until the person
merges it, the uuid still means the note: links are repaired to the note, the manifest lists the
copy under a name of its own, promotion writes into the note, and doctor names the copy as a
copy to merge, not as a duplicate uuid."""
from __future__ import annotations

import os
import time
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


def _a_day(vault: Vault, day: int, *said: str) -> None:
    """Say each at its hour of a March 2025 day, then promote late that day."""
    for hour, text in enumerate(said, start=10):
        with _at(2025, 3, day, hour):
            vault.remember(text)
    with _at(2025, 3, day, 23):
        vault.promote(force=True)


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
    _a_day(vault, 1, "My sister Ana lives in Porto and works at Globex as an engineer.",
           "Ana loves climbing and plays the cello.")
    note = next(vault.ltm_root.rglob("ana.md"))
    copy = _copy_beside(note, "- a line only the copy has\n")
    _a_day(vault, 5, "Ana adopted a cat named Miso.", "Ana started learning Japanese.")
    assert "Miso" in note.read_text(encoding="utf-8") and "Miso" not in copy.read_text(encoding="utf-8")
    manifest = (note.parent / "_index.md").read_text(encoding="utf-8")
    uuid = notes.read(note).uuid
    assert f'[Ana](ana.md "uuid:{uuid}")' in manifest
    assert f"[Ana (conflict copy)]({copy.name})" in manifest, manifest
    assert [f.severity for f in vault.doctor()] == ["warning"]


def test_two_copies_of_a_deleted_note_are_two_owners_and_no_link_guesses_between_them(vault: Vault):
    """The person deleted ana.md, and two copies of it remain that disagree (Porto, Lisbon): a
    link to its uuid would be a guess, so doctor --fix leaves it as it is (doctor names it)."""
    note = vault.ltm_root / "concrete" / "people" / "ana.md"
    uuid = _note(note, "Ana", "# Ana\n\n- Ana lives in Porto.\n")
    _copy_beside(note)
    note.with_name("ana.conflict-ddeeff.md").write_text(note.read_text(encoding="utf-8").replace("Porto", "Lisbon"),
                                                        encoding="utf-8")
    linking = note.with_name("bob.md")
    _note(linking, "Bob", f'# Bob\n\nKnows [Ana](ana.md "uuid:{uuid}").\n')
    note.unlink()
    vault.repair()
    assert f'Knows [Ana](ana.md "uuid:{uuid}").' in linking.read_text(encoding="utf-8")
    assert any("does not resolve" in f.reason and f.path.endswith("bob.md") for f in vault.doctor())


def test_a_persons_own_note_named_like_a_copy_is_no_copy(vault: Vault):
    """"neighbours.conflict-240315.md" (a dispute, dated): six digits are hex, but no note is
    beside it and no other file carries its uuid."""
    own = vault.ltm_root / "concrete" / "home" / "neighbours.conflict-240315.md"
    uuid = _note(own, "Neighbours conflict 2024-03-15", "# Neighbours conflict 2024-03-15\n\nThe hedge dispute.\n")
    past = time.time() - 3600   # a folder made by hand is adopted once it has been quiet
    for path in (own, own.parent):
        os.utime(path, (past, past))
    vault.repair()
    manifest = (own.parent / "_index.md").read_text(encoding="utf-8")
    assert f'[Neighbours conflict 2024-03-15](neighbours.conflict-240315.md "uuid:{uuid}")' in manifest, manifest
    assert "conflict copy" not in manifest
    assert vault.doctor() == []


def test_a_copy_moved_by_organize_does_not_take_the_links_of_its_renamed_note(vault: Vault):
    """Organize archives a stale copy while a link to the note, which the person renamed, leads
    nowhere: the link must not be re-aimed at the archived copy (doctor --fix finds the note)."""
    from braniac.vault.moves import Move, apply_moves
    note = vault.ltm_root / "concrete" / "people" / "ana.md"
    uuid = _note(note, "Ana", "# Ana\n\n- Ana lives in Porto.\n")
    copy = _copy_beside(note)
    linking = note.with_name("bob.md")
    _note(linking, "Bob", f'# Bob\n\nKnows [Ana](ana.md "uuid:{uuid}").\n')
    note.rename(note.with_name("ana-silva.md"))
    archived = vault.ltm_root / "archive" / "concrete" / "people" / copy.name
    apply_moves(vault, [Move(copy, archived)], set())
    assert archived.exists() and "archive" not in linking.read_text(encoding="utf-8")
    vault.repair()
    assert f'[Ana](ana-silva.md "uuid:{uuid}")' in linking.read_text(encoding="utf-8")


def test_sync_takes_an_edit_to_the_moved_note_not_to_the_copy_beside_its_old_place(shared):
    """Machine A moves ana.md into people/, machine B edits it where it was; a conflict copy sits
    beside the old place on both. The edit follows the note, never into the copy."""
    from braniac.vault.moves import Move, apply_moves
    _, a, b = shared
    old, new = "memory/long_term/concrete/ana.md", "memory/long_term/concrete/people/ana.md"
    copy = "memory/long_term/concrete/ana.conflict-0a1b2c.md"
    _note(a.root / old, "Ana", "# Ana\n\nAna.\n")
    (a.root / copy).write_text((a.root / old).read_text(encoding="utf-8").replace("# Ana\n", "# Ana\n\nCopy-only line.\n"),
                               encoding="utf-8")
    a.sync()
    b.sync()
    apply_moves(a, [Move(a.root / old, a.root / new)], set())
    # organize wrote links into it too: git sees a removal and a new file, not a rename
    (a.root / new).write_text((a.root / new).read_text(encoding="utf-8") + "\n## Related Memories\n" + "".join(
        f'- [Rui](../rui.md "uuid:1c8b4d2f-5f00-4a11-9c3d-2e1f0a9b8c7d") — co-accessed, weight 0.{n}0\n'
        for n in range(1, 9)), encoding="utf-8")
    assert a.sync().sent
    edited = (b.root / old).read_text(encoding="utf-8").replace("Ana.\n", "Ana.\n\nAna speaks four languages.\n")
    (b.root / old).write_text(edited, encoding="utf-8")
    b.sync()
    assert "four languages" in (b.root / new).read_text(encoding="utf-8")
    assert "four languages" not in (b.root / copy).read_text(encoding="utf-8")
    assert not (b.root / old).exists()
