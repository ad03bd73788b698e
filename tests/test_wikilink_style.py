"""`[vault] links = "wikilink"` (vault-format.md §8.1): braniac writes its own links as
Obsidian wikilinks, `[[../path|Title]]<!--uuid:…-->`, and every reader of braniac's links
(citations, manifests, Related Memories, moves, undo, doctor, search) takes them as it takes
Markdown links."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from braniac import Vault
from braniac.infra import clock
from braniac.infra.config import load
from braniac.infra.errors import ConfigError
from braniac.vault import claims, folder_index, moves, notes
from braniac.vault.links import MARKDOWN, WIKILINK_STYLE, find_links, make_link, plain
from braniac.vault.wikilinks import Resolver

from helpers import check_healthy, write_note

DAY = datetime(2025, 3, 2, 10, 0, tzinfo=timezone.utc)
FACTS = ["Ana is my sister; she lives in Lisbon and works as a nurse.",
         "Ana's dog Pixel is a border collie who loves the beach.",
         "My project Quill is written in Rust and uses SQLite for storage.",
         "To release Quill, run cargo publish and then push the tag."]


def _use_links(vault: Vault, style: str, more: str = "") -> None:
    (vault.root / "braniac.toml").write_text(f'[vault]\nlinks = "{style}"\n{more}', encoding="utf-8")


def _remember_and_promote(vault: Vault, texts: list[str], day: datetime) -> None:
    for n, text in enumerate(texts):
        with clock.frozen(day + timedelta(minutes=n)):
            vault.remember(text)
    with clock.frozen(day + timedelta(hours=2)):
        assert vault.promote(force=True).status == "done"


def _memory_links(vault: Vault) -> list[tuple[Path, object]]:
    return [(path, link) for path in sorted(vault.ltm_root.rglob("*.md"))
            for link in find_links(path.read_text(encoding="utf-8")) if not link.is_external]


def _opens_in_obsidian(vault: Vault, path: Path, link) -> str | None:
    """The file Obsidian opens for this link: its own rule, over the vault's files."""
    return Resolver.of_vault(vault.root).resolve(link.target.split("#", 1)[0], vault.relative(path))


def test_a_wikilink_vault_writes_links_obsidian_opens_and_braniac_reads(vault: Vault) -> None:
    _use_links(vault, "wikilink")
    _remember_and_promote(vault, FACTS, DAY)
    found = _memory_links(vault)
    assert found and {link.style for _, link in found} == {WIKILINK_STYLE}
    for path, link in found:
        text = path.read_text(encoding="utf-8")
        assert "](" not in text, path            # no Markdown link anywhere braniac wrote
        target = link.resolve(path)
        assert target.is_file(), (path, link)
        assert _opens_in_obsidian(vault, path, link) == vault.relative(target)   # the same file for both
        if link.uuid:
            assert notes.read(target).uuid == link.uuid
    # citations are read back: every claim names its events
    ana = vault.ltm_root / "concrete" / "people" / "ana.md"
    facts = claims.FactNote.load(ana).facts()
    assert facts and all(fact.sources and "[[" not in fact.text for fact in facts), facts
    # manifests list the notes, and search follows the links
    manifest = folder_index.read(ana.parent / "_index.md").manifest
    assert [e.path for e in manifest] == [ana] and manifest[0].style == WIKILINK_STYLE
    assert vault.search("Ana nurse")[0].path == vault.relative(ana)
    check_healthy(vault)


def test_a_note_moved_in_a_wikilink_vault_keeps_every_link(vault: Vault) -> None:
    _use_links(vault, "wikilink")
    _remember_and_promote(vault, FACTS, DAY)
    ana = vault.ltm_root / "concrete" / "people" / "ana.md"
    uuid = notes.read(ana).uuid
    new = vault.ltm_root / "concrete" / "family" / "ana.md"
    new.parent.mkdir(parents=True)
    moves.apply_moves(vault, [moves.Move(ana, new)], set())   # what organization's moves do
    to_ana = [(path, link) for path, link in _memory_links(vault) if link.uuid == uuid]
    assert to_ana
    for path, link in to_ana:
        assert link.style == WIKILINK_STYLE and link.resolve(path) == new
        assert _opens_in_obsidian(vault, path, link) == vault.relative(new)
    # the moved note's own links (its citations) were re-aimed from its new place
    for link in find_links(new.read_text(encoding="utf-8")):
        assert link.resolve(new).is_file() and link.style == WIKILINK_STYLE
    check_healthy(vault)


