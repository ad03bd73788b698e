"""`braniac clone URL PATH`: a vault shared through a git remote, set up on another machine."""
from __future__ import annotations

import shutil
from pathlib import Path

from ...infra import git
from ...infra.errors import BraniacError, VaultExists
from ...vault.store import VaultStore, is_vault


def clone(url: str, path: Path | str) -> VaultStore:
    """Clone the vault at `url` into `path` (a new or empty folder). Nothing machine-specific is
    stored in a vault, so it works at once; the search index is built by the first command."""
    target = Path(path).expanduser()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise VaultExists(f"{target}: exists and is not an empty folder")
    made = not target.exists()
    result = git.run_quiet(target.parent if target.parent.exists() else Path.cwd(),
                           "clone", "-q", "--", url, str(target.absolute()), check=False)
    if result.returncode != 0:
        lines = [line for line in result.stderr.strip().splitlines() if line.strip()]
        raise BraniacError(f"could not clone {url}: {lines[-1] if lines else 'exit ' + str(result.returncode)}")
    if not is_vault(target):
        if made:
            shutil.rmtree(target, ignore_errors=True)
        raise BraniacError(f"{url} holds no braniac vault (no system/ and memory/ folders); "
                           "for a new vault use `braniac init --git --remote URL PATH`")
    return VaultStore(target)
