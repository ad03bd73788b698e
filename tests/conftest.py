"""Shared fixtures: real vaults in tmp dirs and the real CLI run as a subprocess."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from braniac import Vault

# Property tests touch no disk and must stay quick; tmp_path fixtures are function-scoped.
settings.register_profile("braniac", deadline=None, max_examples=150,
                          suppress_health_check=[HealthCheck.function_scoped_fixture])
settings.load_profile("braniac")

REPO = Path(__file__).resolve().parent.parent
pytest_plugins = ["suite_plugin"]   # how the suite runs: its seed, its order, braniac's bytecode


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a CLI run: no vault or debug setting leaking in from outside."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRANIAC_")}
    env.update(extra)
    return env


def run_cli(*args: str | os.PathLike, cwd: Path | None = None, env: dict[str, str] | None = None,
            input: str | bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """`braniac ARGS` as a real process; stdout/stderr decoded as UTF-8."""
    result = subprocess.run(
        [sys.executable, "-m", "braniac", *map(str, args)],
        cwd=cwd, env=clean_env() if env is None else env, capture_output=True, timeout=timeout,
        input=input.encode() if isinstance(input, str) else input,
    )
    result.stdout = result.stdout.decode("utf-8", "replace")
    result.stderr = result.stderr.decode("utf-8", "replace")
    return result


def assert_clean_error(result: subprocess.CompletedProcess, *needles: str, code: int = 2) -> str:
    """A person-facing failure: exit `code`, exactly one line on stderr, no traceback."""
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("braniac: "), result.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Bytes and mtime of every file under root (derived state in .braniac/ left out)."""
    found = {}
    for path in sorted(Path(root).rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] == ".braniac" or path.is_dir() or path.is_symlink():
            continue
        stat = path.stat()
        found[rel.as_posix()] = (path.read_bytes(), stat.st_mtime_ns)
    return found


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    created, files = Vault.init(tmp_path / "vault")
    assert files, "init created no files"
    return created


@pytest.fixture
def cli():
    return run_cli
