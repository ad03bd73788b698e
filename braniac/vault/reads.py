"""Reads per note, counted from the access logs and remembered between turns and processes.

A note organization moved (a `MOVE` line) keeps its reads. The counts are derived state in
`.braniac/reads.json`: deleting it only costs a recount.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from . import access_log
from .access_log import log_files
from ..infra.errors import NoteError
from ..infra.fsio import open_regular, write_derived

CACHE_VERSION = 5    # 5: each log's first bytes kept (4: MOVE lines; 3: counted per log file, tails read incrementally)
HEAD_BYTES = 64      # a log's first bytes, which tell the same file grown from a new one on a reused inode
PERSIST_TAIL_BYTES = 65536   # rewrite the on-disk count once this much log was counted since


@dataclass
class _Counted:
    stamp: dict[str, list[int]]        # log file name -> [size counted, mtime, inode]
    per_file: dict[str, dict]          # log file name -> {"stamp", "counts", "moves"}
    total: dict[str, int]
    unsaved: int = 0                   # log bytes counted since the cache file was written


_memo: dict[str, _Counted] = {}


def read_counts(logs_dir: Path, cache_path: Path) -> dict[str, int]:
    """Reads per vault-relative path; a note organization moved (a MOVE line) keeps its reads.

    Counted per log file and remembered (in memory, and on disk for the next process) by size,
    mtime and inode: a log that only grew is read from where the count stopped, so a turn's
    few new lines cost microseconds, not a re-read of the whole history. The same dict comes
    back until a log changes. Moves are applied in time order after the reads are summed, so
    a note created later at a moved note's old path would share its reads (rare, and harmless
    beyond a little rank)."""
    stamp: dict[str, list[int]] = {}
    files: list[Path] = []
    for path in log_files(logs_dir):
        try:
            st = path.stat()
        except OSError:
            continue  # rotated away meanwhile
        files.append(path)
        stamp[path.name] = [st.st_size, st.st_mtime_ns, st.st_ino]
    key = str(cache_path)
    memo = _memo.get(key)
    if memo is not None and memo.stamp == stamp:
        return memo.total
    per_file = memo.per_file if memo is not None else _load_cache(cache_path)
    unsaved = memo.unsaved if memo is not None else 0
    root = str(logs_dir.parent)  # logs/ sits at the top of the vault
    fresh: dict[str, dict] = {}
    recounted = False
    for path in files:
        size, mtime, inode = stamp[path.name]
        old = per_file.get(path.name)
        if old and old["stamp"] == [size, mtime, inode]:
            fresh[path.name] = old
            continue
        try:
            with open_regular(path) as handle:   # a FIFO named like a log must not hang stats
                head = handle.read(HEAD_BYTES)
                start, counts, moves = 0, {}, []
                # The same file grown, not a new one that reuses the inode after a rotation
                # (its first bytes, a timestamp, differ): count only the tail.
                if (old and old["stamp"][2] == inode and old["stamp"][0] <= size
                        and head.startswith(bytes.fromhex(old["head"]))):
                    start, counts, moves = old["stamp"][0], dict(old["counts"]), list(old["moves"])
                else:
                    recounted = True
                handle.seek(start)
                tail = handle.read(max(size - start, 0))
        except (OSError, NoteError):
            continue
        end = tail.rfind(b"\n") + 1   # a line still being written is counted next time
        unsaved += end
        entries = access_log.parse_lines(tail[:end].decode("utf-8", errors="replace").split("\n")).entries
        tally(entries, root, counts, moves)
        fresh[path.name] = {"stamp": [start + end, mtime, inode] if end < len(tail) else [size, mtime, inode],
                            "head": head.hex(), "counts": counts, "moves": moves}
    total = total_reads(fresh.values())
    # Saved for the next process at once when a log was counted from its start (new, rotated)
    # or went away; otherwise after a while, since a tail is cheap to count again.
    if memo is None or recounted or set(fresh) != set(per_file) or unsaved >= PERSIST_TAIL_BYTES:
        _save_cache(cache_path, fresh)
        unsaved = 0
    _memo[key] = _Counted(stamp, fresh, total, unsaved)
    return total


def tally(entries: list[access_log.Access], root: str | None, counts: dict[str, int], moves: list[list]) -> None:
    """Add the READ lines to `counts` (vault-relative path -> reads) and the MOVE lines to
    `moves` ([time, old, new]); the one reading of the log both search and organization use."""
    for entry in entries:
        if entry.action == "READ":
            rel = access_log.vault_relative(entry.path, root)
            if rel:
                counts[rel] = counts.get(rel, 0) + 1
        elif entry.action == "MOVE":
            moved = entry.moved(root)
            if moved:
                moves.append([entry.at.timestamp(), *moved])


def total_reads(parts) -> dict[str, int]:
    """Sum the counts of several logs ({"counts", "moves"} each), then let each moved note
    take its reads along, in time order."""
    parts = list(parts)
    total: dict[str, int] = {}
    for item in parts:
        for rel, n in item["counts"].items():
            total[rel] = total.get(rel, 0) + n
    # by time; moves logged at the same instant keep the order they were written in
    moves = sorted((m for item in parts for m in item["moves"]), key=lambda m: m[0])
    for _at, before, after in moves:
        if before in total:
            total[after] = total.get(after, 0) + total.pop(before)
    return total


def _load_cache(cache_path: Path) -> dict[str, dict]:
    """The counts a previous process saved; anything malformed is simply counted again."""
    try:
        cached = json.loads(cache_path.read_text(encoding="utf-8"))
        per_file = cached["per_file"] if cached.get("v") == CACHE_VERSION else {}
        return {name: item for name, item in per_file.items() if _valid(item)}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _valid(item) -> bool:
    return (isinstance(item, dict) and isinstance(item.get("stamp"), list) and len(item["stamp"]) == 3
            and all(isinstance(n, int) for n in item["stamp"]) and isinstance(item.get("counts"), dict)
            and isinstance(item.get("head"), str) and _is_hex(item["head"])
            and all(isinstance(n, int) for n in item["counts"].values()) and isinstance(item.get("moves"), list)
            and all(isinstance(m, list) and len(m) == 3 and isinstance(m[0], (int, float))
                    and isinstance(m[1], str) and isinstance(m[2], str) for m in item["moves"]))


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
        return True
    except ValueError:
        return False


def _save_cache(cache_path: Path, per_file: dict[str, dict]) -> None:
    try:
        # derived state: recounted from the logs if lost
        write_derived(cache_path, json.dumps({"v": CACHE_VERSION, "per_file": per_file}))
    except OSError:
        pass  # a read-only state folder only costs a recount next time
