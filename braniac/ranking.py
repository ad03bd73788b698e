"""Emergent importance (spec §1): how a note's location, links and use lift its search rank.

braniac keeps no importance score in the files. It is derived, every time, from three things a
person can see: how deep the note sits in the hierarchy, how many other memory files link to
it, and how often it was read (logs/access.log and its rotated archives).

    score = bm25f × (1 + LINKS·ln(1 + inbound links) + READS·ln(1 + reads)) × DEPTH_DECAY^depth

BM25F itself weighs a match in the title and tags above one in the body (FIELD_BOOSTS).
Every weight lives here, in one place.
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

from . import access_log
from .fsio import atomic_write

FIELD_BOOSTS = {"title": 3.0, "tags": 2.0, "body": 1.0}
LINKS = 0.15          # per ln(1 + inbound links)
READS = 0.10          # per ln(1 + reads recorded in the access logs)
DEPTH_DECAY = 0.97    # each folder level below memory/long_term/ costs 3 %
RERANK_POOL = 5       # re-rank the top limit × RERANK_POOL BM25F hits


@dataclass(frozen=True)
class Signals:
    depth: int = 0
    inbound: int = 0
    reads: int = 0


def importance(signals: Signals) -> float:
    boost = 1.0 + LINKS * math.log1p(signals.inbound) + READS * math.log1p(signals.reads)
    return boost * (DEPTH_DECAY ** signals.depth)


# ------------------------------------------------------------------ reads from the access logs

CACHE_VERSION = 2    # 2: paths cut at the vault root first (counts made before were wrong for some vaults)
_MEMORY_PART = re.compile(r"(?:^|/)(memory/.+)$")


def vault_relative(logged_path: str, root: str | None = None) -> str | None:
    """The vault-relative part of a logged absolute path. A path under `root` is cut there,
    so a vault that itself sits in a folder called `memory` still counts; otherwise the part
    from the first `memory/` on is taken, so a moved vault's older lines still count."""
    logged = logged_path.replace("\\", "/")
    if root:
        prefix = root.replace("\\", "/").rstrip("/") + "/"
        if logged.startswith(prefix):
            return logged[len(prefix):]
    match = _MEMORY_PART.search(logged)
    return match.group(1) if match else None


def log_files(logs_dir: Path) -> list[Path]:
    """access.log plus its rotated archives (access.log.1, access-2025-09.log, …)."""
    if not logs_dir.is_dir():
        return []
    return sorted(p for p in logs_dir.iterdir()
                  if p.is_file() and p.name.startswith("access") and not p.name.endswith(".rotating"))


def read_counts(logs_dir: Path, cache_path: Path) -> dict[str, int]:
    """Reads per vault-relative path, cached by the logs' size and mtime."""
    files, stamp = [], {}
    for path in log_files(logs_dir):
        try:
            st = path.stat()
        except OSError:
            continue  # rotated away meanwhile
        files.append(path)
        stamp[path.name] = [st.st_size, st.st_mtime_ns]
    try:
        cached = json.loads(cache_path.read_text(encoding="utf-8"))
        if cached.get("files") == stamp and cached.get("v") == CACHE_VERSION:
            return cached["counts"]
    except (OSError, ValueError, KeyError):
        pass
    counts: dict[str, int] = {}
    root = str(logs_dir.parent)  # logs/ sits at the top of the vault
    for path in files:
        for entry in access_log.read(path).entries:
            if entry.action != "READ":
                continue
            rel = vault_relative(entry.path, root)
            if rel:
                counts[rel] = counts.get(rel, 0) + 1
    try:
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(cache_path, json.dumps({"v": CACHE_VERSION, "files": stamp, "counts": counts}))
    except OSError:
        pass  # a read-only state folder only costs a recount next time
    return counts
