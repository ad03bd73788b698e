"""The official `mcp` client, driven from plain (synchronous) tests and benchmarks: one event loop
in a thread holds the connection (an anyio task group must be left by the task that entered it)
and runs each call sent to it. Also a raw JSON-RPC line client for what the SDK's client would
never send (bytes that are not UTF-8, a hang-up in the middle of a call)."""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from helpers import clean_env


def server_command(vault: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "braniac", "--vault", str(vault), "mcp", *extra]


class Connected:
    """`with Connected(server) as mcp: mcp.call("recall", {...})`; `server` is what
    `mcp.Client` takes: StdioServerParameters, or an http URL."""

    def __init__(self, server, timeout: float = 60):
        self.server, self.timeout = server, timeout
        self._loop = asyncio.new_event_loop()
        self._jobs: asyncio.Queue | None = None
        self._ready = concurrent.futures.Future()
        self._done = concurrent.futures.Future()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "Connected":
        self._thread.start()
        self._ready.result(self.timeout)
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._main())
        except BaseException as exc:  # noqa: BLE001 - reported to the waiting test
            for future in (self._ready, self._done):
                if not future.done():
                    future.set_exception(exc)

    async def _main(self) -> None:
        from mcp import Client
        self._jobs = asyncio.Queue()
        async with Client(self.server, cache=None) as client:
            self.client = client
            self._ready.set_result(True)
            while True:
                job = await self._jobs.get()
                if job is None:
                    break
                make, future = job
                try:
                    future.set_result(await make(client))
                except BaseException as exc:  # noqa: BLE001
                    future.set_exception(exc)
        self._done.set_result(True)

    def run(self, make, timeout: float | None = None):
        """`make(client)` -> a coroutine, run on the connection; its result."""
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._loop.call_soon_threadsafe(self._jobs.put_nowait, (make, future))
        return future.result(timeout or self.timeout)

    def call(self, name: str, arguments: dict | None = None, timeout: float | None = None):
        return self.run(lambda c: c.call_tool(name, arguments or {}), timeout)

    def call_json(self, name: str, arguments: dict | None = None):
        result = self.call(name, arguments)
        assert not result.is_error, result.content[0].text
        return json.loads(result.content[0].text)

    def close(self) -> None:
        if self._jobs is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._jobs.put_nowait, None)
            self._done.result(self.timeout)
        self._thread.join(self.timeout)


def stdio(vault: Path, env: dict[str, str] | None = None):
    from mcp import StdioServerParameters
    command = server_command(vault)
    return StdioServerParameters(command=command[0], args=command[1:], env=env or clean_env())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_http(vault: Path, port: int) -> subprocess.Popen:
    """`braniac mcp --http PORT`, returned once it accepts connections."""
    proc = subprocess.Popen(server_command(vault, "--http", str(port)), env=clean_env(), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"braniac mcp --http exited {proc.returncode}: {proc.stderr.read().decode()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("braniac mcp --http did not start listening")


class Raw:
    """`braniac mcp` over stdio, one JSON-RPC line at a time (bytes as given)."""

    def __init__(self, vault: Path):
        self.proc = subprocess.Popen(server_command(vault), env=clean_env(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "braniac-tests", "version": "0"}}})
        assert "result" in self.receive(), "no answer to initialize"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict | bytes) -> None:
        line = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 30) -> dict:
        result: list = []
        reader = threading.Thread(target=lambda: result.append(self.proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        assert result and result[0], "no answer from the server"
        return json.loads(result[0])

    def hang_up(self, timeout: float = 30) -> tuple[int, str]:
        """Close the pipes; the exit code and stderr."""
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        return self.proc.returncode, self.proc.stderr.read().decode("utf-8", "replace")


def tool_call(request_id: int, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


__all__ = ["Connected", "Raw", "stdio", "start_http", "free_port", "tool_call", "server_command"]
