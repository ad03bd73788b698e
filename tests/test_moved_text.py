"""Text that moves between folders keeps working links (issue 16, item 2): an answer quoting a
note's claim (with its relative citations) stored in short_term.md, a person's link in a
`remember`, and both again once promotion archives the event under events/…"""
from __future__ import annotations

import os

from braniac import ScriptedModel, Vault
from braniac.vault import stm
from braniac.vault.links import find_links

from test_organize import check_links, doctor_problems


def links_resolve_to(path, expected) -> None:
    text = path.read_text(encoding="utf-8")
    targets = [link.resolve(path) for link in find_links(text) if not link.is_external]
    assert targets and all(t.is_file() for t in targets), (path, targets)
    assert expected <= set(targets), (expected, targets)


def test_quoted_citations_and_a_persons_links_keep_resolving_when_the_text_moves(tmp_path):
    vault, _ = Vault.init(tmp_path / "vault")
    vault.remember("Ana works at Unbabel as a translator.")
    vault.promote(force=True)
    note = next(p for p in vault.ltm_root.rglob("unbabel.md"))

    # an answer quoting an excerpt with a link as written in the excerpt's note (relative to it)
    quoted = {}

    def answer(wm):
        source = vault.root / wm.excerpts[0].path
        target = note if source != note else vault.root / wm.excerpts[1].path
        link = f"[{target.stem}]({os.path.relpath(target, source.parent)})"
        quoted["target"] = target
        return f"From memory: Ana works at Unbabel. See {link}."

    vault.ask("Where does Ana work?", model=ScriptedModel().enqueue("answer", answer))
    # and a person's link, written relative to short_term.md as Obsidian reads it
    rel = note.relative_to(vault.stm_path.parent).as_posix()
    vault.remember(f"Ana's profile is in [her note]({rel}).")

    events = vault.read_stm().events
    assert len(events) == 2
    text = vault.stm_path.read_text(encoding="utf-8")
    stm_targets = {link.resolve(vault.stm_path) for link in find_links(text) if not link.is_external}
    assert quoted["target"] in stm_targets and note in stm_targets, "the quoted links work from short_term.md"
    assert all(t.is_file() for t in stm_targets)

    vault.promote(force=True)
    assert not vault.read_stm().events
    for event in events:
        archived = next(vault.ltm_root.rglob(f"{event.id.replace(':', '-')}.md"))
        links_resolve_to(archived, set())
    assert doctor_problems(vault.root) == []
    check_links(vault.root)


def test_a_link_in_a_remembered_text_does_not_leak_into_folder_manifests(tmp_path):
    vault, _ = Vault.init(tmp_path / "vault")
    vault.remember("Ana works at Unbabel as a translator.")
    vault.promote(force=True)
    note = next(p for p in vault.ltm_root.rglob("unbabel.md"))
    vault.remember(f"See [Ana's employer]({note.relative_to(vault.stm_path.parent).as_posix()}) for the address.")
    vault.promote(force=True)
    for index in vault.ltm_root.rglob("_index.md"):
        manifest = index.read_text().split("## Manifest", 1)[-1].split("## Related Memories")[0]
        for line in manifest.splitlines():
            assert len(find_links(line)) <= 1, (index, line)   # the entry's own link, no other
    assert doctor_problems(vault.root) == []
    assert stm.parse(vault.stm_path.read_text()).events == []
