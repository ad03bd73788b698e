"""The access log's rotation: once organization has learned from them, the processed lines
move to logs/access-YYYY-MM.log (kept, not cleared) and new reads start a fresh access.log.

The rotation survives a kill at any instant: access.log is first claimed as
access.log.rotating, which the next run appends to the monthly log (once: a marker and the
monthly log's tail tell an append already made) before removing it.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import clock
from ...infra.fsio import append_bytes, atomic_write, claim, open_regular, read_bytes, remove_file

if TYPE_CHECKING:
    from ...vault.store import VaultStore


def rotate(vault: "VaultStore") -> bool:
    """Whether there were processed lines to rotate."""
    log = vault.access_log_path
    if not log.exists() or log.stat().st_size == 0:
        return False
    refuse_unsafe_log(vault)
    claim(log, _rotating(vault))
    append_bytes(log, b"")      # new reads start a fresh access.log at once (one logged meanwhile stays)
    finish_rotation(vault)
    return True


def refuse_unsafe_log(vault: "VaultStore") -> None:
    """A logs/access.log that is a symlink out of the vault (or a FIFO) stops organization before
    it changes anything (UnsafePath names it): the rotation would move the link itself."""
    if os.path.lexists(vault.access_log_path):
        with open_regular(vault.access_log_path, root=vault.root):
            pass


def finish_rotation(vault: "VaultStore") -> None:
    rotating = _rotating(vault)
    if not rotating.exists():
        return
    archive = vault.access_log_path.with_name(f"access-{clock.now():%Y-%m}.log")
    marker = vault.state_dir / "organize" / "rotation.json"
    data = read_bytes(rotating, limit=None)
    if data:
        done = json.loads(marker.read_text()) if marker.exists() else {}
        chunk = data if data.endswith(b"\n") else data + b"\n"
        # a run killed between the append and the marker appended already: not twice
        if (done.get("size") != len(data) or done.get("archive") != archive.name) and not _ends_with(archive, chunk):
            append_bytes(archive, chunk, durable=True)  # one append of whole lines
            marker.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(marker, json.dumps({"size": len(data), "archive": archive.name}))
    remove_file(rotating)
    marker.unlink(missing_ok=True)


def _rotating(vault: "VaultStore") -> Path:
    return vault.access_log_path.with_name("access.log.rotating")


def _ends_with(path: Path, chunk: bytes) -> bool:
    try:
        with open_regular(path) as handle:
            size = handle.seek(0, os.SEEK_END)
            if size < len(chunk):
                return False
            handle.seek(size - len(chunk))
            return handle.read() == chunk
    except FileNotFoundError:
        return False
