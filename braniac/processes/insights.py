"""What `braniac stats` says about use: hubs and stale memories, from the index and the logs."""
from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from ..infra import clock
from ..search.index import SearchIndex
from ..vault.layout import ARCHIVE, FOLDER_INDEX, LONG_TERM
from ..vault.usage import read_usage

if TYPE_CHECKING:
    from ..vault.store import VaultStore

STALE_AFTER_DAYS = 60
TOP = 5


def usage_stats(vault: "VaultStore") -> dict:
    index = SearchIndex(vault)
    try:
        index.sync()
        files = index.files()
        inbound = index.inbound_counts()
    finally:
        index.close()
    notes = {rel for rel in files if rel.startswith(LONG_TERM + "/") and not rel.endswith("/" + FOLDER_INDEX)
             and "/events/" not in rel and f"/{ARCHIVE}/" not in rel}
    usage = read_usage(vault.logs_dir)
    most_linked = sorted(((inbound.get(r, 0), r) for r in notes if inbound.get(r, 0) > 1), reverse=True)[:TOP]
    most_read = [(n, r) for r, n in usage.reads.most_common() if r in notes][:TOP]
    cutoff = clock.now() - timedelta(days=STALE_AFTER_DAYS)
    stale = []
    for rel in notes:
        important = inbound.get(rel, 0) >= 3 or usage.reads.get(rel, 0) >= 3
        last = usage.last_read.get(rel)
        if important and last is not None and last < cutoff:
            stale.append({"path": rel, "last_read": clock.iso(last), "reads": usage.reads.get(rel, 0),
                          "links_in": inbound.get(rel, 0)})
    stale.sort(key=lambda s: s["last_read"])
    return {
        "hubs": {"most_linked": [{"path": r, "links_in": n} for n, r in most_linked],
                 "most_read": [{"path": r, "reads": n} for n, r in most_read]},
        "stale": stale[:TOP],
    }
