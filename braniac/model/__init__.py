"""The model interface: the tasks braniac's processes ask of a model.

Three implementations: `LLMModel` (any LiteLLM provider; model/llm.py is the only module that
imports litellm), `OfflineModel` (no LLM: derived from the text itself, reproducible) and
`ScriptedModel` (replies a test queues task by task, every call recorded).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator, Protocol

from ..infra import config as config_module
from ..infra.config import Config
from .llm import LLMModel
from .offline import OfflineModel
from .organization_types import OrganizationPlan, OrganizationRequest
from .types import (Candidate, EventRecord, Excerpt, ModelUnavailable, NoteDraft, Reflection, STMEntry,
                    WorkingMemory)

__all__ = ["MemoryModel", "get_model", "configured_model", "Excerpt", "ModelUnavailable", "Reflection", "STMEntry", "WorkingMemory"]


class MemoryModel(Protocol):
    name: str          # "offline", or the LiteLLM model string

    def search_queries(self, wm: WorkingMemory) -> list[str]:
        """The queries that search long-term memory for this turn."""

    def answer(self, wm: WorkingMemory) -> Iterator[str]:
        """The reply to the prompt, streamed as text chunks."""

    def reflect(self, user: str, ai: str, short_term: str) -> Reflection:
        """Thoughts about one exchange, and the goals, facts and tasks it adds or completes."""

    def analyze(self, events: list[EventRecord], known_titles: list[str]) -> list[Candidate]:
        """The long-term notes these short-term events are worth, each with the events it rests on."""

    def synthesize(self, candidate: Candidate, events: list[EventRecord], existing: list[str]) -> NoteDraft:
        """One note's content: summary, claims citing their events, tags, emotion."""

    def summarize(self, promoted: list[EventRecord], remaining: list[EventRecord], open_items: list[str]) -> str:
        """The new Summary of short-term memory once the promoted events have left it."""

    def propose_organization(self, request: OrganizationRequest) -> OrganizationPlan:
        """Links, moves and archives learned from the vault's usage; organization checks each."""


def get_model(config: Config, vault_root: Path | None = None) -> MemoryModel:
    if config.model.name:
        return LLMModel(config.model, vault_root=vault_root)
    return OfflineModel()


def configured_model(vault_root: Path, model: "str | MemoryModel | None" = None) -> tuple[Config, MemoryModel]:
    """The vault's configuration and the model to use: a model object as given, else the
    LiteLLM model named (or configured by `BRANIAC_MODEL` / `braniac.toml`), else offline."""
    if model is not None and not isinstance(model, str):
        return config_module.load(vault_root), model
    config = config_module.load(vault_root, model=model)
    return config, get_model(config, vault_root)
