"""Idle-time work (vault-format.md §10): promotion after a quiet spell, organization after a long one,
for the REPL and `braniac watch`; with `[embedding]`, the vectors of the notes they wrote, so that
the next turns do not wait for them.

The clock that matters is the vault's, not the process's: "idle" means no new event in
short-term memory for `idle.promote_after_minutes`, whoever writes the events. Every run takes
the LTM lock without waiting, so it simply skips when cron or another process is at it.
"""
from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import TYPE_CHECKING

from ..infra import clock
from ..infra.errors import BraniacError
from ..infra.notices import describe_os_error, notice
from ..model import configured_model
from ..model.embeddings import Embedder
from ..model.types import ModelUnavailable
from ..search.meaning import fill_notes
from .adoption import QUIET_SECONDS, Adopter
from .organization import organize
from .promotion import idle_for, promote

if TYPE_CHECKING:
    from ..vault.store import VaultStore

CHECK_EVERY_SECONDS = 30.0
ADOPT_EVERY_SECONDS = 3.0    # a pass only stats the files it already knows need nothing
EMBED_PER_CHECK = 128        # two requests: a slow local model holds adoption up for seconds, not minutes


class IdleWorker:
    def __init__(self, vault: "VaultStore", *, model: str | None = None, organize: bool = False,
                 adopt_quiet_seconds: float = QUIET_SECONDS):
        self.vault = vault
        self.organize = organize
        self.model_name = model
        self.adopt_quiet_seconds = adopt_quiet_seconds
        self._adopter: Adopter | None = None
        self._last_adoption = 0.0
        self._last_check = 0.0
        self._quiet_files = 0.0
        self._running = threading.Lock()
        self._unembedded: list[str] = []   # notes promotion or organization wrote, waiting for vectors
        self._embedder: Embedder | None = None
        self._embedding_failed = False   # said once, until the model answers again

    def tick(self, quiet_seconds: float = 0.0) -> None:
        """Call often; does real work at most every CHECK_EVERY_SECONDS, and only when idle.
        `quiet_seconds`: how long no file of the vault changed (from `braniac watch`)."""
        self._quiet_files = quiet_seconds
        now = time.monotonic()
        adopt_due = now - self._last_adoption >= ADOPT_EVERY_SECONDS
        check_due = now - self._last_check >= CHECK_EVERY_SECONDS
        if not (adopt_due or check_due) or not self._running.acquire(blocking=False):
            return
        try:
            if adopt_due:
                self._last_adoption = now
                self._maybe_adopt()
            if not check_due:
                return
            self._last_check = now
            self._maybe_promote()
            if self.organize:
                self._maybe_organize()
            self._maybe_embed()
        except BraniacError as exc:
            notice(f"idle work failed: {exc}")
        except OSError as exc:   # a full disk, say: the next check tries again
            notice(f"idle work failed: {describe_os_error(exc)}")
        finally:
            self._running.release()

    def _maybe_adopt(self) -> None:
        """Notes and folders a person made by hand, once quiet (vault-format.md §3.1)."""
        cfg, _model = configured_model(self.vault.root, self.model_name)
        if self._adopter is None:
            self._adopter = Adopter(self.vault, cfg, quiet_seconds=self.adopt_quiet_seconds)
        self._adopter.config = cfg   # (braniac.toml may have changed: adopt_notes, autocommit)
        result = self._adopter.run()
        if result.adopted or result.folders or result.manifests:
            notice(result.describe())

    def _maybe_promote(self) -> None:
        cfg, model = configured_model(self.vault.root, self.model_name)
        quiet = idle_for(self.vault)
        if quiet is None or quiet < timedelta(minutes=cfg.promote_idle_minutes):
            return
        result = promote(self.vault, model, cfg)
        if result.status == "done":
            notice(result.describe())
            self._to_embed(result.files)

    def _maybe_organize(self) -> None:
        """After `idle.organize_after_minutes` of quiet, and at most once per such spell."""
        cfg, model = configured_model(self.vault.root, self.model_name)
        limit = timedelta(minutes=cfg.organize_idle_minutes)
        quiet = idle_for(self.vault)
        if (quiet is not None and quiet < limit) or self._quiet_files < limit.total_seconds():
            return  # someone is still writing events or editing files
        last = self.vault.last_run("organization")
        if last and clock.now() - clock.parse_iso(last) < limit:
            return
        result = organize(self.vault, cfg, model=model)
        notice(result.describe())
        if result.status == "done":
            self._to_embed(result.files)

    def _to_embed(self, files: list[str]) -> None:
        self._unembedded += [f for f in files if f not in self._unembedded]

    def _maybe_embed(self) -> None:
        """The vectors of the notes written since, EMBED_PER_CHECK per check and only while no
        new event comes (a turn's own call to a local model is not kept waiting behind them);
        while the model fails the notes wait, and that is said once until it answers again."""
        if not self._unembedded:
            return
        cfg, _model = configured_model(self.vault.root, self.model_name)
        if not cfg.embedding.name:
            self._unembedded.clear()
            return
        quiet = idle_for(self.vault)
        if quiet is not None and quiet < timedelta(minutes=cfg.promote_idle_minutes):
            return
        if self._embedder is None or self._embedder.config != cfg.embedding:
            self.close()
            self._embedder = Embedder(cfg.embedding, self.vault.root)
        try:
            self._unembedded = fill_notes(self.vault, self._unembedded, self._embedder, EMBED_PER_CHECK)
            self._embedding_failed = self._embedder.failing
        except ModelUnavailable as exc:
            if not self._embedding_failed:
                notice(f"the vectors of new notes wait until the embedding model answers: {exc}")
            self._embedding_failed = True

    def close(self) -> None:
        """Let go of the vector cache (the worker may go on; it opens it again when needed)."""
        if self._embedder is not None:
            self._embedder.close()
            self._embedder = None

    def start_background(self, stop: threading.Event) -> threading.Thread:
        """For the REPL: check in a daemon thread until `stop` is set."""
        def loop() -> None:
            while not stop.wait(5.0):
                self.tick()
            with self._running:
                self.close()
        thread = threading.Thread(target=loop, name="braniac-idle", daemon=True)
        thread.start()
        return thread
