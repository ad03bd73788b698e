"""A note's uuid is its own (issue 16, item 8): random, so two vaults (or two machines) that
write about the same title never share one; journaled before anything is written, so the
re-run after a crash gives a new note the uuid that links made before the crash carry."""
from __future__ import annotations

import pytest

from braniac import OfflineModel, Vault
from braniac.infra.config import load as load_config
from braniac.processes.promotion import promote
from braniac.processes.promotion import writing
from braniac.vault import notes

from test_organize import check_links, doctor_problems

TALK = ["Marta leads the billing team in Lisbon.", "The billing database runs PostgreSQL 16.",
        "Marta prefers short status updates on Fridays."]


def note_uuids(vault: Vault) -> dict[str, str]:
    return {vault.relative(p): notes.read(p).uuid for p in vault.iter_ltm_files()
            if p.name != "_index.md" and "/events/" not in p.as_posix()}


def test_two_vaults_writing_about_the_same_titles_share_no_uuid(tmp_path):
    found = []
    for name in ("a", "b"):
        vault, _ = Vault.init(tmp_path / name)
        for text in TALK:
            vault.remember(text)
        vault.promote(force=True)
        found.append(note_uuids(vault))
    assert found[0].keys() == found[1].keys() and found[0]
    assert not set(found[0].values()) & set(found[1].values())


class Crash(Exception):
    pass


def test_a_note_made_again_after_a_crash_gets_the_uuid_the_links_carry(tmp_path, monkeypatch):
    vault, _ = Vault.init(tmp_path / "vault")
    for text in TALK:
        vault.remember(text)
    real, written = writing.write_note, []

    def crash_after_the_first(*args, **kwargs):
        if written:
            raise Crash("killed")
        real(*args, **kwargs)
        written.append(args[1])

    monkeypatch.setattr(writing, "write_note", crash_after_the_first)
    monkeypatch.setattr("braniac.processes.promotion.run.write_note", crash_after_the_first)
    with pytest.raises(Crash):
        promote(vault, OfflineModel(), load_config(vault.root), force=True)
    first = note_uuids(vault)
    assert len(first) == 1 and written[0].related, "the note's draft relates to notes not written yet"
    assert doctor_problems(vault.root) == [], "right after the crash, no link leads to a note not written"
    monkeypatch.undo()
    report = promote(vault, OfflineModel(), load_config(vault.root), force=True)
    assert report.status == "done"
    after = note_uuids(vault)
    assert {k: after[k] for k in first} == first, "the note written before the crash keeps its uuid"
    # every link between the new notes carries the uuid its note has (the journal's)
    check_links(vault.root)
    assert doctor_problems(vault.root) == []
    assert not (vault.state_dir / "promotion" / "new-notes.json").exists()
