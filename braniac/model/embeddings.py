"""Embeddings: the vectors that let retrieval weigh meaning beside words, through LiteLLM.

Off unless `[embedding] name` in braniac.toml names a LiteLLM embedding model: a hosted one
("text-embedding-3-small"), Ollama's ("ollama/nomic-embed-text"), or any OpenAI-compatible
server ("openai/NAME" with `api_base`). A text is sent once: its unit vector is kept in
`.braniac/vectors.sqlite`, keyed by the model and the text's hash. That file is derived data
like the search index: deleting it loses nothing, and a broken one is started afresh.

A failed call raises ModelUnavailable; retrieval then ranks by words alone for that turn. For
RETRY_AFTER_S after a failure only the vectors already kept are given, so a dead server costs
one timeout a minute rather than one a turn.
"""
from __future__ import annotations

import hashlib
import math
import os
import sqlite3
import threading
import time
from array import array
from pathlib import Path
from typing import Any

from ..infra.config import ModelConfig
from ..infra.errors import ModelError
from ..vault.layout import STATE_DIR
from .llm import TASK_HEADER, _litellm
from .provider_errors import explain
from .types import ModelUnavailable

VECTORS = "vectors.sqlite"   # under .braniac/
BATCH = 128                  # texts per request: every provider braniac knows takes this many
MAX_CHARS = 2000             # a text's first 2000 characters (~500 tokens): all a small model reads
RETRY_AFTER_S = 60.0


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

    def vectors(self, texts: list[str], *, most_new: int | None = None) -> dict[str, array]:
        """text -> unit vector for the distinct texts, asking the model for at most `most_new`
        of those not kept yet (in the order given; the rest are left out). Raises
        ModelUnavailable when the model cannot be reached."""
        wanted = list(dict.fromkeys(texts))
        found = self._store.get(wanted)
        missing = [t for t in wanted if t not in found][:most_new]
        self.last_new = 0
        if not missing or self._failed_at is not None and time.monotonic() - self._failed_at < RETRY_AFTER_S:
            return found
        fresh: dict[str, array] = {}
        for start in range(0, len(missing), BATCH):
            batch = missing[start:start + BATCH]
            for text, vector in zip(batch, self._request(batch)):
                fresh[text] = vector
        self._failed_at = None
        self.last_new = len(fresh)
        self._store.put(fresh)
        found.update(fresh)
        return found

    def _request(self, texts: list[str]) -> list[array]:
        # (the provider's client retries a failed call twice: LiteLLM reads max_retries=0 as its default)
        kwargs: dict[str, Any] = {"model": self.name, "input": [t[:MAX_CHARS] or " " for t in texts],
                                  "timeout": self.config.timeout, "extra_headers": {TASK_HEADER: "embedding"}}
        if self.config.api_base:
            kwargs["api_base"] = self.config.api_base
        if self.config.api_key_env:
            key = os.environ.get(self.config.api_key_env)
            if not key:
                raise ModelUnavailable(f"the API key variable {self.config.api_key_env} (embedding.api_key_env) is not set")
            kwargs["api_key"] = key
        elif self.config.api_base and self.name.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            kwargs["api_key"] = "none"   # a local OpenAI-compatible server often needs no key, the client wants one
        self.requests += 1
        try:
            response = _litellm().embedding(**kwargs)
            rows = sorted(response.data, key=lambda row: _field(row, "index"))
            vectors = [_unit(_field(row, "embedding")) for row in rows]
        except ModelUnavailable:
            raise
        except Exception as exc:   # the provider's errors, and a reply of the wrong shape
            self._failed_at = time.monotonic()
            raise explain(exc, self.config) from None
        if len(vectors) != len(texts) or len({len(v) for v in vectors}) > 1:
            self._failed_at = time.monotonic()
            raise ModelUnavailable(f"the embedding model {self.name} sent {len(vectors)} vectors "
                                   f"of unequal or wrong count for {len(texts)} texts")
        return vectors


def cosine(a: array, b: array) -> float:
    """Of two unit vectors (0.0 for vectors of different models' lengths)."""
    if len(a) != len(b):
        return 0.0
    return math.fsum(x * y for x, y in zip(a, b))


def _field(row: Any, name: str) -> Any:
    return row[name] if isinstance(row, dict) else getattr(row, name)


def _unit(values: Any) -> array:
    if not isinstance(values, list) or not values or not all(isinstance(v, (int, float)) for v in values):
        raise ValueError("an embedding is not a list of numbers")
    norm = math.sqrt(math.fsum(float(v) * float(v) for v in values))
    if not math.isfinite(norm) or norm == 0.0:
        raise ValueError("an embedding has no length")
    return array("f", (float(v) / norm for v in values))


class _VectorStore:
    """The vectors already asked for, in SQLite (or only in memory, without a vault or when the
    file cannot be used). Several braniac processes share it; SQLite serializes their writes."""

    def __init__(self, path: Path | None, model: str):
        self.model = model
        self.path = path
        self.memory: dict[str, array] = {}
        self.lock = threading.Lock()
        self.db: sqlite3.Connection | None = None
        if path is not None:
            self.db = self._open(path)

    def _open(self, path: Path) -> sqlite3.Connection | None:
        for attempt in range(2):
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(path, timeout=5.0, check_same_thread=False)
                db.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, key BLOB, vector BLOB, PRIMARY KEY (model, key))")
                db.commit()
                return db
            except sqlite3.DatabaseError:
                if attempt == 0 and path.is_file():   # a broken cache: it is derived, start afresh
                    path.unlink(missing_ok=True)
            except OSError:
                return None
        return None

    def get(self, texts: list[str]) -> dict[str, array]:
        found = {t: self.memory[t] for t in texts if t in self.memory}
        rest = [t for t in texts if t not in found]
        if rest and self.db is not None:
            keys = {_key(t): t for t in rest}
            with self.lock:
                try:
                    for start in range(0, len(rest), 500):
                        chunk = list(keys)[start:start + 500]
                        rows = self.db.execute(
                            f"SELECT key, vector FROM vectors WHERE model = ? AND key IN ({','.join('?' * len(chunk))})",
                            [self.model, *chunk]).fetchall()
                        for key, blob in rows:
                            vector = array("f")
                            vector.frombytes(blob)
                            found[keys[key]] = self.memory[keys[key]] = vector
                except sqlite3.Error:
                    self.db = None
        return found

    def put(self, vectors: dict[str, array]) -> None:
        self.memory.update(vectors)
        if self.db is None or not vectors:
            return
        with self.lock:
            try:
                self.db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                    [(self.model, _key(t), v.tobytes()) for t, v in vectors.items()])
                self.db.commit()
            except sqlite3.Error:   # busy past the timeout, disk full, read-only: keep them in memory
                self.db = None


def _key(text: str) -> bytes:
    return hashlib.blake2b(text[:MAX_CHARS].encode("utf-8", "surrogatepass"), digest_size=16).digest()
