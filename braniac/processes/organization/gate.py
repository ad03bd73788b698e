"""The retrieval gate: a plan that moves or archives notes is applied to a staging copy of the
vault first, and the probes (past queries, and the notes each turn then read) are re-run on
it; the plan lands only if recall and rank do not drop."""
from __future__ import annotations

import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra.errors import LockBusy
from ...infra.fsio import locked
from ...infra.fsio_folders import copy_tree, remove_tree
from ...search.index import SearchIndex
from ...vault.layout import LOGS, MEMORY_ROOTS, SEARCH_INDEX_DIR, STATE_DIR
from ...vault.store import VaultStore
from ...vault.usage import Probe, Usage
from .apply import apply
from .operations import LinkChange, Operation, Relocation

if TYPE_CHECKING:
    from .report import OrganizeReport

MAX_PROBES = 200
INDEX_LOCK_SECONDS = 10.0


def gate(vault: VaultStore, history: Usage, operations: list[Operation], report: "OrganizeReport") -> list[Operation]:
    """The operations that may land: all of them, or without the moves and archives of notes
    people used, or only the link changes. The report tells the measures and why."""
    probes = history.probes[-MAX_PROBES:]
    links_only = [op for op in operations if isinstance(op, LinkChange)]
    if not probes:
        report.gate = {"probes": 0, "note": "no past queries in the access log; structure changes wait for use"}
        if len(links_only) < len(operations):
            report.reason = "no probes to check moves and archives against; they wait for a run with usage data"
        return links_only
    before = _measure(vault, probes, vault)
    staging = _staging(vault)
    try:
        apply(staging, operations, set())
        after = _measure(staging, probes, vault)
        if _no_worse(after, before):
            report.gate = {"probes": len(probes), "before": before, "after": after, "landed": True}
            return operations
        # drop the structural operations that touch notes people used, and check again
        used = {rel for probe in probes for rel in probe.read}
        safer = [op for op in operations if not isinstance(op, Relocation) or op.path not in used]
        remove_tree(staging.root)
        staging = _staging(vault)
        apply(staging, safer, set())
        retry = _measure(staging, probes, vault)
        landed = _no_worse(retry, before)
        report.gate = {"probes": len(probes), "before": before, "after": after, "after_without_used_notes": retry,
                       "landed": landed}
        report.status = "gated"
        report.reason = (f"recall {before['recall']:.3f} -> {after['recall']:.3f}, MRR {before['mrr']:.3f} -> "
                         f"{after['mrr']:.3f} on {len(probes)} past queries; "
                         + ("kept only the operations on notes no probe used" if landed else "nothing structural landed"))
        return safer if landed else links_only
    finally:
        remove_tree(staging.root)


def _no_worse(after: dict, before: dict) -> bool:
    return after["recall"] + 1e-9 >= before["recall"] and after["mrr"] + 1e-9 >= before["mrr"]


def _staging_parent(vault: VaultStore) -> Path:
    return vault.state_dir / "organize"


def clear_staging(vault: VaultStore) -> None:
    """Remove the staging copies killed runs left (the caller holds the LTM lock: no gate runs)."""
    for old in _staging_parent(vault).glob("staging*"):
        remove_tree(old)


def _staging(vault: VaultStore) -> VaultStore:
    """A copy of the vault under .braniac/ (files hard-linked: braniac only ever replaces files,
    never edits them in place), with a copy of its search index. A fresh name each time: one a
    killed run left that cannot be removed never stands in the way."""
    root = _staging_parent(vault) / f"staging-{secrets.token_hex(4)}"
    root.mkdir(parents=True)
    for name in MEMORY_ROOTS:
        copy_tree(vault.root / name, root / name, hard_links=True)
    # copied, never hard-linked: logs are appended to in place (the staged moves are noted in
    # the staging's access.log), which must not reach the vault's own log
    copy_tree(vault.logs_dir, root / LOGS)
    _copy_index(vault, root / STATE_DIR / SEARCH_INDEX_DIR)
    return VaultStore(root)


def _copy_index(vault: VaultStore, target: Path) -> None:
    """The live search index, copied under its lock (lock order: ltm -> index) so that no sync
    changes it midway; when it is busy for long, the staging index is built from the files."""
    try:
        with locked(vault.lock_path("index"), timeout=INDEX_LOCK_SECONDS, what="search index"):
            copy_tree(vault.state_dir / SEARCH_INDEX_DIR, target)
    except LockBusy:
        remove_tree(target)


def _measure(vault: VaultStore, probes: list[Probe], live: VaultStore) -> dict:
    """Recall and mean reciprocal rank of the notes each probe's turn actually read (by uuid), in
    the top max(10, notes read) results: a turn that read 50 notes (a large search_limit) is
    measured on its top 50, else recall@10 hardly sees a change at all."""
    index = SearchIndex(vault)
    index.sync()
    live_index = SearchIndex(live)
    files = live_index.files()
    recall = mrr = 0.0
    counted = 0
    for probe in probes:
        wanted = {files[rel]["u"] for rel in probe.read if rel in files and files[rel].get("u")}
        if not wanted:
            continue
        hits = [h.uuid for h in index.search(probe.query, limit=max(10, len(wanted)), sync=False)]
        found = [hits.index(u) for u in wanted if u in hits]
        recall += len(found) / len(wanted)
        mrr += sum(1 / (r + 1) for r in found) / len(wanted)
        counted += 1
    index.close()
    return {"recall": round(recall / max(counted, 1), 4), "mrr": round(mrr / max(counted, 1), 4), "probes": counted}
