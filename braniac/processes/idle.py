"""Idle-time work (spec §4.1): promotion after a quiet spell, for the REPL and `braniac watch`.

The clock that matters is the vault's, not the process's: "idle" means no new event in
short-term memory for `idle.promote_after_minutes`, whoever writes the events. Every run takes
the LTM lock without waiting, so it simply skips when cron or another process is at it.
"""
from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import TYPE_CHECKING, Callable

from .. import config as config_module
from ..errors import BraniacError

if TYPE_CHECKING:
    from ..vault import Vault

CHECK_EVERY_SECONDS = 30.0


class IdleWorker:
    def __init__(self, vault: "Vault", *, model: str | None = None, report: Callable[[str], None] = print):
        self.vault = vault
        self.model_name = model
        self.report = report
        self._last_check = 0.0
        self._running = threading.Lock()

    def tick(self, _quiet_seconds: float = 0.0) -> None:
        """Call often; does real work at most every CHECK_EVERY_SECONDS, and only when idle."""
        now = time.monotonic()
        if now - self._last_check < CHECK_EVERY_SECONDS or not self._running.acquire(blocking=False):
            return
        self._last_check = now
        try:
            self._maybe_promote()
        except BraniacError as exc:
            self.report(f"idle promotion failed: {exc}")
        finally:
            self._running.release()

    def _maybe_promote(self) -> None:
        from ..model import get_model
        from .promotion import idle_for, promote
        cfg = config_module.load(self.vault.root, model=self.model_name)
        quiet = idle_for(self.vault)
        if quiet is None or quiet < timedelta(minutes=cfg.promote_idle_minutes):
            return
        result = promote(self.vault, get_model(cfg, self.vault.root), cfg, notice=self.report)
        if result.status == "done":
            self.report(result.describe())

    def start_background(self, stop: threading.Event) -> threading.Thread:
        """For the REPL: check in a daemon thread until `stop` is set."""
        def loop() -> None:
            while not stop.wait(5.0):
                self.tick()
        thread = threading.Thread(target=loop, name="braniac-idle", daemon=True)
        thread.start()
        return thread
