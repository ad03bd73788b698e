"""Memory that stays right (issue 16): the current value of a fact is what comes back, a claim
cites only events that state it, the core identity is in every step's working memory, archived
folders stay out of default search, the offline answer never quotes braniac's own answers, the
offline extraction names people, organizations and topics from evidence, and usage is learned
from an access log whose times go backwards.

The model path is tested through the loopback server (tests/fake_llm.py)."""
from __future__ import annotations

import os
import re
from datetime import datetime, timedelta, timezone

import pytest

from braniac import Vault
from braniac.vault import access_log, notes
from braniac.vault.usage import read_usage

from helpers import write_note


# ---------------------------------------------------------------------- item 9: archived _index.md

def test_archived_folder_index_is_left_out_of_default_search(vault):
    write_note(vault, "memory/long_term/archive/concrete/programming/_index.md", "Programming",
               "# Programming\n\n## Summary\nMemories about fortran compilers.\n", tags=["index"])
    write_note(vault, "memory/long_term/archive/concrete/programming/fortran.md", "Fortran",
               "Fortran arrays start at one.\n")
    write_note(vault, "memory/long_term/concrete/languages/_index.md", "Languages",
               "# Languages\n\n## Summary\nMemories about fortran and cobol.\n", tags=["index"])
    default = [h.path for h in vault.search("fortran")]
    assert default == ["memory/long_term/concrete/languages/_index.md"], default
    archived = {h.path: h.kind for h in vault.search("fortran", archived=True)}
    assert archived == {"memory/long_term/concrete/languages/_index.md": "index",
                        "memory/long_term/archive/concrete/programming/_index.md": "archive",
                        "memory/long_term/archive/concrete/programming/fortran.md": "archive"}


# ---------------------------------------------------------------------- item 12: time going backwards

def _turn_lines(vault: Vault, at: datetime, notes_read: list[str], query: str | None = None) -> list[str]:
    stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [f"{stamp} | QUERY | {query}"] if query else []
    return lines + [f"{stamp} | READ | {vault.ltm_root / rel}" for rel in notes_read]


def test_reads_whose_time_goes_backwards_still_make_separate_turns(vault):
    """Twenty turns of two notes each, every one logged two minutes before the one above it (a
    clock stepped back; processes appending out of order), with no QUERY line (the spec's
    READ-only log): each pair is co-accessed once, and no pair across turns is."""
    start = datetime(2025, 9, 16, 15, 0, tzinfo=timezone.utc)
    lines = []
    for n in range(20):
        lines += _turn_lines(vault, start - timedelta(minutes=2 * n), [f"concrete/a{n}.md", f"concrete/b{n}.md"])
    vault.access_log_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    usage = read_usage(vault.logs_dir)
    pairs = {tuple(p.rsplit("/", 1)[-1] for p in pair): n for pair, n in usage.coaccess.items()}
    assert pairs == {(f"a{n}.md", f"b{n}.md"): 1 for n in range(20)}


def test_a_turn_logged_out_of_order_keeps_its_query_and_reads(vault):
    """Two processes: one turn's lines appended after a later turn's. Each QUERY probe keeps the
    notes read in its own turn, and a stray READ from far back in time starts a turn of its own."""
    at = datetime(2025, 9, 16, 15, 0, tzinfo=timezone.utc)
    lines = _turn_lines(vault, at, ["concrete/x.md", "concrete/y.md"], query="where is x")
    lines += _turn_lines(vault, at - timedelta(minutes=5), ["concrete/p.md", "concrete/q.md"])
    lines += _turn_lines(vault, at - timedelta(minutes=10), ["concrete/r.md", "concrete/s.md"], query="what about r")
    vault.access_log_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    usage = read_usage(vault.logs_dir)
    probes = {p.query: [r.rsplit("/", 1)[-1] for r in p.read] for p in usage.probes}
    assert probes == {"where is x": ["x.md", "y.md"], "what about r": ["r.md", "s.md"]}
    pairs = {tuple(p.rsplit("/", 1)[-1] for p in pair) for pair in usage.coaccess}
    assert pairs == {("x.md", "y.md"), ("p.md", "q.md"), ("r.md", "s.md")}
