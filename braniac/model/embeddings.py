"""Embeddings: the vectors that let retrieval weigh meaning beside words, through LiteLLM.

Off unless `[embedding] name` in braniac.toml names a LiteLLM embedding model: a hosted one
("text-embedding-3-small"), Ollama's ("ollama/nomic-embed-text"), or any OpenAI-compatible
server ("openai/NAME" with `api_base`). A text is sent once: its unit vector is kept in
`.braniac/vectors.sqlite`, keyed by the model and the text's hash. That file is derived data
like the search index: deleting it loses nothing, a broken one is started afresh, and one that
another process holds busy is left alone (this process then keeps its vectors in memory).

A failed call raises ModelUnavailable; retrieval then ranks by words alone for that turn. A
call never holds a turn longer than `embedding.timeout`, whatever the provider's client retries
behind it; an answer that comes later is still kept for the next turns. For RETRY_AFTER_S after a failure only the vectors already kept are given, so a dead
server costs one timeout a minute rather than one a turn.
"""
from __future__ import annotations

import hashlib
import math
import sqlite3
import threading
import time
from array import array
from pathlib import Path
from typing import Any, Callable

from ..infra.config import ModelConfig
from ..infra.errors import ModelError
from ..vault.layout import STATE_DIR
from .llm import _litellm, provider_kwargs
from .provider_errors import explain
from .types import ModelUnavailable

VECTORS = "vectors.sqlite"   # under .braniac/
BATCH = 64                   # texts per request: few enough for a slow local model to answer in time
MAX_CHARS = 2000             # a text's first 2000 characters (~500 tokens): all a small model reads
MAX_DIMENSIONS = 16384       # the largest embedding models give 4096
RETRY_AFTER_S = 60.0
BUSY_S = 2.0                 # how long a read or write of the cache waits for another process
MEMORY_KEPT = 8192           # vectors also kept in this process's memory (12 MB at 384 numbers, 50 MB at 1,536)


class Embedder:
    """Unit vectors for texts, from the configured model, each asked for once."""

    def __init__(self, config: ModelConfig, vault_root: Path | None = None):
        if not config.name:
            raise ModelError("no embedding model configured")
        self.config = config
        self.name = config.name
        self._store = _VectorStore(Path(vault_root) / STATE_DIR / VECTORS if vault_root else None, config.name)
        self._failed_at: float | None = None
        self.requests = 0   # calls made to the provider (benchmarks and tests read it)
        self.last_new = 0   # texts the last vectors() call asked the model for
        self._length: int | None = None   # of the vectors the model last sent

    def vectors(self, texts: list[str], *, most_new: int | None = None) -> dict[str, array]:
        """text -> unit vector for the distinct texts, asking the model for at most `most_new`
        of those not kept yet (in the order given; the rest are left out). A kept vector of
        another length than the first text's (the model behind the name changed) is asked for
        again. Raises ModelUnavailable when the model cannot be reached."""
        wanted = list(dict.fromkeys(texts))
        found = self._store.get(wanted)
        self.last_new = 0
        room = len(wanted) if most_new is None else most_new
        resting = self._failed_at is not None and time.monotonic() - self._failed_at < RETRY_AFTER_S
        missing = [t for t in wanted if t not in found][:room]
        fresh = self._fetch(missing) if missing and not resting else {}
        found.update(fresh)
        # the model's length now: what it last sent this process, else the first text's kept vector
        length = self._length or (len(found[wanted[0]]) if wanted and wanted[0] in found else None)
        stale = [t for t, v in found.items() if length is not None and len(v) != length]
        for text in stale:
            del found[text]
        if stale and not resting:
            found.update(self._fetch(stale[:max(room - len(missing), 0)]))
            # (judged by a first text kept from the old model, the model has now said its length)
            length = self._length or length
            found = {t: v for t, v in found.items() if len(v) == length}
        return found

    @property
    def failing(self) -> bool:
        """Whether the last call to the model failed (none has answered since)."""
        return self._failed_at is not None

    def close(self) -> None:
        self._store.close()

    def _fetch(self, texts: list[str]) -> dict[str, array]:
        fresh: dict[str, array] = {}
        for start in range(0, len(texts), BATCH):
            batch = texts[start:start + BATCH]
            vectors = self._request(batch)
            fresh.update(zip(batch, vectors))
            self._length = len(vectors[-1]) if vectors else self._length
        self._failed_at = None
        self.last_new += len(fresh)
        return fresh

    def _request(self, texts: list[str]) -> list[array]:
        try:
            kwargs = provider_kwargs(self.config, "embedding", "embedding")
        except ModelUnavailable:   # no key: said once a minute, like any failure, not on every turn
            self._failed_at = time.monotonic()
            raise
        kwargs["input"] = [_sendable(t) for t in texts]
        self.requests += 1

        def ask() -> list[array]:
            vectors = _read_reply(_litellm().embedding(**kwargs), len(texts))
            self._store.put(dict(zip(texts, vectors)))   # kept even when the turn stopped waiting
            return vectors

        try:
            # the provider's client retries a failed call twice (LiteLLM reads max_retries=0 as
            # its default): the deadline, not the client, decides how long a turn waits, and a
            # slow model's late answer still fills the cache for the next turns
            return _within(self.config.timeout, ask)
        except Exception as exc:   # the provider's errors, a timeout, a reply of the wrong shape
            self._failed_at = time.monotonic()
            raise ModelUnavailable(f"[embedding] {explain(exc, self.config, 'embedding')}") from None


def cosine(a: array, b: array) -> float:
    """Of two unit vectors (0.0 for vectors of different lengths)."""
    if len(a) != len(b):
        return 0.0
    return math.fsum(x * y for x, y in zip(a, b))


