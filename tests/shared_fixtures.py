"""Fixtures shared by the test files (registered in conftest.py)."""
from __future__ import annotations

import logging
from pathlib import Path

import pytest

from braniac import Vault


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    """A freshly initialised vault in the test's tmp dir."""
    created, files = Vault.init(tmp_path / "vault")
    assert files, "init created no files"
    return created


@pytest.fixture
def notices() -> list[str]:
    """Every notice braniac gives during the test (from any thread), as its text."""
    said: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append(record.getMessage())

    handler = Collect()
    logging.getLogger("braniac").addHandler(handler)
    yield said
    logging.getLogger("braniac").removeHandler(handler)
