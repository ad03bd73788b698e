"""What the access logs say about how memory is used (vault-format.md §9, §10.5).

Reads are grouped into turns: a QUERY line starts one, and the reads after it belong to it
while their time is within a short window of its start, before or after (the lines of one turn
share a timestamp; the log of several processes, or of a clock stepped back, is not in time
order). From them: how often and how lately each note was read, which
notes are read together (co-access, the "fire together, wire together" of BrainBox), and the
probes of the retrieval gate (a turn's QUERY and the notes then read). Paths are taken relative
to the vault (the part from `memory/` on), so a vault that was moved still counts.

Organization notes each note it moves (`TS | MOVE | /old.md -> /new.md`): what was learned
about the old path until then belongs to the new one (reads, last read, co-access, probes),
so a note that moved up is still the much-read note it was.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import combinations
from pathlib import Path

from . import access_log
from .access_log import log_files, vault_relative
from .layout import LONG_TERM
from .reads import tally, total_reads

TURN_WINDOW = timedelta(seconds=60)
MAX_NOTES_PER_TURN = 12   # a turn that read more is a bulk operation, not a pattern of use


@dataclass
class Probe:
    query: str
    read: list[str]         # vault-relative paths read in that turn
    at: datetime


@dataclass
class Usage:
    reads: Counter = field(default_factory=Counter)
    last_read: dict[str, datetime] = field(default_factory=dict)
    coaccess: Counter = field(default_factory=Counter)     # (a, b) with a < b -> turns read together
    probes: list[Probe] = field(default_factory=list)
    malformed: list[tuple[str, int, str]] = field(default_factory=list)   # (file, line, reason)
    lines: int = 0

    def affinity(self, a: str, b: str) -> float:
        """Co-access normalized by how much each note is read (fan effect: hubs do not dominate)."""
        key = (a, b) if a < b else (b, a)
        together = self.coaccess.get(key, 0)
        if not together:
            return 0.0
        return together / math.sqrt(self.reads[a] * self.reads[b])


def read_usage(logs_dir: Path, *, only_current: bool = False) -> Usage:
    usage = Usage()
    files = [logs_dir / "access.log"] if only_current else log_files(logs_dir)
    root = str(logs_dir.parent)   # logs/ sits at the top of the vault
    per_file = []
    for path in files:
        parsed = access_log.read(path)
        usage.lines += len(parsed.entries)
        usage.malformed += [(path.name, n, reason) for n, reason in parsed.malformed]
        _learn(usage, parsed.entries, root)
        counts: dict[str, int] = {}
        moves: list[list] = []
        tally(parsed.entries, root, counts, moves)
        per_file.append({"counts": counts, "moves": moves})
    # counted the way search counts them (reads.py), so ranking and organization agree
    usage.reads = Counter({rel: n for rel, n in total_reads(per_file).items() if rel.startswith(LONG_TERM + "/")})
    return usage


def _learn(usage: Usage, entries: list[access_log.Access], root: str) -> None:
    """Turns, last reads, co-access and probes (the reads themselves are counted by `tally`)."""
    turn: list[str] = []
    query = ""
    started: datetime | None = None

    moved: dict[str, str] = {}

    def close() -> None:
        notes = list(dict.fromkeys(turn))
        if query and notes:
            usage.probes.append(Probe(query, notes, started))
        if 2 <= len(notes) <= MAX_NOTES_PER_TURN:
            for a, b in combinations(sorted(notes), 2):
                usage.coaccess[(a, b)] += 1

    for entry in entries:
        if entry.action == "MOVE":
            if started is not None:   # a move ends the turn: its reads were under the old paths
                close()
                turn, query, started = [], "", None
            pair = entry.moved(root)
            if pair:
                moved[pair[0]] = pair[1]
            continue
        if moved:   # a batch of moves (one organize run writes them together) ends here
            _rename(usage, moved)
            moved = {}
        # a turn is its QUERY line and the reads around it, within the window either way: lines
        # appended by several processes, or after the clock stepped back, do not come in time order
        new_turn = started is None or entry.action == "QUERY" or abs(entry.at - started) > TURN_WINDOW
        if new_turn:
            if started is not None:
                close()
            turn, query, started = [], "", entry.at
        if entry.action == "QUERY":
            query = entry.path
            continue
        if entry.action != "READ":
            continue
        rel = vault_relative(entry.path, root)
        if rel is None or not rel.startswith(LONG_TERM + "/"):
            continue
        turn.append(rel)
        if rel not in usage.last_read or entry.at > usage.last_read[rel]:
            usage.last_read[rel] = entry.at
    if started is not None:
        close()
    if moved:
        _rename(usage, moved)


def _rename(usage: Usage, moved: dict[str, str]) -> None:
    """Re-key everything learned about moved notes to their new paths."""
    for old, new in moved.items():
        if old in usage.last_read:
            at = usage.last_read.pop(old)
            usage.last_read[new] = max(at, usage.last_read.get(new, at))
    for pair in [p for p in usage.coaccess if p[0] in moved or p[1] in moved]:
        a, b = (moved.get(x, x) for x in pair)
        together = usage.coaccess.pop(pair)
        if a != b:
            usage.coaccess[(a, b) if a < b else (b, a)] += together
    for probe in usage.probes:
        if any(rel in moved for rel in probe.read):
            probe.read = list(dict.fromkeys(moved.get(rel, rel) for rel in probe.read))
