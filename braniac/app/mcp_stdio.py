"""`braniac mcp` over stdio, with requests that are not valid UTF-8 refused.

The SDK's stdio transport decodes the client's bytes with `errors="replace"`: a request carrying
bytes that are not UTF-8 would reach a tool with U+FFFD in place of them, and `remember` would
store the damaged text as if the client had meant it. Here each line is decoded strictly; a
line that fails is passed on (replaced, so that the SDK can still answer it) with its request id
marked, and the request is answered with a clear error before any tool runs.
"""
from __future__ import annotations

import json
import os
import re
import sys
import threading
from typing import Any


MESSAGE = "the request was not valid UTF-8 text; braniac did nothing with it"
# A JSON escape of a UTF-16 surrogate: valid in a pair, but a lone one is no text at all (the
# SDK's parser refuses the whole line, and the client would wait for an answer forever)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class TaintedRequests:
    """The ids of requests whose line was not valid UTF-8, until they are answered."""

    def __init__(self) -> None:
        self._ids: set[Any] = set()
        self._lock = threading.Lock()

    def mark(self, line: str) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return   # not JSON either: the SDK answers it as a parse error
        if isinstance(message, dict) and isinstance(message.get("id"), (str, int)):
            with self._lock:
                self._ids.add(message["id"])

    def take(self, request_id: Any) -> bool:
        with self._lock:
            if request_id in self._ids:
                self._ids.discard(request_id)
                return True
            return False

    async def middleware(self, ctx, call_next):
        if ctx.request_id is not None and self.take(ctx.request_id):
            if ctx.method == "tools/call":
                return {"content": [{"type": "text", "text": MESSAGE}], "isError": True}
            from mcp.shared.exceptions import MCPError
            from mcp_types import INVALID_PARAMS
            raise MCPError(INVALID_PARAMS, MESSAGE)
        return await call_next(ctx)


def _private_stdin():
    """The client's end of stdin, for this transport alone: fd 0 itself is pointed at the null
    device, so that no child process (git) can read the protocol's bytes."""
    private = os.dup(sys.stdin.fileno())
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, sys.stdin.fileno())
    os.close(null)
    return open(private, "rb")


def _parses(text: str) -> bool:
    import mcp_types
    try:
        mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        return True
    except ValueError:
        return False


def serve_stdio(server, tainted: TaintedRequests) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    raw = anyio.wrap_file(_private_stdin())

    async def lines():
        async for line in raw:
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                text = line.decode("utf-8", errors="replace")
                tainted.mark(text)
            else:
                if _SURROGATE_ESCAPE.search(text) and not _parses(text):
                    tainted.mark(text)
                    text = _SURROGATE_ESCAPE.sub(r"\\ufffd", text)
            yield text

    async def main() -> None:
        lowlevel = server._lowlevel_server   # what MCPServer.run_stdio_async serves, with our stdin
        async with stdio_server(stdin=lines()) as (read_stream, write_stream):
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    anyio.run(main)
