"""Where the packaged prompts and vault template live.

In a wheel they sit in `braniac/_data/`; in a source checkout (or an editable install) they
are the top-level `prompts/` and `vault_template/` folders of the repository.
"""
from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent   # braniac/, above infra/


def data_dir(name: str) -> Path:
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"braniac's packaged '{name}' folder is missing; reinstall braniac")
