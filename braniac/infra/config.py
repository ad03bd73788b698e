"""Configuration: the one place settings are resolved.

Precedence, highest first: command-line options (passed in by the CLI), environment variables
(BRANIAC_*), the vault's braniac.toml, then the defaults below. Only the composition roots
(CLI, REPL) call `load`; everything below receives a Config.
"""
from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .errors import ConfigError, NoteError
from .reading import read_text

CONFIG_NAME = "braniac.toml"
LINK_STYLES = ("markdown", "wikilink")   # `[vault] links`: Markdown links, or Obsidian's [[wikilinks]]
STRUCTURED_OUTPUT = ("auto", "json_schema", "json_object", "prompt")


@dataclass(frozen=True)
class ModelConfig:
    name: str | None = None          # a LiteLLM model string; None = the offline engine
    api_base: str | None = None
    api_key_env: str | None = None   # name of the variable holding the key, never the key itself
    timeout: float = 60.0
    retries: int = 2
    temperature: float = 0.2
    context_tokens: int = 4096       # the model's context window: every prompt is cut to fit it
    structured_output: str = "auto"  # auto | json_schema | json_object | prompt (how JSON is asked for)


@dataclass(frozen=True)
class Config:
    model: ModelConfig = field(default_factory=ModelConfig)
    # [embedding]: a LiteLLM embedding model that lets retrieval weigh meaning beside words
    # (search/meaning.py); name None = words only. Only name, api_base, api_key_env, timeout apply.
    embedding: ModelConfig = field(default_factory=lambda: ModelConfig(timeout=10.0, retries=0))
    promote_idle_minutes: float = 5.0
    organize_idle_minutes: float = 120.0
    git_autocommit: bool = False
    context_tokens: int = 8000
    search_limit: int = 8
    adopt_notes: bool = True          # [vault] notes a person writes under long_term/ become memories
    daily_notes: str | None = None    # [vault] the folder of the person's Obsidian daily notes
    links: str = "markdown"           # [vault] how braniac writes its links: "markdown" or "wikilink"


def _table(data: dict[str, Any], name: str) -> dict[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{CONFIG_NAME}: [{name}] must be a table")
    return value


def _typed(value: Any, kind: type, where: str) -> Any:
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ConfigError(f"{CONFIG_NAME}: {where} must be {kind.__name__}, got {value!r}")
    return value


def load(vault_root: Path | None, *, model: str | None = None, env: dict[str, str] | None = None) -> Config:
    env = os.environ if env is None else env
    data: dict[str, Any] = {}
    if vault_root is not None:
        path = Path(vault_root) / CONFIG_NAME
        if path.exists():
            try:   # (a FIFO or a symlink out of the vault is refused, never waited on or followed)
                data = tomllib.loads(read_text(path, limit=1024 * 1024, root=Path(vault_root)))
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{path}: {exc}") from None
            except NoteError as exc:
                raise ConfigError(str(exc)) from None

    m = _table(data, "model")
    model_cfg = ModelConfig(
        name=_typed(m["name"], str, "model.name") if m.get("name") else None,
        api_base=_typed(m["api_base"], str, "model.api_base") if m.get("api_base") else None,
        api_key_env=_typed(m["api_key_env"], str, "model.api_key_env") if m.get("api_key_env") else None,
        timeout=_typed(m.get("timeout", 60.0), float, "model.timeout"),
        retries=_typed(m.get("retries", 2), int, "model.retries"),
        temperature=_typed(m.get("temperature", 0.2), float, "model.temperature"),
        context_tokens=_typed(m.get("context_tokens", 4096), int, "model.context_tokens"),
        structured_output=_typed(m.get("structured_output", "auto"), str, "model.structured_output"),
    )
    if model_cfg.context_tokens < 1024:
        raise ConfigError(f"{CONFIG_NAME}: model.context_tokens must be at least 1024, got {model_cfg.context_tokens}")
    if model_cfg.structured_output not in STRUCTURED_OUTPUT:
        raise ConfigError(f"{CONFIG_NAME}: model.structured_output must be one of {', '.join(STRUCTURED_OUTPUT)}, "
                          f"got {model_cfg.structured_output!r}")
    if env.get("BRANIAC_MODEL"):
        model_cfg = replace(model_cfg, name=env["BRANIAC_MODEL"])
    if env.get("BRANIAC_API_BASE"):
        model_cfg = replace(model_cfg, api_base=env["BRANIAC_API_BASE"])
    if model:
        model_cfg = replace(model_cfg, name=model)
    if model_cfg.name and model_cfg.name.lower() == "offline":
        model_cfg = replace(model_cfg, name=None)
    e = _table(data, "embedding")
    embedding_cfg = ModelConfig(
        name=env.get("BRANIAC_EMBEDDING_MODEL") or (_typed(e["name"], str, "embedding.name") or None if "name" in e else None),
        api_base=env.get("BRANIAC_EMBEDDING_API_BASE") or (
            _typed(e["api_base"], str, "embedding.api_base") or None if "api_base" in e else None),
        api_key_env=_typed(e["api_key_env"], str, "embedding.api_key_env") or None if "api_key_env" in e else None,
        timeout=_typed(e.get("timeout", 10.0), float, "embedding.timeout"),
        retries=0,
    )
    if not math.isfinite(embedding_cfg.timeout) or embedding_cfg.timeout <= 0:
        raise ConfigError(f"{CONFIG_NAME}: embedding.timeout must be more than 0 seconds, got {embedding_cfg.timeout:g}")

    idle, git, memory = _table(data, "idle"), _table(data, "git"), _table(data, "memory")
    vault = _table(data, "vault")
    daily = _typed(vault["daily_notes"], str, "vault.daily_notes").strip("/") if vault.get("daily_notes") else None
    if daily and (not daily.startswith("memory/long_term/") or any(p in ("", ".", "..") or p.startswith(".")
                                                                    for p in daily.split("/"))):
        # there, a daily note is memory like any other note: adopted, indexed, listed
        raise ConfigError(f"{CONFIG_NAME}: vault.daily_notes must be a folder under memory/long_term/ "
                          f"(e.g. \"memory/long_term/daily\"; set Obsidian's daily notes folder to it), got {daily!r}")
    links = _typed(vault.get("links", "markdown"), str, "vault.links")
    if links not in LINK_STYLES:
        raise ConfigError(f"{CONFIG_NAME}: vault.links must be one of {', '.join(map(repr, LINK_STYLES))}, got {links!r}")
    return Config(
        model=model_cfg,
        embedding=embedding_cfg,
        promote_idle_minutes=_typed(idle.get("promote_after_minutes", 5.0), float, "idle.promote_after_minutes"),
        organize_idle_minutes=_typed(idle.get("organize_after_minutes", 120.0), float, "idle.organize_after_minutes"),
        git_autocommit=_typed(git.get("autocommit", False), bool, "git.autocommit"),
        context_tokens=_typed(memory.get("context_tokens", 8000), int, "memory.context_tokens"),
        search_limit=_typed(memory.get("search_limit", 8), int, "memory.search_limit"),
        adopt_notes=_typed(vault.get("adopt_notes", True), bool, "vault.adopt_notes"),
        daily_notes=daily,
        links=links,
    )
