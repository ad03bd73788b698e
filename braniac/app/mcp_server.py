"""`braniac mcp`: the vault's memory for the assistants people already use (Claude Desktop,
Claude Code, Cursor, any MCP client), over the Model Context Protocol's official SDK.

Each tool calls one method of the public API (`braniac.Vault`, and the warm `Recaller` it
hands out), as the CLI does: the same locks, the same atomic writes, the same access log. The
SDK runs each call in a worker thread; a `BraniacError` (bad input, a busy lock, an unreadable
file) becomes an error result with braniac's one-line message, and the server goes on. The
`mcp` package is imported here only, so no other command pays for it.

Like the chat, the server keeps its search index current from a file watcher and runs idle
promotion when the vault's configuration asks for it.
"""
from __future__ import annotations

import functools
import re
import threading
from typing import TYPE_CHECKING, Any, Callable, Literal

from ..infra.errors import BraniacError
from ..infra.notices import describe_os_error
from ..infra.version import __version__
from ..model import prompts
from ..processes.idle import IdleWorker
from .mcp_stdio import TaintedRequests, serve_stdio
from .watch import ChangeFeed

if TYPE_CHECKING:
    from ..api import Vault
    from ..processes.recall import Recaller

Kind = Literal["concrete", "events", "skills", "index", "stm", "identity", "archive", "other"]
READ_ONLY = {"read_only_hint": True, "destructive_hint": False, "open_world_hint": False}
WRITES = {"read_only_hint": False, "destructive_hint": False, "open_world_hint": False}


def _clean_errors(fn: Callable) -> Callable:
    """A tool's errors a person can act on, as an error result with braniac's message."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except BraniacError as exc:
            raise ToolError(str(exc)) from None
        except OSError as exc:   # a full disk, say: the server goes on
            raise ToolError(describe_os_error(exc)) from None
    return call


# pydantic's report of arguments of the wrong type, which the SDK passes on as it is (several
# lines and a web address): "text\n  Input should be a valid string [type=…, input_value=5, …]"
_ARGUMENT_ERROR = re.compile(r"^Error executing tool (\S+): \d+ validation errors? for \S+\n(.*)\Z", re.S)
_ONE_FIELD = re.compile(r"^(\S[^\n]*)\n\s+([^\n\[]+?)\s*\[[^\n]*?input_value=([^\n,]*(?:,[^\n=]*)*?),\s*input_type", re.M)


def one_line(text: str) -> str:
    """A tool's argument error in one line, as braniac says every error: "remember: text: Input
    should be a valid string (got 5)"."""
    found = _ARGUMENT_ERROR.match(text)
    if not found:
        return text
    fields = [f"{field}: {problem} (got {given[:60]})" for field, problem, given in _ONE_FIELD.findall(found.group(2))]
    return f"{found.group(1)}: " + "; ".join(fields) if fields else text.splitlines()[0]


async def _one_line_errors(ctx, call_next):
    result = await call_next(ctx)
    if ctx.method != "tools/call":
        return result
    content = result.get("content") if isinstance(result, dict) else getattr(result, "content", None)
    for item in content or ():
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            item["text"] = one_line(item["text"])
        elif isinstance(getattr(item, "text", None), str):
            item.text = one_line(item.text)
    return result