def _within(seconds: float, call: Callable[[], Any]) -> Any:
    """call(), or TimeoutError after `seconds` (the call goes on in its thread and is dropped)."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:   # handed to the caller's thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="braniac-embedding", daemon=True).start()
    if not done.wait(seconds):
        raise TimeoutError(f"the embedding call timed out after {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _read_reply(response: Any, count: int) -> list[array]:
    """The reply's vectors in input order; ValueError for anything but `count` rows whose
    `index` fields are 0..count-1 and whose embeddings are equal-length lists of finite numbers."""
    rows = list(response.data)
    indexes = [_field(row, "index") for row in rows]
    if len(rows) != count or sorted(i for i in indexes if type(i) is int) != list(range(count)):
        raise ValueError(f"the reply holds {len(rows)} rows indexed {indexes[:5]}… for {count} texts: not a list of vectors")
    vectors = [_unit(_field(row, "embedding")) for row in sorted(rows, key=lambda row: _field(row, "index"))]
    if len({len(v) for v in vectors}) > 1:
        raise ValueError("the reply's vectors are of unequal lengths: not a list of vectors")
    return vectors


def _field(row: Any, name: str) -> Any:
    return row.get(name) if isinstance(row, dict) else getattr(row, name, None)


def _unit(values: Any) -> array:
    if not isinstance(values, list) or not 0 < len(values) <= MAX_DIMENSIONS or \
            not all(type(v) in (int, float) for v in values):
        raise ValueError("an embedding is not a list of numbers: not a list of vectors")
    try:
        norm = math.sqrt(math.fsum(float(v) * float(v) for v in values))
    except OverflowError:
        norm = math.inf
    if not math.isfinite(norm) or norm == 0.0:
        raise ValueError("an embedding has no finite length: not a list of vectors")
    return array("f", (float(v) / norm for v in values))


def _sendable(text: str) -> str:
    """What the provider gets: the first MAX_CHARS characters, as valid UTF-8, never empty."""
    return text[:MAX_CHARS].encode("utf-8", "replace").decode("utf-8") or " "


def _key(text: str) -> bytes:
    return hashlib.blake2b(_sendable(text).encode("utf-8"), digest_size=16).digest()


class _VectorStore:
    """The vectors already asked for, in SQLite, with the latest few also in memory (only in
    memory without a vault, or when the file cannot be used). Several braniac processes share
    the file; SQLite serializes their writes."""

    def __init__(self, path: Path | None, model: str):
        self.model = model
        self.path = path
        self.memory: dict[str, array] = {}
        self.lock = threading.Lock()
        self.db: sqlite3.Connection | None = self._open() if path is not None else None

    def _open(self, afresh: bool = False) -> sqlite3.Connection | None:
        path = self.path
        assert path is not None
        try:
            if afresh or path.is_symlink():   # derived state: a link (maybe out of the vault) or a broken file goes
                for stale in (path, path.with_name(path.name + "-journal")):
                    stale.unlink(missing_ok=True)
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, timeout=BUSY_S, check_same_thread=False)
            db.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, key BLOB, vector BLOB, PRIMARY KEY (model, key))")
            db.commit()
            return db
        except sqlite3.OperationalError:   # busy in another process, read-only, disk full: never delete it
            return None
        except sqlite3.DatabaseError:      # not a database, or a malformed one
            return None if afresh else self._open(afresh=True)
        except OSError:                    # a folder in its place, no room, no permission
            return None

    def get(self, texts: list[str]) -> dict[str, array]:
        with self.lock:
            found = {t: self.memory[t] for t in texts if t in self.memory}
            rest = {_key(t): t for t in texts if t not in found}
            if self.db is None or not rest:
                return found
            keys = list(rest)
            try:
                for start in range(0, len(keys), 500):
                    chunk = keys[start:start + 500]
                    rows = self.db.execute(
                        f"SELECT key, vector FROM vectors WHERE model = ? AND key IN ({','.join('?' * len(chunk))})",
                        [self.model, *chunk]).fetchall()
                    for key, blob in rows:
                        if key in rest and isinstance(blob, bytes) and blob and len(blob) % 4 == 0:
                            vector = array("f")
                            vector.frombytes(blob)
                            found[rest[key]] = vector   # a torn or foreign row stays missing: asked for again
            except sqlite3.OperationalError:
                pass                               # busy: these are asked for again
            except sqlite3.DatabaseError:
                self._reopen_afresh()
        self._remember(found)
        return found

    def put(self, vectors: dict[str, array]) -> None:
        self._remember(vectors)
        with self.lock:
            if self.db is None or not vectors:
                return
            try:
                self.db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                    [(self.model, _key(t), v.tobytes()) for t, v in vectors.items()])
                self.db.commit()
            except sqlite3.OperationalError:       # busy past BUSY_S, disk full: kept in memory this time
                self._rollback()
            except sqlite3.DatabaseError:
                self._reopen_afresh()

    def close(self) -> None:
        with self.lock:
            if self.db is not None:
                self.db.close()
                self.db = None

    def _remember(self, vectors: dict[str, array]) -> None:
        with self.lock:
            self.memory.update(vectors)
            while len(self.memory) > MEMORY_KEPT:
                del self.memory[next(iter(self.memory))]

    def _rollback(self) -> None:
        try:
            self.db.rollback()
        except sqlite3.Error:
            pass

    def _reopen_afresh(self) -> None:
        """The file is broken (it failed on a read or write, not only on open): start it afresh."""
        try:
            self.db.close()
        except sqlite3.Error:
            pass
        self.db = self._open(afresh=True)
