"""Plain functions the test files share: running the real CLI, writing a note, checking a vault.

Fixtures live in shared_fixtures.py and fake_llm.py, which conftest.py registers as plugins.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from braniac import Vault
from braniac.vault import notes

REPO = Path(__file__).resolve().parent.parent


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


def write_note(vault: Vault, rel: str, title: str, body: str, tags=()) -> Path:
    """Write a new note at the vault-relative `rel` as a person's editor would (a plain write,
    folders made as needed); returns its path."""
    path = vault.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(notes.Note.new(title=title, body=body, tags=list(tags)).render(), encoding="utf-8")
    return path


def check_healthy(vault: Vault) -> None:
    """`doctor` finds no problem (warnings are allowed)."""
    problems = [f for f in vault.doctor() if f.severity == "problem"]
    assert problems == [], problems


def scratch_dir(prefix: str) -> Path:
    """A temp folder in /dev/shm when there is one (the fault tests write hundreds of vaults)."""
    shm = Path("/dev/shm")
    return Path(tempfile.mkdtemp(prefix=prefix, dir=shm if shm.is_dir() and os.access(shm, os.W_OK) else None))


_RANDOM_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\b")


def canonical_uuids(files: dict[str, str]) -> dict[str, str]:
    """Files' texts (by path) with each random uuid (a new note's) replaced by its order of first
    appearance, files taken by path: two runs that make the same notes, with the same links
    between them, compare equal; a link carrying another uuid than its note's does not."""
    names: dict[str, str] = {}
    out = {}
    for path in sorted(files):
        out[path] = _RANDOM_UUID.sub(lambda m: names.setdefault(m.group(0), f"uuid-{len(names) + 1}"), files[path])
    return out
