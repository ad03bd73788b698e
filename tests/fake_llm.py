"""A tiny OpenAI-compatible server for offline tests of braniac's LiteLLM path, and a network guard.

    server = FakeLLM().start()            # 127.0.0.1, a free port, in a daemon thread
    server.queries.append({"queries": ["kayak trip"]})    # the next search_queries call
    server.answers.append("You went kayaking.")           # the next answer (streamed if asked)
    server.reflections.append({"thoughts": "..."})        # the next reflect call
    server.any.append(Fail.HTTP_500)                      # the next call, whatever it is
    server.always = Fail.HTTP_500                         # every call with nothing scripted
    server.refuse = {"json_schema"}                       # HTTP 400 for that response_format
    server.concepts["clay"] = "pottery"                   # /v1/embeddings: "clay" means "pottery"
    server.embedding_replies.append(Fail.HTTP_500)        # the next embeddings call ([[...], ...]: these vectors)
    ... braniac with model openai/fake, api_base server.base_url ...
    server.requests                                       # every request body, parsed

A call is told apart by the task braniac names in its X-Braniac-Task header (the prompt
template's name: search_queries, answer, reflect, promote_analyze, promote_synthesize,
promote_summary, organize), never by the prompt's wording; a request naming no task is refused
with HTTP 400. The turn's tasks have their own queues (`queries`, `answers`, `reflections`);
every other task takes from `other`, and `calls("other")` lists those. A reply comes from
`any`, then the task's queue, then `always`, then a default made up from the request, so a test
scripts only the calls it cares about. A reply is one of:

    "text"                      the assistant message (sent as SSE chunks when "stream": true)
    {...} / [...]               JSON-encoded into the message content (response_format calls)
    Raw("...")                  that exact content, unencoded (malformed JSON for the JSON tasks)
    Stream(["a", "b"], delay)   chunks sent `delay` seconds apart (Ctrl-C tests); cut=True hangs
                                up after them, mid-stream
    Fail.HTTP_500 / MALFORMED / EMPTY   HTTP 500; a 200 whose body is broken JSON; a 200 with `{}`
    Truncated("...")            that content with finish_reason "length" (the model hit max_tokens)
    Delay(seconds, reply)       wait, then reply (longer than the client timeout: a timeout)

`wbufsize = -1` makes headers and body one write: without it each call stalls ~40 ms on Nagle
and delayed ACK (dependencies-probe.md §3).

The network guard makes any connection (or name lookup) that is not loopback an error, and
records it so a test fails even when the caller swallowed the error; `guard_env()` does the same
for subprocesses through a generated sitecustomize.py.
"""
from __future__ import annotations

import collections
import json
import os
import re
import socket
import textwrap
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from braniac.model.llm import TASK_HEADER, forget_refusals

MODEL = "openai/fake"
TURN_QUEUES = {"search_queries": "queries", "answer": "answers", "reflect": "reflections"}
LOOPBACK = {"127.0.0.1", "::1", "localhost", "::ffff:127.0.0.1"}


# ----------------------------------------------------------------------------- scripted replies

class Fail:
    HTTP_500 = "fail:500"
    MALFORMED = "fail:malformed"
    EMPTY = "fail:empty"


@dataclass
class Raw:
    content: str


@dataclass
class Truncated:
    content: str


@dataclass
class Delay:
    seconds: float
    reply: Any = "late reply"


@dataclass
class Stream:
    chunks: list[str]
    delay: float = 0.0
    cut: bool = False   # hang up after the chunks, without finishing the stream


