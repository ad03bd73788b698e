"""Fixtures shared by the test files (registered in conftest.py)."""
from __future__ import annotations

import logging
import subprocess
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


@pytest.fixture
def shared(tmp_path: Path) -> tuple[Path, Vault, Vault]:
    """A bare remote, machine A (the first vault, pushed) and machine B (a clone of it)."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    a, _ = Vault.init(tmp_path / "a", use_git=True, remote=str(remote))
    a = Vault(a.root)
    assert a.sync().sent
    b = Vault.clone(str(remote), tmp_path / "b")
    return remote, a, b
