"""The public facade: `braniac.Vault`, what a Python user (and every `braniac` command) calls.

    from braniac import Vault
    vault = Vault.find()                      # --vault, BRANIAC_VAULT, nearest enclosing vault
    vault.remember("The deploy key lives in 1Password, vault 'ops'.")
    turn = vault.ask("Where is the deploy key?")
    print(vault.promote(force=True).describe())

It adds the processes to the vault on disk (`VaultStore`); the layers below never call it.
Wherever a model is accepted, it may be a LiteLLM model name or a model object (anything that
implements `braniac.model.MemoryModel`, e.g. `ScriptedModel` in tests); with neither, the
vault's configuration decides (`BRANIAC_MODEL`, then `braniac.toml`, else the offline engine).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from .infra.config import ModelConfig
from .infra.errors import ConfigError, InputError, LockBusy, STMError
from .infra.fsio import locked
from .model import MemoryModel, configured_model
from .model.embeddings import Embedder
from .model.offline import OfflineModel
from .processes import handoff, insights
from .processes.handoff import Orientation
from .processes.lookup import NoteText
from .processes.recall import Recall, Recaller
from .processes.recall import search as search_index
from .processes.adoption import AdoptionReport
from .processes.adoption import adopt as run_adoption
from .processes.repair import RepairReport
from .processes.repair import repair as run_repair
from .processes.core_loop import Turn
from .processes.organization import OrganizeReport
from .processes.organization import organize as run_organization
from .processes.promotion import PromotionReport
from .processes.promotion import promote as run_promotion
from .processes.reflection import remember as remember_text
from .processes.sync import RemoteSyncReport
from .processes.sync import sync as run_sync
from .processes.sync.clone import clone as clone_vault
from .processes.undo import UndoReport, WorkerRun, list_runs, require_repo
from .processes.undo import undo as run_undo
from .search.index import Hit, SearchIndex, SyncReport
from .search.meaning import fill as fill_vectors
from .session import Session
from .vault import doctor as doctor_module
from .vault import stm
from .vault.doctor import Finding
from .vault.layout import TIERS
from .vault.store import StoredEvent, VaultStore


# how long doctor waits for a promotion or organization running to end (seconds)
DOCTOR_WAITS = 10.0


class Vault(VaultStore):
    """A braniac vault: its files (see `VaultStore`) and the four processes over them."""

    # ------------------------------------------------------------------ short-term memory
    def remember(self, text: str) -> StoredEvent:
        """Store the person's words verbatim as an event (`braniac remember`), picking up any
        goal, task or decision they state ("remind me to ..." becomes an open task)."""
        if not isinstance(text, str):
            raise InputError("remember takes text")
        return remember_text(self, text)

    # ------------------------------------------------------------------ search
    def search(self, query: str, *, limit: int = 10, kind: str | None = None, archived: bool = False) -> list[Hit]:
        """`braniac search`: ranked hits (title, path, uuid, kind, score, excerpt); archived
        memories only when asked for."""
        index = SearchIndex(self)
        try:
            return search_index(index, query, limit=limit, kind=kind, archived=archived)
        finally:
            index.close()

    def recall(self, query: str, *, limit: int | None = None) -> Recall:
        """What a chat turn would put in working memory for `query` (excerpts with path, uuid and
        the events they cite), logged to the access log as a turn is; for an assistant with its
        own model (`braniac recall`, the MCP server)."""
        with self.recaller() as recaller:
            return recaller.recall(query, limit=limit)

    def read(self, ref: str) -> NoteText:
        """One memory file by uuid or vault path, confined to the vault; its status says when it
        was archived or superseded."""
        with self.recaller() as recaller:
            return recaller.read(ref)

    def recaller(self, *, changes=None) -> Recaller:
        """`recall`, `search` and `read` over one search index kept open, for a long-lived
        process (the MCP server); with `changes` (a watcher's `ChangeFeed`) each call syncs only
        the files that changed. Close it when done (it is a context manager)."""
        config, _model = configured_model(self.root, OfflineModel())
        return Recaller(self, config, changes=changes)

    def reindex(self, *, progress: Callable[[int, int], None] | None = None) -> SyncReport:
        """`braniac reindex`: rebuild the search index from the files, from scratch."""
        index = SearchIndex(self)
        try:
            report = index.rebuild(progress=progress)
            index.optimize()
            return report
        finally:
            index.close()

    def fill_vectors(self, *, progress: Callable[[int, int], None] | None = None) -> tuple[int, int]:
        """`braniac reindex --vectors`: the vector of every long-term passage from the
        `[embedding]` model, asked for now rather than during the first turns that need it.
        Returns (passages, asked for); raises ModelUnavailable when the model fails."""
        embedder, index = Embedder(self.embedding_settings(), self.root), SearchIndex(self)
        try:
            return fill_vectors(index, embedder, progress)
        finally:
            index.close()
            embedder.close()

    def embedding_settings(self) -> ModelConfig:
        """The `[embedding]` settings in force; ConfigError when no model is named."""
        config, _model = configured_model(self.root, OfflineModel())
        if not config.embedding.name:
            raise ConfigError("no embedding model: set [embedding] name in braniac.toml (or BRANIAC_EMBEDDING_MODEL)")
        return config.embedding

    # ------------------------------------------------------------------ a session's two ends
    def orient(self, *, events: int = 5, days: int = 3) -> Orientation:
        """`braniac orient`: the packet an assistant reads at the start of a session (identity,
        short-term Summary, open goals and tasks, the last handoff, latest events, decisions of
        the last `days` days, hubs)."""
        return handoff.orient(self, events=events, days=days)

    def wrap_up(self, summary: str, *, open_loops: list[str] | tuple[str, ...] = (),
                next_step: str | None = None) -> StoredEvent:
        """`braniac wrap-up`: the end of a session as an event, its open loops (and next step) as
        open tasks, so that the next `orient` starts where this session stopped."""
        return handoff.wrap_up(self, summary, open_loops, next_step)

    # ------------------------------------------------------------------ the processes
    def ask(self, prompt: str, *, model: "str | MemoryModel | None" = None,
            on_chunk: Callable[[str], None] | None = None) -> Turn:
        """`braniac ask`: one core-loop turn, reflected into short-term memory; returns the Turn.
        `on_chunk` receives the answer as it streams."""
        session = Session(self, model=model)
        try:
            return session.turn(prompt, on_chunk=on_chunk, background=False)
        finally:
            session.close()

    def promote(self, *, force: bool = False, dry_run: bool = False,
                model: "str | MemoryModel | None" = None) -> PromotionReport:
        """`braniac promote`: consolidate short-term into long-term memory; returns the report."""
        config, chosen = configured_model(self.root, model)
        return run_promotion(self, chosen, config, force=force, dry_run=dry_run)

    def organize(self, *, dry_run: bool = False, archive_after_days: float | None = None,
                 model: "str | MemoryModel | None" = None) -> OrganizeReport:
        """`braniac organize`: learn from use, restructure and archive; returns the report."""
        config, chosen = configured_model(self.root, model)
        return run_organization(self, config, model=chosen, dry_run=dry_run, archive_after_days=archive_after_days)

    def undo(self, run: str | None = None, *, dry_run: bool = False) -> UndoReport:
        """`braniac undo`: take one promotion or organization (default: the latest not yet undone)
        back out of the vault, whatever came after it; the undo is a commit of its own. Needs git."""
        return run_undo(self, run, dry_run=dry_run)

    def runs(self, *, limit: int = 20) -> list[WorkerRun]:
        """`braniac undo --list`: the latest promotion and organization runs, newest first."""
        require_repo(self)
        return list_runs(self, limit=limit)

    # ------------------------------------------------------------------ several machines
    def sync(self, *, remote: str | None = None, push: bool = True) -> RemoteSyncReport:
        """`braniac sync`: commit, fetch, merge (never rebase or force), repair, push. A report
        with `conflicts` (exit 1) when files changed in the same lines on both sides."""
        return run_sync(self, remote=remote, push=push)

    @classmethod
    def clone(cls, url: str, path: "str | Path") -> "Vault":
        """`braniac clone`: the vault at a git remote, cloned into `path` on this machine."""
        return cls(clone_vault(url, path).root)

    # ------------------------------------------------------------------ health and numbers
    def doctor(self) -> list[Finding]:
        """`braniac doctor`: every problem (and warning) found, each with file and reason. It
        waits (DOCTOR_WAITS s at most) for a promotion or organization running to end: what such
        a run has half written is no problem of the vault's, and the run completes it."""
        try:
            with locked(self.lock_path("ltm"), timeout=DOCTOR_WAITS, what="long-term memory"):
                return doctor_module.check(self)
        except LockBusy:
            return doctor_module.check(self) + [Finding(
                "", f"a promotion or organization was still running after {DOCTOR_WAITS:g} s: a file it is "
                    "writing may show as a problem until it ends", "warning")]

    def repair(self, *, dry_run: bool = False) -> RepairReport:
        """`braniac doctor --fix`: repair what needs no guess (notes and folders made by hand,
        manifests, link paths from their uuid, citations from their event id, leftover temp
        files); the rest is reported."""
        config, _model = configured_model(self.root, None)
        return run_repair(self, config, dry_run=dry_run)

    def adopt(self, *, dry_run: bool = False) -> AdoptionReport:
        """Make the notes and folders a person wrote by hand under long-term memory full
        memories (what `watch`, the chat and `organize` do on their own)."""
        config, _model = configured_model(self.root, None)
        return run_adoption(self, config, dry_run=dry_run)

    def stats(self) -> dict:
        """`braniac stats`: counts per tier, short-term memory, last runs, hubs and stale notes."""
        counts = {tier: 0 for tier in TIERS}
        other = indexes = 0
        for path in self.iter_ltm_files():
            if path.name == "_index.md":
                indexes += 1
                continue
            tier = self.tier_of(path)
            if tier:
                counts[tier] += 1
            else:
                other += 1
        try:
            doc = self.read_stm()
            stm_events = len(doc.events)
            open_tasks = sum(1 for i in doc.items(stm.TASKS) if i.done is False)
            open_goals = sum(1 for i in doc.items(stm.GOALS) if i.done is False)
        except STMError:
            stm_events = open_tasks = open_goals = None
        return {
            "vault": str(self.root),
            "long_term": {**counts, "other": other, "indexes": indexes},
            "short_term": {"events": stm_events, "open_goals": open_goals, "open_tasks": open_tasks},
            "last_promotion": self.last_run("promotion"),
            "last_organization": self.last_run("organization"),
            **insights.usage_stats(self),
        }
