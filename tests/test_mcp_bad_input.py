"""Bad input from an MCP client: each gets a clear error result, the server goes on serving, and
nothing in the vault changes. One `braniac mcp` over stdio serves the module; the cases the
official client cannot send (bytes that are not UTF-8, a hang-up mid-call) use raw lines."""
from __future__ import annotations

import os
import subprocess
import time

import pytest

from braniac import Vault
from helpers import check_healthy, snapshot, write_note
from mcp_client import Connected, Raw, free_port, start_http, stdio, tool_call


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("mcp-bad")
    vault, _ = Vault.init(root / "vault")
    note = write_note(vault, "memory/long_term/concrete/lisbon.md", "Lisbon", "Ana lives in Lisbon.")
    # the note's folder manifest is brought up to date once the folder has been quiet for a few
    # seconds: done here, so that no test's snapshot sees the server do it (a slow run did)
    quiet = time.time() - 60
    os.utime(note, (quiet, quiet))
    os.utime(note.parent, (quiet, quiet))
    vault.adopt()
    (root / "secret.md").write_text("---\nuuid: 11111111-2222-4333-8444-555555555555\n---\nsecret outside\n")
    os.symlink(root / "secret.md", vault.root / "memory" / "long_term" / "concrete" / "escape.md")
    with Connected(stdio(vault.root)) as mcp:
        mcp.call_json("stats")   # the index built before the snapshots
        yield vault, mcp


def refused(served, name: str, arguments, *needles: str) -> str:
    """The call ends in an error (an error result, or the protocol's invalid-params error)
    naming the problem; the vault is unchanged; the server still answers."""
    vault, mcp = served
    before = snapshot(vault.root)
    try:
        result = mcp.call(name, arguments)
        assert result.is_error, result
        message = result.content[0].text
    except Exception as exc:  # noqa: BLE001 - the protocol's own error for a malformed request
        from mcp import MCPError
        assert isinstance(exc, MCPError), exc
        message = exc.error.message
    for needle in needles:
        assert needle in message, (needle, message)
    assert "Traceback" not in message
    after = snapshot(vault.root)
    assert {k: v for k, v in after.items() if k != "logs/access.log"} == \
           {k: v for k, v in before.items() if k != "logs/access.log"}
    assert mcp.call_json("stats")["vault"] == str(vault.root)   # still serving
    return message


def test_unknown_tool(served):
    refused(served, "forget_everything", {}, "Unknown tool", "forget_everything")


@pytest.mark.parametrize("name, arguments, field", [
    ("recall", {"query": 42}, "query"),
    ("recall", {"query": "ana", "limit": "many"}, "limit"),
    ("remember", {}, "text"),
    ("remember", {"text": ["a", "list"]}, "text"),
    ("wrap_up", {"summary": "done", "open_loops": "not a list"}, "open_loops"),
    ("search", {"query": "ana", "kind": "secrets"}, "kind"),
    ("promote", {"force": "yes please"}, "force"),
])
def test_wrong_types(served, name, arguments, field):
    message = refused(served, name, arguments, field)
    assert "\n" not in message and "pydantic" not in message, message   # one line, as braniac's own errors


def test_out_of_range_limit(served):
    refused(served, "recall", {"query": "ana", "limit": 100000}, "limit must be")


def test_ten_megabytes_remember(served):
    started = time.monotonic()
    refused(served, "remember", {"text": "word " * 2_000_000}, "too large")
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("ref", ["../../etc/passwd", "/etc/passwd", "memory/../../secret.md",
                                 "memory/long_term/concrete/escape.md", ".braniac/index/braniac-files.json",
                                 "braniac.toml"])
def test_read_never_leaves_the_vault(served, ref):
    message = refused(served, "read", {"uuid_or_path": ref})
    assert "secret outside" not in message and ("leaves" in message or "not a memory file" in message)


