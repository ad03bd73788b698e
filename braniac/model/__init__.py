"""The model interface: the few tasks braniac's processes ask of a model.

Two implementations: `LLMModel` (any LiteLLM provider; model/llm.py is the only module that
imports litellm) and `OfflineModel` (no LLM: derived from the text itself, reproducible).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator, Protocol

from ..infra import config as config_module
from ..infra.config import Config
from .organization_types import OrganizationPlan, OrganizationRequest
from .types import Excerpt, ModelUnavailable, Reflection, STMEntry, WorkingMemory

__all__ = ["MemoryModel", "get_model", "configured_model", "Excerpt", "ModelUnavailable", "Reflection", "STMEntry", "WorkingMemory"]


class MemoryModel(Protocol):
    name: str          # "offline", or the LiteLLM model string

    def search_queries(self, wm: WorkingMemory) -> list[str]:
        """Spec §4.2 step 3: queries for long-term memory."""

    def answer(self, wm: WorkingMemory) -> Iterator[str]:
        """Spec §4.2 step 5: the reply, streamed as text chunks."""

    def reflect(self, user: str, ai: str, short_term: str) -> Reflection:
        """Spec §4.3: thoughts about one exchange, and Structured Data updates."""

    def propose_organization(self, request: OrganizationRequest) -> OrganizationPlan:
        """Links, moves and archives learned from the vault's usage; organization checks each."""


def get_model(config: Config, vault_root: Path | None = None) -> MemoryModel:
    if config.model.name:
        from .llm import LLMModel
        return LLMModel(config.model, vault_root=vault_root)
    from .offline import OfflineModel
    return OfflineModel()


def configured_model(vault_root: Path, model: "str | MemoryModel | None" = None) -> tuple[Config, MemoryModel]:
    """The vault's configuration and the model to use: a model object as given, else the
    LiteLLM model named (or configured by `BRANIAC_MODEL` / `braniac.toml`), else offline."""
    if model is not None and not isinstance(model, str):
        return config_module.load(vault_root), model
    config = config_module.load(vault_root, model=model)
    return config, get_model(config, vault_root)
