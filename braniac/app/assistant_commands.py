"""`braniac recall`, `orient`, `wrap-up` and `mcp`: memory for the assistants a person already
uses (a session-start hook, an agent's shell, an MCP client)."""
from __future__ import annotations

import sys

import click

from .output import emit_json, open_vault, say


@click.command()
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", "-n", type=int, help="At most this many excerpts (default: the vault's search limit).")
@click.option("--json", "as_json", is_flag=True, help='Print {"query", "queries", "excerpts"} as JSON.')
@click.pass_context
def recall(ctx: click.Context, query: tuple[str, ...], limit: int | None, as_json: bool) -> None:
    """What memory holds about QUERY: the excerpts a chat turn would use (logged as a turn's reads)."""
    found = open_vault(ctx).recall(" ".join(query), limit=limit)
    if as_json:
        emit_json(found.as_dict())
        return
    if not found.excerpts:
        say("nothing recalled")
    for n, item in enumerate(found.excerpts, start=1):
        named = f"{item.title}  {item.path}" if item.title else item.path
        say(f"{n}. {named}" + (f"  (uuid {item.uuid})" if item.uuid else ""))
        if item.events:
            say("   cites " + ", ".join(item.events))
        say("   " + item.text.replace("\n", "\n   "))


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the packet as JSON.")
@click.option("--events", default=5, show_default=True, help="How many of the latest events.")
@click.option("--days", default=3, show_default=True, help="Decisions and digests of this many days.")
@click.pass_context
def orient(ctx: click.Context, as_json: bool, events: int, days: int) -> None:
    """Print the packet an assistant reads at the start of a session (for a session-start hook)."""
    packet = open_vault(ctx).orient(events=events, days=days)
    if as_json:
        emit_json(packet.as_dict())
    else:
        say(packet.as_markdown().rstrip())


@click.command(name="wrap-up")
@click.argument("summary", nargs=-1, required=True)
@click.option("--open-loop", "open_loops", multiple=True, metavar="TEXT", help="Something left open (repeatable); becomes an open task.")
@click.option("--next-step", metavar="TEXT", help="What the next session should do first.")
@click.option("--json", "as_json", is_flag=True, help='Print {"event", "tasks"} as JSON.')
@click.pass_context
def wrap_up(ctx: click.Context, summary: tuple[str, ...], open_loops: tuple[str, ...], next_step: str | None,
            as_json: bool) -> None:
    """Record the end of a session (SUMMARY; - reads it from stdin) so the next `orient` starts there."""
    text = " ".join(summary)
    if text == "-":
        text = sys.stdin.buffer.read().decode("utf-8", errors="surrogateescape")
    event = open_vault(ctx).wrap_up(text, open_loops=list(open_loops), next_step=next_step)
    if as_json:
        emit_json({"event": event.id, "tasks": list(open_loops)})   # each open loop is an open task now
    else:
        say(f"wrapped up as event {event.id}")


@click.command()
@click.option("--http", "http_port", type=click.IntRange(1, 65535), metavar="PORT",
              help="Serve streamable HTTP on 127.0.0.1:PORT (path /mcp) instead of stdio.")
@click.pass_context
def mcp(ctx: click.Context, http_port: int | None) -> None:
    """Serve this vault to MCP clients (Claude Desktop, Claude Code, Cursor...) over stdio."""
    from .mcp_server import run
    run(open_vault(ctx), http_port=http_port)
