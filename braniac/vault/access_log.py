"""`logs/access.log`: one line per long-term-memory file read (vault-format.md §9).

    2025-09-16T15:30:00Z | READ | memory/long_term/concrete/python.md

(Paths are vault-relative; lines older braniac versions wrote carry absolute paths, read the same.)

A turn of the core loop also writes one `QUERY` line first, carrying the prompt (on one line)
instead of a path; organization uses those as probes (what was asked, and which notes were
then read) to check that a reorganization does not make memory worse.

    2025-09-16T15:30:00Z | QUERY | how do I time a python function?

Organization writes a `MOVE` line when it moves a note (`memory/…/old.md -> memory/…/new.md`), so the
reads recorded under the old path keep counting for the note at its new place.

Appends are single O_APPEND writes, so concurrent readers from many processes never
interleave within a line. Malformed lines are reported, never fatal.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterable

from ..infra import clock
from ..infra.errors import NoteError
from ..infra.fsio import append_line, read_bytes


_MEMORY_PART = re.compile(r"(?:^|/)(memory/.+)$")


@dataclass(frozen=True)
class Access:
    at: datetime
    action: str
    path: str      # a vault-relative (older lines: absolute) path; the prompt for QUERY; "old -> new" for MOVE

    def moved(self, root: str | None = None) -> tuple[str, str] | None:
        """A MOVE line's (old, new) vault-relative paths; None for other lines or no move."""
        before, arrow, after = self.path.partition(" -> ")
        if self.action != "MOVE" or not arrow:
            return None
        old, new = vault_relative(before.strip(), root), vault_relative(after.strip(), root)
        return (old, new) if old and new and old != new else None


@dataclass
class ParsedLog:
    entries: list[Access]
    malformed: list[tuple[int, str]]  # (line number, reason)


def logged(root: Path, path: Path) -> str:
    """How a path is written in the log: relative to the vault (`memory/…`), so that the log
    means the same on every machine and at every path the vault is cloned to."""
    full = Path(path).absolute()
    try:
        return full.relative_to(Path(root).absolute()).as_posix()
    except ValueError:
        return str(full)


def record(log_path: Path, paths: Iterable[Path], action: str = "READ", at: datetime | None = None) -> None:
    stamp = clock.iso(at or clock.now())
    lines = [f"{stamp} | {action} | {logged(log_path.parent.parent, p)}" for p in paths]
    if lines:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        append_line(log_path, "\n".join(lines))


def record_turn(log_path: Path, query: str, paths: Iterable[Path], at: datetime | None = None) -> None:
    """One turn: its QUERY line and a READ line per long-term file read, in one append."""
    stamp = clock.iso(at or clock.now())
    text = " ".join(query.split()).replace(" | ", " / ")[:500]
    lines = [f"{stamp} | QUERY | {text}"] if text else []
    lines += [f"{stamp} | READ | {logged(log_path.parent.parent, p)}" for p in paths]
    if lines:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        append_line(log_path, "\n".join(lines))


def parse_lines(lines: Iterable[str]) -> ParsedLog:
    entries, malformed = [], []
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" | ", 2)]
        if len(parts) != 3 or not all(parts):
            malformed.append((n, "expected 'TIMESTAMP | ACTION | PATH'"))
            continue
        try:
            at = clock.parse_iso(parts[0])
        except ValueError:
            malformed.append((n, f"bad timestamp {parts[0]!r}"))
            continue
        entries.append(Access(at, parts[1].upper(), parts[2]))
    return ParsedLog(entries, malformed)


def read(log_path: Path) -> ParsedLog:
    try:
        data = read_bytes(Path(log_path), limit=None)
    except FileNotFoundError:
        return ParsedLog([], [])
    except NoteError as exc:   # a FIFO or a symlink out of the vault where a log should be
        return ParsedLog([], [(0, str(exc))])
    return parse_lines(data.decode("utf-8", errors="replace").split("\n"))


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
