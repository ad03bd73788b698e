"""Fixtures shared by the test files (registered in conftest.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from braniac import Vault


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    """A freshly initialised vault in the test's tmp dir."""
    created, files = Vault.init(tmp_path / "vault")
    assert files, "init created no files"
    return created
