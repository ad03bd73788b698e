"""A replayed conversation's vault, with a person's own notes written Obsidian's way, read by a
third-party parser of Obsidian vaults (obsidiantools, a dev dependency): every link braniac
wrote and every wikilink the person wrote opens its file, property types are the ones Obsidian
shows, no file name uses a character Obsidian forbids, `.obsidian/` and `.trash/` untouched
(bench/obsidian_fit.py measures the same over the LoCoMo dev set)."""
from __future__ import annotations

import sys

import pytest

from braniac.infra import clock
from braniac.vault import notes

from helpers import REPO, check_healthy

sys.path.insert(0, str(REPO / "bench"))

import obsidian_fit  # noqa: E402
from test_locomo_harness import SAMPLE  # noqa: E402

pytest.importorskip("obsidiantools")


@pytest.mark.slow   # (about 7 s: a replay, and obsidiantools imports pandas)
@pytest.mark.parametrize("links", ["markdown", "wikilink"])   # the vault's `[vault] links` setting
def test_a_replayed_vault_fits_obsidian(tmp_path, links: str) -> None:
    try:
        vault = obsidian_fit.replay(SAMPLE, tmp_path / "vault", links=links)
    finally:
        clock.set_clock(None)
    found = obsidian_fit.fit(vault.root)
    assert found["braniac_links_read_by_obsidiantools"] > 0 and found["wikilinks"] >= 5, found
    if links == "wikilink":   # obsidiantools reads wikilinks, not Markdown links that carry a title
        assert found["braniac_links_read_by_obsidiantools"] >= 0.9 * found["braniac_links_written"], found
    assert found["braniac_links_resolved_pct"] == 100.0, found["first_unresolved"]
    assert found["wikilinks_resolved_pct"] == 100.0, found["first_unresolved"]
    assert found["property_type_violations"] == 0, found["first_violations"]
    assert found["forbidden_file_names"] == 0, found["first_bad_names"]
    assert found["obsidian_and_trash_untouched"]
    for rel in obsidian_fit.PERSON_NOTES:   # the person's notes are memories now (wherever organized)
        if rel.endswith(".md"):
            [path] = vault.ltm_root.rglob(rel.rsplit("/", 1)[1])
            assert notes.read(path).problems() == [], rel
    check_healthy(vault)
