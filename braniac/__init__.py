"""braniac: a long-term memory for LLM assistants, made of plain Markdown files.

    from braniac import Vault
    vault, _ = Vault.init("~/memory")
    vault.remember("The deploy key lives in 1Password, vault 'ops'.")
    print(vault.doctor(), vault.stats())

Everything a Python user needs is importable from here; the subpackages are the layers
(`docs/ARCHITECTURE.md`), free to change between releases. The names are loaded on first use,
so `braniac --help` and other light commands do not pay for the whole library.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .infra.version import __version__

_EXPORTS = {
    "Vault": ".api",
    "MemoryModel": ".model", "OfflineModel": ".model.offline", "ScriptedModel": ".model.scripted",
    "Hit": ".search.index", "Turn": ".processes.core_loop", "PromotionReport": ".processes.promotion",
    "OrganizeReport": ".processes.organization", "Finding": ".vault.doctor", "StoredEvent": ".vault.store",
    **{name: ".infra.errors" for name in (
        "BraniacError", "VaultNotFound", "VaultExists", "ConfigError", "NoteError", "UnsafePath", "STMError",
        "LockBusy", "IndexError_", "ModelError", "InputError")},
}
__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'braniac' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from .api import Vault
    from .infra.errors import (BraniacError, ConfigError, IndexError_, InputError, LockBusy, ModelError,
                               NoteError, STMError, UnsafePath, VaultExists, VaultNotFound)
    from .model import MemoryModel
    from .model.offline import OfflineModel
    from .model.scripted import ScriptedModel
    from .processes.core_loop import Turn
    from .processes.organization import OrganizeReport
    from .processes.promotion import PromotionReport
    from .search.index import Hit
    from .vault.doctor import Finding
    from .vault.store import StoredEvent
