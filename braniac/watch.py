"""`braniac watch`: keep the search index in step with the files while people edit them.

watchfiles reports changes within a few hundred milliseconds. It can miss a file written right
after a new nested folder is created, so every new folder is walked, and a full reconcile
(the same incremental sync every command runs) happens periodically and when the vault is
quiet. Segment merging, which would slow a save down, waits for quiet time too.
"""
from __future__ import annotations

import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from .index import SearchIndex

if TYPE_CHECKING:
    from .vault import Vault

RECONCILE_SECONDS = 30.0
IGNORED_PARTS = {".braniac", ".git", ".obsidian", ".trash", "node_modules"}


def _relevant(vault_root: Path, path: str) -> bool:
    rel = Path(path).relative_to(vault_root) if Path(path).is_absolute() else Path(path)
    return not (IGNORED_PARTS & set(rel.parts)) and not rel.name.endswith(".braniac-tmp")


def run(vault: "Vault", *, stop: threading.Event | None = None, report: Callable[[str], None] = print,
        reconcile_seconds: float = RECONCILE_SECONDS, on_idle: Callable[[float], None] | None = None) -> None:
    """Watch until `stop` is set, Ctrl-C or SIGTERM. `on_idle(seconds_quiet)` runs on each
    quiet tick (promotion and organization hook in here)."""
    import watchfiles

    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
    index = SearchIndex(vault, notice=lambda m: report(m))
    first = index.sync()
    report(f"watching {vault.root} (index: {first.changed} files brought up to date)")
    last_change = last_reconcile = time.monotonic()
    merged_since_change = True
    root = vault.root
    try:
        for changes in watchfiles.watch(root, watch_filter=lambda _c, p: _relevant(root, p), debounce=200,
                                        step=20, stop_event=stop, rust_timeout=1000, yield_on_timeout=True,
                                        raise_interrupt=False):
            now = time.monotonic()
            if changes:
                touched: set[Path] = set()
                for _change, raw in changes:
                    path = Path(raw)
                    if path.is_dir():
                        touched.update(p for p in path.rglob("*.md"))  # files inside new folders may be unreported
                    else:
                        touched.add(path)
                touched = {p for p in touched if p.suffix == ".md" or not p.exists()}
                if touched:
                    result = index.sync(touched)
                    if result.changed:
                        report(f"indexed: {result.added} added, {result.updated} updated, {result.deleted} removed")
                last_change, merged_since_change = now, False
            if now - last_reconcile >= reconcile_seconds:
                index.sync()
                last_reconcile = now
            quiet = now - last_change
            if quiet >= 5 and not merged_since_change:
                index.optimize()
                merged_since_change = True
            if on_idle is not None and not changes:
                on_idle(quiet)
            if stop.is_set():
                break
    except KeyboardInterrupt:
        pass
    finally:
        index.close()
    report("stopped watching")
