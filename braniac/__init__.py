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
    "OrganizeReport": ".processes.organization", "UndoReport": ".processes.undo", "WorkerRun": ".processes.undo", "Finding": ".vault.doctor", "StoredEvent": ".vault.store",
    **{name: ".infra.errors" for name in (
        "BraniacError", "VaultNotFound", "VaultExists", "ConfigError", "NoteError", "UnsafePath", "STMError",
        "LockBusy", "ReadOnlyFile", "IndexError_", "ModelError", "InputError")},
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


if TYPE_CHECKING:   # the same names, for type checkers and editors ("X as X": a re-export)
    from .api import Vault as Vault
    from .infra.errors import BraniacError as BraniacError, ConfigError as ConfigError
    from .infra.errors import IndexError_ as IndexError_, InputError as InputError, LockBusy as LockBusy
    from .infra.errors import ModelError as ModelError, NoteError as NoteError, STMError as STMError
    from .infra.errors import ReadOnlyFile as ReadOnlyFile
    from .infra.errors import UnsafePath as UnsafePath, VaultExists as VaultExists, VaultNotFound as VaultNotFound
    from .model import MemoryModel as MemoryModel
    from .model.offline import OfflineModel as OfflineModel
    from .model.scripted import ScriptedModel as ScriptedModel
    from .processes.core_loop import Turn as Turn
    from .processes.organization import OrganizeReport as OrganizeReport
    from .processes.promotion import PromotionReport as PromotionReport
    from .search.index import Hit as Hit
    from .vault.doctor import Finding as Finding
    from .vault.store import StoredEvent as StoredEvent
