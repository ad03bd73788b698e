"""Obsidian daily notes (vault-format.md §6.1): with `[vault] daily_notes`, the person's note of
a day is linked from promotion's digest of that day, and what they write there is memory like
any other note (searchable, adopted, listed)."""
from __future__ import annotations

import os
import time
from datetime import datetime, timezone

import pytest

from braniac import Vault
from braniac.infra import clock
from braniac.infra.config import load
from braniac.infra.errors import ConfigError
from braniac.vault import folder_index, notes
from braniac.vault.links import find_links

from helpers import check_healthy

DAY = datetime(2025, 3, 2, 10, 0, tzinfo=timezone.utc)


def test_the_digest_links_the_days_note_and_the_note_is_memory(vault: Vault) -> None:
    (vault.root / "braniac.toml").write_text('[vault]\ndaily_notes = "memory/long_term/daily"\n', encoding="utf-8")
    daily = vault.ltm_root / "daily" / "2025-03-02.md"
    daily.parent.mkdir(parents=True)
    daily.write_bytes(b"Climbing gym with Marta after work; the blue route at last.\n")
    old = time.time() - 60
    os.utime(daily, (old, old))
    os.utime(daily.parent, (old, old))
    with clock.frozen(DAY):
        vault.remember("Marta and I booked the bouldering course for April.")
    with clock.frozen(DAY.replace(hour=12)):
        report = vault.promote(force=True)
    assert report.status == "done"
    digest = vault.ltm_root / "events" / "2025" / "03" / "02" / "digest.md"
    related = [link for link in find_links(digest.read_text(encoding="utf-8")) if "Daily note" in link.text]
    assert len(related) == 1 and related[0].resolve(digest) == daily
    assert vault.search("blue route")[0].path == vault.relative(daily)
    vault.repair()   # (or watch, the chat, organize): adopted like any note written by hand
    assert notes.read(daily).problems() == [] and daily.read_bytes().endswith(b"the blue route at last.\n")
    assert [e.path for e in folder_index.read(daily.parent / "_index.md").manifest] == [daily]
    with clock.frozen(DAY.replace(hour=13)):
        vault.remember("Marta lent me her chalk bag.")
        vault.promote(force=True)   # the same day again: still one link
    related = [link for link in find_links(digest.read_text(encoding="utf-8")) if "Daily note" in link.text]
    assert len(related) == 1
    check_healthy(vault)


@pytest.mark.parametrize("value", ["Daily", "../elsewhere", "memory/long_term/.hidden"])
def test_a_daily_notes_folder_outside_long_term_memory_is_refused(tmp_path, value: str) -> None:
    (tmp_path / "braniac.toml").write_text(f'[vault]\ndaily_notes = "{value}"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="daily_notes"):
        load(tmp_path)
