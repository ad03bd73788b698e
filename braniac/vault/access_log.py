"""`logs/access.log`: one line per long-term-memory file read (spec §5.2).

    2025-09-16T15:30:00Z | READ | /abs/path/to/vault/memory/long_term/concrete/python.md

A turn of the core loop also writes one `QUERY` line first, carrying the prompt (on one line)
instead of a path; organization uses those as probes (what was asked, and which notes were
then read) to check that a reorganization does not make memory worse.

    2025-09-16T15:30:00Z | QUERY | how do I time a python function?

Organization writes a `MOVE` line when it moves a note (`/abs/old.md -> /abs/new.md`), so the
reads recorded under the old path keep counting for the note at its new place.

Appends are single O_APPEND writes, so concurrent readers from many processes never
interleave within a line. Malformed lines are reported, never fatal.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterable

from ..infra import clock
from ..infra.fsio import append_line


@dataclass(frozen=True)
class Access:
    at: datetime
    action: str
    path: str


@dataclass
class ParsedLog:
    entries: list[Access]
    malformed: list[tuple[int, str]]  # (line number, reason)


def record(log_path: Path, paths: Iterable[Path], action: str = "READ", at: datetime | None = None) -> None:
    stamp = clock.iso(at or clock.now())
    lines = [f"{stamp} | {action} | {Path(p).absolute()}" for p in paths]
    if lines:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        append_line(log_path, "\n".join(lines))


def record_turn(log_path: Path, query: str, paths: Iterable[Path], at: datetime | None = None) -> None:
    """One turn: its QUERY line and a READ line per long-term file read, in one append."""
    stamp = clock.iso(at or clock.now())
    text = " ".join(query.split()).replace(" | ", " / ")[:500]
    lines = [f"{stamp} | QUERY | {text}"] if text else []
    lines += [f"{stamp} | READ | {Path(p).absolute()}" for p in paths]
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
        data = Path(log_path).read_bytes()
    except FileNotFoundError:
        return ParsedLog([], [])
    return parse_lines(data.decode("utf-8", errors="replace").split("\n"))
