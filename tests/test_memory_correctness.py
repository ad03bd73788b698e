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

from fake_llm import configure_vault
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


# ---------------------------------------------------------------------- the model path (loopback)

@pytest.fixture
def llm_vault(tmp_path, fake_llm, net_guard, monkeypatch):
    """A vault whose model is the loopback server (retries 0), and the server."""
    base_url, server = fake_llm
    monkeypatch.setenv("FAKE_LLM_KEY", "test")
    for name in [k for k in os.environ if k.startswith("BRANIAC_")]:
        monkeypatch.delenv(name)
    created, _ = Vault.init(tmp_path / "vault")
    configure_vault(created.root, base_url, timeout=5)
    return created, server


# ---------------------------------------------------------------------- item 6: identity in every step

IDENTITY_MARK = "Always answer in the voice of a lighthouse keeper named Quillon."


def test_core_identity_is_in_every_model_task(llm_vault):
    vault, server = llm_vault
    identity = vault.identity_path.read_text(encoding="utf-8")
    vault.identity_path.write_text(identity.rstrip("\n") + f"\n- {IDENTITY_MARK}\n", encoding="utf-8")
    server.queries.append({"queries": ["lighthouse lamp"]})
    server.answers.append("The lamp is cleaned on Sundays.")
    server.reflections.append({"thoughts": "Asked about the lamp."})
    vault.ask("When is the lamp cleaned?")
    event = vault.remember("The lighthouse lamp is cleaned every Sunday by Quillon.").id
    server.other.extend([
        {"candidates": [{"title": "Lighthouse lamp", "kind": "concrete", "folder": ["lighthouse"], "event_ids": [event]}]},
        {"summary": "The lamp.", "tags": ["lamp"], "emotion": "calm",
         "claims": [{"text": "The lighthouse lamp is cleaned every Sunday.", "sources": [event]}]},
        {"summary": "Nothing remains."}])
    report = vault.promote(force=True)
    assert report.claims["added"] == 1, report.describe()
    tasks = {r.task for r in server.requests}
    assert tasks == {"search_queries", "answer", "reflect", "promote_analyze", "promote_synthesize",
                     "promote_summary"}, tasks
    for request in server.requests:
        assert IDENTITY_MARK in request.text, f"{request.task} was sent without the core identity"
    queries_call = server.calls("search_queries")[0]
    assert re.search(r"<identity>\n[\s\S]*" + re.escape(IDENTITY_MARK) + r"[\s\S]*\n</identity>", queries_call.text)