def test_unknown_uuid(served):
    refused(served, "read", {"uuid_or_path": "11111111-2222-4333-8444-555555555555"}, "no memory file has the uuid")
    vault, mcp = served
    from mcp import MCPError
    with pytest.raises(MCPError):
        mcp.run(lambda c: c.read_resource("braniac://note/00000000-0000-4000-8000-000000000000"))


def test_nul_and_lone_surrogates_in_text(served):
    refused(served, "remember", {"text": "a NUL \x00 inside"}, "NUL")
    refused(served, "wrap_up", {"summary": "   "}, "summary")


def test_invalid_utf8_over_the_wire(served):
    vault, _mcp = served
    before = snapshot(vault.root)
    raw = Raw(vault.root)
    raw.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember",'
             b'"arguments":{"text":"bytes \xff\xfe that are not UTF-8"}}}')
    answer = raw.receive()
    assert answer["id"] == 1 and answer["result"]["isError"], answer
    assert "not valid UTF-8" in answer["result"]["content"][0]["text"]
    raw.send(b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember",'
             b'"arguments":{"text":"a lone \\udcff surrogate"}}}')
    answer = raw.receive()
    assert answer["id"] == 2 and answer["result"]["isError"], answer
    raw.send(tool_call(3, "remember", {"text": "a pair \U0001F600 is fine"}))
    assert not raw.receive()["result"].get("isError")
    code, err = raw.hang_up()
    assert code == 0 and "Traceback" not in err, err
    changed = {k for k, v in snapshot(vault.root).items() if before.get(k) != v} - {"logs/access.log"}
    assert changed == {"memory/short_term.md"}
    text = vault.stm_path.read_text(encoding="utf-8")
    assert "\U0001F600" in text and "not UTF-8" not in text and "surrogate" not in text


def test_client_hangs_up_mid_call(served):
    """stdio: the client leaves while a call runs; the server finishes that write (or never
    starts it), exits 0 without a traceback, and the vault is whole."""
    vault, _mcp = served
    raw = Raw(vault.root)
    raw.send(tool_call(1, "remember", {"text": "Said just before hanging up."}))
    raw.send(tool_call(2, "organize", {}))
    code, err = raw.hang_up()
    assert code == 0 and "Traceback" not in err, err
    assert vault.stm_path.read_text(encoding="utf-8").count("Said just before hanging up.") <= 1
    problems = [f.path for f in vault.doctor() if f.severity == "problem"]
    assert problems == ["memory/long_term/concrete/escape.md"]   # the module's own symlink out


def test_http_client_disconnects_mid_call_and_the_server_goes_on(tmp_path):
    """Streamable HTTP on loopback: a client dropping its connection mid-call leaves the server
    serving the next client, the vault whole."""
    vault, _ = Vault.init(tmp_path / "vault")
    port = free_port()
    server = start_http(vault.root, port)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        with Connected(url) as first:
            assert first.call_json("remember", {"text": "Over HTTP: Ana's tram is the 28."})["event"]
            first.run(_start_and_abandon)   # then the connection closes, the promotion maybe still running
        with Connected(url) as second:
            found = second.call_json("recall", {"query": "Which tram does Ana take?"})
            assert second.call_json("doctor")["healthy"], found
    finally:
        # SIGTERM: the server shuts down gracefully, waiting for a call still running (the
        # abandoned promotion, which may have started late or not at all); no call starts after
        server.terminate()
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
        err = server.stderr.read().decode("utf-8", "replace")
    said = "Over HTTP: Ana's tram is the 28."
    kept = [p for p in [vault.stm_path, *(vault.ltm_root / "events").rglob("2*.md")]
            if said in p.read_text(encoding="utf-8")]
    assert len(kept) == 1, kept   # in short-term memory, or archived by the promotion: once
    check_healthy(vault)
    assert "Traceback" not in err, err


async def _start_and_abandon(client) -> None:
    """A promote started and its request cancelled at once (the connection then closes)."""
    import anyio
    with anyio.move_on_after(0.05):
        await client.call_tool("promote", {"force": True})