def build(vault: "Vault", recaller: "Recaller", *, tainted: TaintedRequests | None = None):
    """The MCP server over `vault` (not started): tools, resources and the guide prompt."""
    from mcp.server import MCPServer
    from mcp_types import ToolAnnotations

    guide = prompts.render("mcp_guide", vault.root)
    server = MCPServer("braniac", title="braniac memory", version=__version__, instructions=guide,
                       log_level="WARNING",
                       middleware=[_one_line_errors] + ([tainted.middleware] if tainted is not None else []))

    def tool(annotations: dict, title: str):
        def register(fn):
            server.add_tool(_clean_errors(fn), title=title, annotations=ToolAnnotations(**annotations),
                            structured_output=False)
            return fn
        return register

    @tool(WRITES, "Remember")
    def remember(text: str) -> dict:
        """Store one statement in the person's long-term memory (short-term first; braniac
        consolidates it later). Use it for what is worth recalling months from now: a fact about
        the person or their work, a decision and its reason, a preference, a commitment ("remind
        me to ..." becomes an open task). One short, self-contained statement per call; no
        secrets. Returns the event id."""
        event = vault.remember(text)
        return {"event": event.id}

    @tool(READ_ONLY, "Recall")
    def recall(query: str, limit: int | None = None) -> dict:
        """Recall what memory holds about a question, before answering anything that may depend
        on the past. `query`: the question in a sentence. Returns excerpts (the passages braniac's
        own chat would use for that prompt), each with its note's path and uuid and the event
        ids it cites. `limit`: at most this many excerpts (1-50, default from the vault's config)."""
        return recaller.recall(query, limit=limit).as_dict()

    @tool(READ_ONLY, "Search memory")
    def search(query: str, limit: int = 10, kind: Kind | None = None) -> dict:
        """Search memory files by keywords (ranked notes with an excerpt each). `kind`: only
        concrete notes, events, skills, folder indexes (index), short-term memory (stm), the
        identity, or archived notes (archive, otherwise left out)."""
        hits = recaller.search(query, limit=limit, kind=kind, archived=kind == "archive")
        return {"hits": [h.as_dict() for h in hits]}

    @tool(READ_ONLY, "Read a note")
    def read(uuid_or_path: str) -> dict:
        """Read one memory file whole: by its uuid, or by its path in the vault (as `recall` and
        `search` give them). Says when the note was archived or superseded by a newer one."""
        return recaller.read(uuid_or_path).as_dict()

    @tool(READ_ONLY, "Orient")
    def orient() -> str:
        """Call once at the start of a session: the core identity, the short-term summary, open
        goals and tasks, the last session's handoff, the latest events, recent decisions and the
        hubs of long-term memory, as one Markdown text."""
        return vault.orient().as_markdown()

    @tool(WRITES, "Wrap up the session")
    def wrap_up(summary: str, open_loops: list[str] | None = None, next_step: str | None = None) -> dict:
        """Call at the end of a session: `summary` of what was done, `open_loops` (what is left
        open, each becomes an open task), `next_step`. The next session's `orient` starts from it."""
        event = vault.wrap_up(summary, open_loops=open_loops or [], next_step=next_step)
        return {"event": event.id}

    @tool(READ_ONLY, "Memory statistics")
    def stats() -> dict:
        """Counts per memory tier, events and open goals and tasks in short-term memory, the
        last promotion and organization, hubs and stale notes."""
        return vault.stats()

    @tool(READ_ONLY, "Check the vault")
    def doctor() -> dict:
        """Check every file of the vault; problems and warnings, each with file and reason."""
        findings = vault.doctor()
        problems = [f.as_dict() for f in findings if f.severity == "problem"]
        return {"vault": str(vault.root), "healthy": not problems, "problems": problems,
                "warnings": [f.as_dict() for f in findings if f.severity != "problem"]}

    @tool(WRITES, "Promote")
    def promote(force: bool = False) -> dict:
        """Consolidate short-term into long-term memory now. Runs by itself when the vault is
        idle; call it only when the person asks. Without `force` it skips while short-term
        memory was active in the last minutes; it always skips when another braniac process is
        consolidating."""
        return vault.promote(force=force).as_dict()

    @tool(WRITES, "Organize")
    def organize(dry_run: bool = False) -> dict:
        """Learn from use: link notes read together, move much-read ones up, archive unused ones.
        Runs by itself when the vault is long idle; call it only when the person asks.
        `dry_run`: only say what it would do."""
        return vault.organize(dry_run=dry_run).as_dict()

    _resources(server, vault, recaller)

    @server.prompt(name="braniac", title="Use braniac's memory",
                   description="How to use this memory: orient first, recall before answering, remember what "
                               "matters, wrap up at the end.")
    def guide_prompt() -> str:
        """How to use this memory: orient first, recall before answering, remember what matters,
        wrap up at the end."""
        return prompts.render("mcp_guide", vault.root)

    return server


def _resources(server, vault: "Vault", recaller: "Recaller") -> None:
    from mcp.server.mcpserver.exceptions import ResourceError

    def clean(fn: Callable[..., str]) -> Callable[..., str]:
        @functools.wraps(fn)
        def read(*args: Any, **kwargs: Any) -> str:
            try:
                return fn(*args, **kwargs)
            except BraniacError as exc:
                raise ResourceError(str(exc)) from None
            except OSError as exc:
                raise ResourceError(describe_os_error(exc)) from None
        return read

    @server.resource("braniac://identity", name="identity", title="Core identity", mime_type="text/markdown")
    @clean
    def identity() -> str:
        """The constitution loaded into every prompt of braniac's chat."""
        return vault.read_identity()

    @server.resource("braniac://short-term", name="short-term", title="Short-term memory", mime_type="text/markdown")
    @clean
    def short_term() -> str:
        """short_term.md: the Summary, goals, key facts, tasks and the latest events."""
        return vault.read_stm().render()

    @server.resource("braniac://note/{uuid}", name="note", title="A note by uuid", mime_type="text/markdown")
    @clean
    def note(uuid: str) -> str:
        """One memory file, by its uuid."""
        return recaller.read(uuid).text


def run(vault: "Vault", *, http_port: int | None = None, host: str = "127.0.0.1") -> None:
    """Serve until the client leaves (stdio) or SIGINT/SIGTERM (HTTP)."""
    changes = ChangeFeed(vault)
    recaller = vault.recaller(changes=changes)
    stop = threading.Event()
    try:
        IdleWorker(vault).start_background(stop)
        if http_port is None:
            tainted = TaintedRequests()
            serve_stdio(build(vault, recaller, tainted=tainted), tainted)
        else:
            build(vault, recaller).run("streamable-http", host=host, port=http_port)
    finally:
        stop.set()
        recaller.close()
