"""Related Memories that braniac keeps: a folder's _index.md links the folders its notes point
to (issue 16, item 5), and a link a person wrote is never taken over (item 7)."""
from __future__ import annotations

from datetime import timedelta

from braniac import Vault
from braniac.infra import clock
from braniac.infra.config import load as load_config
from braniac.processes.organization import organize
from braniac.vault import folder_index

from test_organize import LTM, NOW, build_scenario, check_links, doctor_problems, link_to, run_organize


def test_a_persons_bare_related_link_is_never_taken_over_nor_pruned(tmp_path):
    s = build_scenario(tmp_path / "vault")
    root = s.vault.root
    lifetimes = s.path("lifetimes")
    # the person links lifetimes -> ownership themselves, a bare line with no description
    mine = f"- {link_to(s.vault, s.paths['lifetimes'], s.paths['ownership'])}"
    assert "## Related Memories" not in lifetimes.read_text()
    lifetimes.write_text(lifetimes.read_text().rstrip("\n") + f"\n\n## Related Memories\n{mine}\n")
    run_organize(root)   # lifetimes and ownership are read together: organization links them
    lines = [line for line in lifetimes.read_text().splitlines() if s.uuids["ownership"] in line]
    assert len(lines) == 1 and "co-accessed" not in lines[0], "the person's line is theirs; it is not reweighed"
    # a year without use decays organization's links away; the person's line stays as written
    with clock.frozen(NOW + timedelta(days=365)):
        organize(s.vault, load_config(root), archive_after_days=10_000)
    lines = [line for line in lifetimes.read_text().splitlines() if s.uuids["ownership"] in line]
    assert len(lines) == 1 and lines[0].startswith("- [Rust ownership](") and "co-accessed" not in lines[0]
    check_links(root)


def test_folder_indexes_link_the_folders_their_notes_point_to(tmp_path):
    vault, _ = Vault.init(tmp_path / "vault")
    for text in ("Marta leads the billing team in Lisbon.", "The billing database runs PostgreSQL 16.",
                 "Marta moved to Lisbon from Porto last spring."):
        vault.remember(text)
    vault.promote(force=True)
    ltm = vault.ltm_root
    with_related = {}
    for index_path in ltm.rglob("_index.md"):
        entries = folder_index.read(index_path).related
        for entry in entries:
            assert entry.path.name == "_index.md" and entry.path.is_file()
            assert entry.uuid == folder_index.read(entry.path).note.uuid, "linked by the folder's uuid"
            assert entry.path.parent not in index_path.parent.parents and entry.path != index_path
        if entries:
            with_related[index_path.parent.relative_to(ltm).as_posix()] = [e.path.parent.relative_to(ltm).as_posix()
                                                                           for e in entries]
    # notes cite the day's events and link the notes they mention in other folders
    concrete = {k: v for k, v in with_related.items() if k.startswith("concrete/")}
    assert concrete and all(any(t.startswith("events/") for t in v) for v in concrete.values()), with_related
    assert any(t.startswith("concrete/") for v in concrete.values() for t in v), with_related
    # a parent folder passes on what its sub-folders found, outside itself
    assert any(t.startswith("events/") for t in with_related.get("concrete", [])), with_related
    assert doctor_problems(vault.root) == []
    check_links(vault.root)


def test_a_persons_entry_in_an_index_stays_first_and_braniacs_are_refreshed(tmp_path):
    s = build_scenario(tmp_path / "vault")
    root = s.vault.root
    run_organize(root)
    tech = folder_index.read(root / f"{LTM}/concrete/tech/_index.md")
    assert tech.related[0].path == root / f"{LTM}/concrete/tech/lang/ownership.md"
    assert tech.related[0].description == "the basics"
    doctor_problems(root)
