"""`braniac watch`: keep the search index in step with the files while people edit them.

watchfiles reports changes within a few tens of milliseconds. The first full sync runs only
once the watcher is live, so nothing saved after the "watching" line can be missed. A file
written right after a new nested folder is created may go unreported (the folder's own watch
is not set up yet), so every new or moved folder is synced as a whole when it is reported and
again a little later; a full reconcile (the same incremental sync every command runs) also
happens periodically. Folding all the small segments into one, which would slow a save down,
waits for quiet time (commits fold only a few small ones), and idle work (promotion) runs in its own thread so that it never delays indexing a save.
"""
from __future__ import annotations

import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..infra.notices import notice
from ..vault.layout import is_memory_name
from ..search.index import SearchIndex

if TYPE_CHECKING:
    from ..api import Vault

RECONCILE_SECONDS = 30.0
RESCAN_AFTER = (0.3, 1.0)   # seconds after a folder appears, sync it again
TICK_MS = 200               # the loop wakes at least this often (rescans, stop, idle)
MERGE_AFTER_QUIET = 5.0


def _relevant(vault_root: Path, path: str) -> bool:
    try:
        rel = Path(path).relative_to(vault_root) if Path(path).is_absolute() else Path(path)
    except ValueError:
        return False
    return all(is_memory_name(part) for part in rel.parts) and not rel.name.endswith(".braniac-tmp")


def run(vault: "Vault", *, stop: threading.Event | None = None,
        reconcile_seconds: float = RECONCILE_SECONDS, on_idle: Callable[[float], None] | None = None) -> None:
    """Watch until `stop` is set, Ctrl-C or SIGTERM. `on_idle(seconds_quiet)` is called about
    once a second, from its own thread, while no file changes (promotion hooks in here)."""
    import watchfiles

    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
    index = SearchIndex(vault)
    root = vault.root
    state = {"last_change": time.monotonic()}
    idle_thread = None
    started = False
    try:
        last_reconcile = time.monotonic()
        merged_since_change = True
        rescans: list[tuple[float, Path]] = []
        for changes in watchfiles.watch(root, watch_filter=lambda _c, p: _relevant(root, p), debounce=200,
                                        step=20, stop_event=stop, rust_timeout=TICK_MS, yield_on_timeout=True,
                                        raise_interrupt=True):
            now = time.monotonic()
            if not started:
                # The watcher is live from the first iteration on: what the first sync misses
                # is in `changes` or in the next ones.
                first = index.sync()
                notice(f"watching {vault.root} (index: {first.changed} files brought up to date)")
                started, last_reconcile = True, time.monotonic()
                if on_idle is not None:
                    idle_thread = _start_idle(on_idle, stop, state)
            touched: set[Path] = set()
            for _change, raw in changes:
                path = Path(raw)
                if path.suffix == ".md" or not path.exists() or path.is_dir():
                    touched.add(path)  # a folder (new, moved in or away) stands for all files under it
                if path.is_dir():
                    rescans += [(now + delay, path) for delay in RESCAN_AFTER]
            due = [path for when, path in rescans if when <= now]
            if due:
                rescans = [(when, path) for when, path in rescans if when > now]
                touched.update(due)
            if touched:
                result = index.sync(touched)
                if result.changed:
                    notice(f"indexed: {result.added} added, {result.updated} updated, {result.deleted} removed")
            if changes:
                state["last_change"], merged_since_change = now, False
            if now - last_reconcile >= reconcile_seconds:
                index.sync()
                last_reconcile = now
            if now - state["last_change"] >= MERGE_AFTER_QUIET and not merged_since_change:
                index.fold_small_segments()
                merged_since_change = True
            if stop.is_set():
                break
    except KeyboardInterrupt:
        pass  # Ctrl-C (SIGINT), even during the first sync: a clean stop
    finally:
        stop.set()
        if idle_thread is not None:
            idle_thread.join()  # let a promotion in progress finish its writes
        index.close()
    notice("stopped watching")


def _start_idle(on_idle: Callable[[float], None], stop: threading.Event, state: dict) -> threading.Thread:
    def loop() -> None:
        while not stop.wait(1.0):
            quiet = time.monotonic() - state["last_change"]
            if quiet >= 1.0:
                try:
                    on_idle(quiet)
                except Exception as exc:  # never let idle work stop the watcher; say what happened
                    notice(f"idle work failed: {type(exc).__name__}: {exc}")

    thread = threading.Thread(target=loop, name="braniac-idle", daemon=True)
    thread.start()
    return thread


class ChangeFeed:
    """For a long-lived process (the chat): a background watcher that collects the paths that
    changed, so each turn syncs just those instead of walking the whole vault. Until the
    watcher is live, and every RECONCILE_SECONDS, `pending()` asks for a full sync instead."""

    FULL = None

    def __init__(self, vault: "Vault"):
        self.vault = vault
        self._paths: set[str] = set()
        self._lock = threading.Lock()
        self._live = threading.Event()
        self._stop = threading.Event()
        self._last_full = 0.0
        self._thread = threading.Thread(target=self._run, name="braniac-change-feed", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            import watchfiles
            root = self.vault.root
            for changes in watchfiles.watch(root, watch_filter=lambda _c, p: _relevant(root, p), debounce=50,
                                            step=20, stop_event=self._stop, rust_timeout=TICK_MS,
                                            yield_on_timeout=True, raise_interrupt=False):
                self._live.set()
                with self._lock:
                    self._paths.update(path for _change, path in changes)  # a folder stands for its contents
                if self._stop.is_set():
                    return
        except Exception:
            pass  # no watcher: every turn falls back to the full sync
        finally:
            self._live.clear()

    def pending(self) -> list[str] | None:
        """The paths to sync now, or None for a full sync (watcher not live, or reconcile due)."""
        now = time.monotonic()
        if not self._live.is_set() or now - self._last_full >= RECONCILE_SECONDS:
            self._last_full = now
            with self._lock:
                self._paths.clear()
            return self.FULL
        with self._lock:
            paths, self._paths = sorted(self._paths), set()
        return paths

    def close(self) -> None:
        self._stop.set()
