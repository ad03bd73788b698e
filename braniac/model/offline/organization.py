"""The offline engine's organization plan: operations from the usage statistics alone.

    pairs of notes read together          -> link (weight normalized against hubs)
    co-access links not renewed for long  -> unlink (their weight decays with time)
    much-read notes deep in a tier        -> move one level up
    concrete and skill notes unread long  -> archive
    crowded folders                       -> split by their notes' main tag
    folders left with one note            -> merged into their parent

The plan is a list of JSON operations, like a language model's, which organization checks
against the vault's bounds before anything is applied.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra import clock
from ...infra.errors import NoteError
from ...infra.fsio import inside
from ...vault import notes
from ...vault.co_access import existing_links, linked_both_ways
from ...vault.layout import FOLDER_INDEX, RESTRUCTURED_TIERS
from ..organization_types import OrganizationRequest

if TYPE_CHECKING:
    from ...vault.store import VaultStore

LINK_MIN_AFFINITY = 0.3
LINK_MIN_TOGETHER = 2
LINK_HALF_LIFE_DAYS = 60   # a co-access link not renewed loses half its weight in this time
LINK_PRUNE = 0.2
MOVE_MIN_READS = 5
MOVE_MIN_DEPTH = 2          # folders below the tier
SPLIT_OVER = 40
SPLIT_GROUP = 5


def plan(request: OrganizationRequest) -> list[dict]:
    vault, history, recent = request.vault, request.history, request.recent
    ops: list[dict] = []
    existing = existing_links(vault)
    today = clock.now()
    # strengthen relations: pairs read together, normalized against hubs (fan effect)
    fresh: dict[tuple[str, str], float] = {}
    for (a, b), together in recent.coaccess.items():
        if together >= LINK_MIN_TOGETHER and _is_note(vault, a) and _is_note(vault, b):
            weight = recent.affinity(a, b)
            if weight >= LINK_MIN_AFFINITY:
                fresh[(a, b)] = weight
    for pair, weight in fresh.items():
        old, _renewed = existing.get(pair, (0.0, None))
        if not old and linked_both_ways(vault, *pair):
            continue   # they link each other already (promotion did, or the person): nothing to write
        ops.append({"op": "link", "a": pair[0], "b": pair[1], "weight": round(min(1.0, max(weight, old) + 0.1 * old), 2)})
    # links not renewed decay with time (computed from their renewal date, so a run with no new
    # use changes nothing); once too weak they are pruned
    for pair, (old, renewed) in existing.items():
        if pair in fresh or renewed is None:
            continue
        age_days = (today - renewed).total_seconds() / 86400
        if old * 0.5 ** (age_days / LINK_HALF_LIFE_DAYS) < LINK_PRUNE:
            ops.append({"op": "unlink", "a": pair[0], "b": pair[1]})
    leaving: set[str] = set()
    arriving: set[str] = set()
    # restructure: much-read deep notes move one level up, if still in use since the last run
    # (their reads follow them to the new place: without new use, a second run moves nothing)
    threshold = max(MOVE_MIN_READS, _percentile(list(history.reads.values()), 0.9))
    for rel, count in history.reads.items():
        parts = rel.split("/")
        if count >= threshold and recent.reads.get(rel) and len(parts) >= 4 + MOVE_MIN_DEPTH \
                and parts[2] in RESTRUCTURED_TIERS and _is_note(vault, rel):
            ops.append({"op": "move", "path": rel, "to": "/".join(parts[:-2])})
            leaving.add(rel)
            arriving.add("/".join(parts[:-2]))
    # archive: concrete and skill notes nobody has read for long
    cutoff = clock.now() - timedelta(days=request.archive_after_days)
    for tier in RESTRUCTURED_TIERS:
        for path in sorted((vault.ltm_root / tier).rglob("*.md")) if (vault.ltm_root / tier).is_dir() else ():
            if path.name == FOLDER_INDEX or not inside(vault.root, path):
                continue  # (a symlink out of the vault is never followed; doctor names it)
            rel = vault.relative(path)
            last = history.last_read.get(rel) or _updated(path)
            if last is not None and last < cutoff:
                ops.append({"op": "archive", "path": rel})
                leaving.add(rel)
    return ops + _split_and_merge(vault, leaving, arriving)


def _split_and_merge(vault: "VaultStore", leaving: set[str], arriving: set[str]) -> list[dict]:
    """Crowded folders split by their notes' main tag; a folder left with one note merges into
    its parent. Counted as the folders will be once the other planned moves are done."""
    ops = []
    for tier in RESTRUCTURED_TIERS:
        root = vault.ltm_root / tier
        if not root.is_dir():
            continue
        for folder in sorted(p for p in root.rglob("*") if p.is_dir()):
            if any(part.startswith(".") for part in folder.parts) or not inside(vault.root, folder):
                continue  # hidden, or a symlink out of the vault (never followed; doctor names it)
            here = vault.relative(folder)
            # (paths by string: resolving each of 10,000 notes' paths twice cost seconds)
            files = [p for p in folder.glob("*.md") if p.name != FOLDER_INDEX and f"{here}/{p.name}" not in leaving
                     and (not p.is_symlink() or inside(vault.root, p))]
            subfolders = [p for p in folder.iterdir() if p.is_dir()]
            if here in arriving:
                continue  # a note moves in: not a folder left with one note (nor one to split now)
            if len(files) > SPLIT_OVER:
                groups: dict[str, list[Path]] = {}
                for path in files:
                    tag = _main_tag(path, folder.name)
                    if tag:
                        groups.setdefault(tag, []).append(path)
                for tag, members in groups.items():
                    if len(members) >= SPLIT_GROUP and len(members) < len(files):
                        for path in members:
                            ops.append({"op": "move", "path": f"{here}/{path.name}",
                                        "to": f"{here}/{notes.slugify(tag)}"})
            elif len(files) == 1 and not subfolders and folder.parent != root and folder != root:
                # (the top-level topic folders, people/ places/ topics/, stay: promotion fills them)
                ops.append({"op": "move", "path": f"{here}/{files[0].name}", "to": here.rsplit("/", 1)[0],
                            "merge": here})
    return ops


def _is_note(vault: "VaultStore", rel: str) -> bool:
    path = vault.root / rel
    return path.is_file() and path.name != FOLDER_INDEX and rel.split("/")[2:3] != ["events"]


def _updated(path: Path) -> datetime | None:
    try:
        return notes.read(path).time("updated_at")
    except NoteError:
        return None


def _main_tag(path: Path, folder_name: str) -> str | None:
    try:
        tags = [t for t in notes.read(path).tags if notes.slugify(t) != notes.slugify(folder_name)]
    except NoteError:
        return None
    return tags[0] if tags else None


def _percentile(values: list[int], q: float) -> float:
    if not values:
        return 0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
