"""`braniac mcp` as a real subprocess, talked to with the official `mcp` client over stdio: every
tool, the resources and the prompt, and what each leaves in the vault's files and its access
log. One server serves the whole module (its start costs a second)."""
from __future__ import annotations

import json
import re
import time

import pytest

from braniac import Vault
from helpers import check_healthy, write_note
from mcp_client import Connected, stdio

TOOLS = {"remember", "recall", "search", "read", "orient", "wrap_up", "stats", "doctor", "promote", "organize"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    vault, _ = Vault.init(tmp_path_factory.mktemp("mcp") / "vault")
    write_note(vault, "memory/long_term/concrete/lisbon.md", "Lisbon",
               "Ana moved to Lisbon in March and rides the 28 tram to work.", tags=["place"])
    write_note(vault, "memory/long_term/concrete/sourdough.md", "Sourdough",
               "The rye sourdough needs 14 hours of cold proofing.", tags=["baking"])
    with Connected(stdio(vault.root)) as mcp:
        yield vault, mcp


def access_lines(vault: Vault) -> list[str]:
    return vault.access_log_path.read_text(encoding="utf-8").splitlines() if vault.access_log_path.exists() else []


def text_of(result) -> str:
    return result.content[0].text


def test_lists_every_tool_with_a_description_and_schema(served):
    _vault, mcp = served
    tools = {t.name: t for t in mcp.run(lambda c: c.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40, tool.name
        assert tool.input_schema["type"] == "object"
    assert tools["recall"].input_schema["required"] == ["query"]
    assert tools["recall"].annotations.read_only_hint and not tools["remember"].annotations.read_only_hint
    prompts = mcp.run(lambda c: c.list_prompts()).prompts
    assert [p.name for p in prompts] == ["braniac"]
    guide = mcp.run(lambda c: c.get_prompt("braniac")).messages[0].content.text
    assert "orient" in guide and "recall" in guide and "wrap_up" in guide


def test_remember_writes_an_event_recall_logs_like_a_turn(served):
    vault, mcp = served
    event = mcp.call_json("remember", {"text": "Ana's cat is called Pixel."})["event"]
    assert f"### {event}" in vault.stm_path.read_text(encoding="utf-8")
    before = len(access_lines(vault))
    found = mcp.call_json("recall", {"query": "Where does Ana live now?", "limit": 3})
    paths = [e["path"] for e in found["excerpts"]]
    assert "memory/long_term/concrete/lisbon.md" in paths and len(paths) <= 3
    lisbon = next(e for e in found["excerpts"] if e["path"].endswith("lisbon.md"))
    assert "28 tram" in lisbon["excerpt"] and re.fullmatch(r"[0-9a-f-]{36}", lisbon["uuid"])
    # the same lines a chat turn writes: one QUERY, then a READ per note, in one append (what was
    # just said, which competes too, is short-term memory: read whole every turn, no note)
    new = access_lines(vault)[before:]
    stamp = new[0].split(" | ")[0]
    assert new[0] == f"{stamp} | QUERY | Where does Ana live now?"
    assert new[1:] == [f"{stamp} | READ | {p}" for p in dict.fromkeys(paths) if p != "memory/short_term.md"]


def test_search_and_read_by_uuid_and_path(served):
    vault, mcp = served
    hits = mcp.call_json("search", {"query": "sourdough proofing", "kind": "concrete"})["hits"]
    assert hits[0]["path"] == "memory/long_term/concrete/sourdough.md"
    by_uuid = mcp.call_json("read", {"uuid_or_path": hits[0]["uuid"]})
    by_path = mcp.call_json("read", {"uuid_or_path": hits[0]["path"]})
    assert by_uuid == by_path
    assert "14 hours of cold proofing" in by_uuid["text"] and by_uuid["status"] == "active" and not by_uuid["notice"]
    assert access_lines(vault)[-1].endswith(f"| READ | {hits[0]['path']}")


def test_read_says_when_a_note_was_superseded(served):
    vault, mcp = served
    path = write_note(vault, "memory/long_term/concrete/old-plan.md", "Old plan", "We meant to use MySQL.")
    text = path.read_text(encoding="utf-8").replace("---\n", "---\nstatus: superseded\nsuperseded_by: 1234\n", 1)
    path.write_text(text, encoding="utf-8")
    got = mcp.call_json("read", {"uuid_or_path": "memory/long_term/concrete/old-plan.md"})
    assert got["status"] == "superseded" and "superseded by 1234" in got["notice"]


def test_wrap_up_then_orient_starts_where_it_stopped(served):
    vault, mcp = served
    event = mcp.call_json("wrap_up", {"summary": "Planned the move of the billing database.",
                                      "open_loops": ["migrate the users table"], "next_step": "write the migration"})
    doc = vault.read_stm()
    assert any(e.id == event["event"] for e in doc.events)
    assert {"migrate the users table", "Next step: write the migration"} <= \
        {i.text for i in doc.items("Tasks") if i.done is False}
    packet = text_of(mcp.call("orient"))
    assert "Planned the move of the billing database." in packet
    assert "## Open tasks" in packet and "migrate the users table" in packet
    assert "# Core identity" in packet and "uuid:" not in packet.split("## Core identity")[1][:200]


def test_stats_doctor_and_resources(served):
    vault, mcp = served
    stats = mcp.call_json("stats")
    assert stats["vault"] == str(vault.root) and stats["long_term"]["concrete"] >= 2
    assert mcp.call_json("doctor")["healthy"] is True
    assert set(mcp.call_json("doctor")) == {"vault", "healthy", "problems", "warnings"}   # as `doctor --json`
    identity = mcp.run(lambda c: c.read_resource("braniac://identity")).contents[0].text
    assert identity == vault.identity_path.read_text(encoding="utf-8")
    stm = mcp.run(lambda c: c.read_resource("braniac://short-term")).contents[0].text
    assert stm == vault.stm_path.read_text(encoding="utf-8")
    uuid = mcp.call_json("search", {"query": "tram"})["hits"][0]["uuid"]
    note = mcp.run(lambda c: c.read_resource(f"braniac://note/{uuid}")).contents[0].text
    assert "28 tram" in note


def test_promote_and_organize_through_the_tools(served):
    vault, mcp = served
    mcp.call_json("remember", {"text": "Maria works as a nurse at the hospital in Porto."})
    report = mcp.call_json("promote", {"force": True})
    assert report["status"] == "done", report
    assert vault.read_stm().events == []
    assert list((vault.ltm_root / "events").rglob("*.md"))
    planned = mcp.call_json("organize", {"dry_run": True})
    assert planned["status"] in ("dry-run", "skipped"), planned
    check_healthy(vault)
    # recall finds what was promoted, with the event it came from
    found = mcp.call_json("recall", {"query": "What does Maria do in Porto?"})
    assert any(e["events"] for e in found["excerpts"]), json.dumps(found, indent=1)


def test_a_note_saved_while_serving_is_found(served):
    vault, mcp = served
    write_note(vault, "memory/long_term/skills/kayak.md", "Kayak roll", "Roll the kayak with a hip snap, head last.")
    time.sleep(1.0)   # the file watcher reports a save within a few hundred milliseconds
    hits = mcp.call_json("search", {"query": "kayak hip snap"})["hits"]
    assert hits and hits[0]["path"] == "memory/long_term/skills/kayak.md"


@pytest.mark.slow
def test_the_server_promotes_when_idle(tmp_path):
    """As in the chat: with idle promotion configured, the server promotes once the vault is quiet."""
    vault, _ = Vault.init(tmp_path / "vault")
    config = vault.root / "braniac.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(re.sub(r"^#? ?promote_after_minutes = .*$", "promote_after_minutes = 0.01", text, flags=re.M),
                      encoding="utf-8")
    # written before the server starts: its idle check (every 30 s, the first after 5 s) finds it quiet
    vault.remember("Tomas lives in Lisbon with his two cats.")
    with Connected(stdio(vault.root)):
        deadline = time.monotonic() + 30
        while vault.read_stm().events and time.monotonic() < deadline:
            time.sleep(0.3)
    assert vault.read_stm().events == []
    assert any("Tomas" in p.read_text(encoding="utf-8") for p in (vault.ltm_root / "events").rglob("2*.md"))