@dataclass
class Request:
    path: str
    body: dict
    headers: dict = field(default_factory=dict)

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages", [])

    @property
    def text(self) -> str:
        """Every message's content, joined (what the model was shown)."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)

    @property
    def task(self) -> str:
        """The task braniac named for this call ("" when it named none)."""
        return self.headers.get(TASK_HEADER.lower(), "")


def default_reply(request: Request) -> Any:
    if request.task == "search_queries":
        prompt = request.text.rsplit("User message:", 1)[-1].split("Reply with JSON", 1)[0]
        words = [w.strip("?.,!\"'") for w in prompt.split() if len(w.strip("?.,!\"'")) > 3]
        return {"queries": [" ".join(words[:6]) or "memory"]}
    if request.task == "reflect":
        return {"thoughts": "The fake model reflected on this exchange."}
    return "hello from fake"


# ----------------------------------------------------------------------------- the server

class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = -1  # headers + body in one write (avoids a ~40 ms Nagle/delayed-ACK stall)
    server: "_Server"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        fake = self.server.fake
        request = Request(self.path, body, {k.lower(): v for k, v in self.headers.items()})
        fake._record(request)
        if self.path.rstrip("/").endswith("/embeddings"):
            return self._embeddings(body, fake)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self._send(404, b'{"error":{"message":"not found","type":"invalid_request_error"}}')
        if not request.task:
            refusal = {"error": {"message": f"no {TASK_HEADER} header: which task is this?",
                                 "type": "invalid_request_error"}}
            return self._send(400, json.dumps(refusal).encode())
        asked = (body.get("response_format") or {}).get("type") if isinstance(body.get("response_format"), dict) else None
        if asked and asked in fake.refuse:
            refusal = {"error": {"message": f"response_format type {asked} is not supported by this server",
                                 "type": "invalid_request_error"}}
            return self._send(fake.refuse_status, json.dumps(refusal).encode())
        reply = _after_delays(fake._next(request), fake)
        if reply is _STOPPING or self._failed(reply, b'{"id": "x", "choices": [ not json'):
            return
        if reply == Fail.EMPTY:
            return self._send(200, b"{}")
        if isinstance(reply, Stream):
            return self._stream(body, reply.chunks, reply.delay, reply.cut)
        finish = "stop"
        if isinstance(reply, Truncated):
            content, finish = reply.content, "length"
        elif isinstance(reply, Raw):
            content = reply.content
        elif isinstance(reply, str):
            content = reply
        else:
            content = json.dumps(reply)
        if request.stream:
            return self._stream(body, _split_chunks(content), 0.0)
        self._send(200, json.dumps({
            "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
        }).encode())

    def _embeddings(self, body: dict, fake: "FakeLLM") -> None:
        with fake._lock:
            reply = fake.embedding_replies.popleft() if fake.embedding_replies else None
        reply = _after_delays(reply, fake)
        if reply is _STOPPING or self._failed(reply, b'{"object": "list", "data": [ not json'):
            return
        texts = body.get("input") or []
        texts = [texts] if isinstance(texts, str) else texts
        vectors = reply if isinstance(reply, list) else [fake.embed(t) for t in texts]   # a list: those vectors
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        self._send(200, json.dumps({"object": "list", "data": data, "model": body.get("model", "fake"),
                                    "usage": {"prompt_tokens": 1, "total_tokens": 1}}).encode())

    def _failed(self, reply: Any, malformed: bytes) -> bool:
        """Answer a scripted HTTP 500 or a malformed body (`malformed`: this endpoint's broken JSON)."""
        if reply == Fail.HTTP_500:
            self._send(500, b'{"error":{"message":"boom","type":"server_error"}}')
        elif reply == Fail.MALFORMED:
            self._send(200, malformed)
        else:
            return False
        return True

    def _send(self, code: int, data: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _stream(self, body: dict, chunks: list[str], delay: float, cut: bool = False) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": body.get("model", "fake")}
        events = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}]
        events += [{**base, "choices": [{"index": 0, "delta": {"content": c}, "finish_reason": None}]} for c in chunks]
        events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        try:
            for n, event in enumerate(events):
                if delay and 1 < n < len(events) - 1 and self.server.fake._stopping.wait(delay):
                    return
                if cut and n == len(events) - 1:
                    self.close_connection = True  # mid-stream: no last event, no end of body
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self._chunk(f"data: {json.dumps(event)}\n\n".encode())
            self._chunk(b"data: [DONE]\n\n")
            self._chunk(b"")
        except OSError:
            pass  # the client hung up (Ctrl-C tests)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


_STOPPING = object()


def _after_delays(reply: Any, fake: "FakeLLM") -> Any:
    """The reply a chain of Delay(...) wraps, once waited for; _STOPPING if the server stops meanwhile."""
    while isinstance(reply, Delay):
        if fake._stopping.wait(reply.seconds):
            return _STOPPING
        reply = reply.reply
    return reply


