"""braniac: a long-term memory for LLM assistants, made of plain Markdown files.

    from braniac import Vault
    vault, _ = Vault.init("~/memory")
    vault.remember("The deploy key lives in 1Password, vault 'ops'.")
    print(vault.doctor(), vault.stats())
"""
from .errors import BraniacError
from .vault import Vault

__version__ = "0.1.0"
__all__ = ["Vault", "BraniacError", "__version__"]