def test_undo_takes_wikilink_citations_out_with_the_run(tmp_path: Path) -> None:
    vault, _ = Vault.init(tmp_path / "vault", use_git=True)
    _use_links(vault, "wikilink", "[git]\nautocommit = true\n")   # undo reads the runs from git
    _remember_and_promote(vault, FACTS[:2], DAY)
    _remember_and_promote(vault, ["Ana moved to Porto in June."], DAY + timedelta(days=1))
    report = vault.undo()
    assert report.events and not report.dry_run
    for path, link in _memory_links(vault):
        assert link.resolve(path).is_file(), (path, link)
    assert "Porto" not in (vault.ltm_root / "concrete" / "people" / "ana.md").read_text(encoding="utf-8")
    check_healthy(vault)


def test_switching_styles_keeps_the_old_links_and_writes_the_new_style(vault: Vault) -> None:
    _remember_and_promote(vault, FACTS[:2], DAY)
    assert {link.style for _, link in _memory_links(vault)} == {MARKDOWN}
    _use_links(vault, "wikilink")
    _remember_and_promote(vault, ["Ana moved to Porto in June."], DAY + timedelta(days=1))
    styles = {link.style for _, link in _memory_links(vault)}
    assert styles == {MARKDOWN, WIKILINK_STYLE}     # what was written stays as written
    for path, link in _memory_links(vault):
        assert link.resolve(path).is_file()
    index = vault.ltm_root / "concrete" / "people" / "_index.md"
    assert "[[./ana|Ana]]<!--uuid:" in index.read_text(encoding="utf-8")   # a refreshed manifest: the new style
    check_healthy(vault)


def test_a_link_a_wikilink_cannot_hold_is_written_as_a_markdown_link(tmp_path: Path) -> None:
    here, there = tmp_path / "a" / "note.md", tmp_path / "b" / "C# tips.md"
    for text, target in (("Tips", there), ("a|b", tmp_path / "b" / "x.md"), ("[draft]", tmp_path / "b" / "x.md")):
        written = make_link(text, here, target, "u-1", WIKILINK_STYLE)
        assert written.startswith("[") and not written.startswith("[["), written
        (link,) = find_links(written)
        assert link.style == MARKDOWN and link.resolve(here) == target and link.uuid == "u-1"
    written = make_link("Ana", here, tmp_path / "a" / "ana.md", "u-2", WIKILINK_STYLE)
    assert written == "[[./ana|Ana]]<!--uuid:u-2-->" and plain(f"See {written}.") == "See Ana."


def test_a_persons_relative_wikilink_is_a_path_link(vault: Vault) -> None:
    ana = write_note(vault, "memory/long_term/concrete/people/ana.md", "Ana", "# Ana\n\nNurse in Lisbon.\n")
    note = write_note(vault, "memory/long_term/concrete/trips/lisbon.md", "Lisbon trip",
                      "# Trip\n\nStayed with [[../people/ana]] and [[../people/Nobody|someone]].\n")
    links = find_links(note.read_text(encoding="utf-8"))
    assert [link.resolve(note) for link in links] == [ana, ana.parent / "Nobody.md"]
    assert [link.text for link in links] == ["ana", "someone"]
    findings = [f for f in vault.doctor() if "Nobody" in f.reason]
    assert [f.severity for f in findings] == ["warning"]   # Obsidian would create it when clicked
    assert not [f for f in vault.doctor() if "link" in f.reason and f.severity == "problem"]


@pytest.mark.parametrize("value", ['"wiki"', "true", '""'])
def test_an_unknown_links_setting_is_a_clear_error(tmp_path: Path, value: str) -> None:
    (tmp_path / "braniac.toml").write_text(f"[vault]\nlinks = {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="vault.links"):
        load(tmp_path)