def _split_chunks(text: str, size: int = 12) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    fake: "FakeLLM"

    def handle_error(self, request, client_address) -> None:
        pass  # the client hung up (timeout tests)


class FakeLLM:
    def __init__(self) -> None:
        self.any: collections.deque = collections.deque()
        self.queries: collections.deque = collections.deque()
        self.answers: collections.deque = collections.deque()
        self.reflections: collections.deque = collections.deque()
        self.other: collections.deque = collections.deque()
        self.always: Any = None
        self.refuse: set[str] = set()    # response_format types answered with HTTP 400
        self.refuse_status = 400         # (llama-cpp-python's server says it with a 500)
        self.requests: list[Request] = []
        # /v1/embeddings: a text's vector counts its words' concepts (a word is its own concept
        # unless `concepts` maps it to another: {"clay": "pottery"}), so a test decides what
        # means the same; `embedding_replies` scripts the next calls (Fail.*, Delay)
        self.concepts: dict[str, str] = {}
        self.embedding_replies: collections.deque = collections.deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None

    # ------------------------------------------------------------------ life
    def start(self) -> "FakeLLM":
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        threading.Thread(target=self._server.serve_forever, name="fake-llm", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # ------------------------------------------------------------------ script and record
    def reset(self) -> None:
        with self._lock:
            for queue in (self.any, self.queries, self.answers, self.reflections, self.other):
                queue.clear()
            self.requests.clear()
            self.concepts = {}
            self.embedding_replies.clear()
            self.always = None
            self.refuse = set()
            self.refuse_status = 400

    def _record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def _next(self, request: Request) -> Any:
        queue = getattr(self, TURN_QUEUES.get(request.task, "other"))
        with self._lock:
            for source in (self.any, queue):
                if source:
                    return source.popleft()
            if self.always is not None:
                return self.always
        return default_reply(request)

    def embed(self, text: str, dimensions: int = 64) -> list[float]:
        vector = [0.0] * dimensions
        for word in re.findall(r"[a-z]+", str(text).lower()):
            if len(word) > 2:
                concept = self.concepts.get(word, word)
                if concept:   # a word mapped to "" carries no meaning
                    vector[zlib.crc32(concept.encode()) % dimensions] += 1.0
        vector[-1] += 0.01   # never the zero vector
        return vector

    def embedding_calls(self) -> list[Request]:
        return [r for r in self.requests if r.path.rstrip("/").endswith("/embeddings")]

    def calls(self, task: str) -> list[Request]:
        """The requests of one task; "other" stands for every task without a queue of its own."""
        chats = [r for r in self.requests if not r.path.rstrip("/").endswith("/embeddings")]
        if task == "other":
            return [r for r in chats if r.task not in TURN_QUEUES]
        return [r for r in chats if r.task == task]


# ----------------------------------------------------------------------------- configuring braniac

def configure_vault(vault_root: Path, base_url: str, *, timeout: float = 5.0, retries: int = 0,
                    extra: str = "") -> None:
    """Point the vault's braniac.toml at the fake server (the key comes from FAKE_LLM_KEY)."""
    (Path(vault_root) / "braniac.toml").write_text(textwrap.dedent(f"""\
        [model]
        name = "{MODEL}"
        api_base = "{base_url}"
        api_key_env = "FAKE_LLM_KEY"
        timeout = {timeout}
        retries = {retries}
        """) + extra, encoding="utf-8")


# ----------------------------------------------------------------------------- the network guard

def _is_loopback(address: Any) -> bool:
    if isinstance(address, (str, bytes)):
        return True  # AF_UNIX path
    if isinstance(address, tuple) and address:
        host = address[0]
        if isinstance(host, bytes):
            host = host.decode()
        return str(host).lower() in LOOPBACK or str(host).startswith("127.")
    return False


class NetworkGuard:
    """Refuses (and records) connections and name lookups that are not loopback."""

    def __init__(self) -> None:
        self.attempts: list[str] = []
        self._saved: list[tuple[Any, str, Any]] = []

    def install(self) -> "NetworkGuard":
        guard = self
        real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
        real_create, real_getaddrinfo = socket.create_connection, socket.getaddrinfo

        def check(what: str, address: Any) -> None:
            if not _is_loopback(address):
                guard.attempts.append(f"{what} {address!r}")
                raise ConnectionRefusedError(f"network guard: test tried to reach {address!r}")

        def connect(sock, address):
            if sock.family != socket.AF_UNIX:
                check("connect", address)
            return real_connect(sock, address)

        def connect_ex(sock, address):
            if sock.family != socket.AF_UNIX:
                check("connect_ex", address)
            return real_connect_ex(sock, address)

        def create_connection(address, *args, **kwargs):
            check("create_connection", address)
            return real_create(address, *args, **kwargs)

        def getaddrinfo(host, *args, **kwargs):
            if host is not None:
                check("getaddrinfo", (host,))
            return real_getaddrinfo(host, *args, **kwargs)

        for owner, name, new in ((socket.socket, "connect", connect), (socket.socket, "connect_ex", connect_ex),
                                 (socket, "create_connection", create_connection), (socket, "getaddrinfo", getaddrinfo)):
            self._saved.append((owner, name, getattr(owner, name)))
            setattr(owner, name, new)
        return self

    def uninstall(self) -> None:
        while self._saved:
            owner, name, old = self._saved.pop()
            setattr(owner, name, old)


SITECUSTOMIZE = '''\
"""Written by tests/fake_llm.py: this process may only talk to loopback."""
import os, socket
_LOG = os.environ.get("NETGUARD_LOG")
_OK = {"127.0.0.1", "::1", "localhost", "::ffff:127.0.0.1"}
def _check(what, address):
    if isinstance(address, (str, bytes)):
        return
    host = str(address[0]).lower() if isinstance(address, tuple) and address else repr(address)
    if host in _OK or host.startswith("127."):
        return
    if _LOG:
        with open(_LOG, "a") as f:
            f.write(f"{os.getpid()} {what} {address!r}\\n")
    raise ConnectionRefusedError(f"network guard: tried to reach {address!r}")
_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex
_create, _gai = socket.create_connection, socket.getaddrinfo
def connect(self, address):
    if self.family != socket.AF_UNIX:
        _check("connect", address)
    return _connect(self, address)
def connect_ex(self, address):
    if self.family != socket.AF_UNIX:
        _check("connect_ex", address)
    return _connect_ex(self, address)
def create_connection(address, *a, **k):
    _check("create_connection", address)
    return _create(address, *a, **k)
def getaddrinfo(host, *a, **k):
    if host is not None:
        _check("getaddrinfo", (host,))
    return _gai(host, *a, **k)
socket.socket.connect, socket.socket.connect_ex = connect, connect_ex
socket.create_connection, socket.getaddrinfo = create_connection, getaddrinfo
'''


def guard_env(folder: Path, env: dict[str, str]) -> tuple[dict[str, str], Path]:
    """A subprocess environment whose Python refuses non-loopback connections (logged to the
    returned file, which must stay empty)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    log = folder / "netguard.log"
    env = dict(env)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(folder), env.get("PYTHONPATH", "")) if p)
    env["NETGUARD_LOG"] = str(log)
    return env, log


# ----------------------------------------------------------------------------- fixtures
# conftest.py registers this module as a plugin: every test file can ask for these by name.

@pytest.fixture(scope="session")
def _fake_llm_server():
    server = FakeLLM().start()
    yield server
    server.stop()


@pytest.fixture
def fake_llm(_fake_llm_server):
    """(base_url, server): one server for the test session, its script and record reset per test
    (and braniac's memory of which response_format a server refused)."""
    forget_refusals()
    _fake_llm_server.reset()
    yield _fake_llm_server.base_url, _fake_llm_server
    _fake_llm_server.reset()


@pytest.fixture
def net_guard():
    """Nothing in this test may leave loopback; an attempt fails the test even if it was caught."""
    guard = NetworkGuard().install()
    yield guard
    guard.uninstall()
    assert not guard.attempts, f"non-loopback network access: {guard.attempts}"


__all__ = ["FakeLLM", "Fail", "Raw", "Truncated", "Delay", "Stream", "Request", "MODEL", "configure_vault", "guard_env",
           "NetworkGuard", "fake_llm", "net_guard", "_fake_llm_server"]
