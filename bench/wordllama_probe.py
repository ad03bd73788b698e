"""A static embedding model as a semantic term in braniac's passage ranking, measured on LoCoMo
(and BEAM) through the real harnesses (protocol: ../shared/bench/README.md).

    pip install --no-deps wordllama safetensors toml    # the weights and tokenizer are in the wheel
    python bench/wordllama_probe.py [--weight 10] [--least 0.1] -- \
        bench/locomo.py --data ../shared/bench/locomo-dev.json --vaults /tmp/kept/locomo

WordLlama (PyPI `wordllama` 0.4.0.post1, model l2_supercat, 256 dimensions) embeds a text as the
mean of its tokens' vectors: no transformer runs, so ten thousand passages take about a second
on one core and there is nothing to index ahead. Every passage braniac's ranking scores for a
question (the passages of the notes its search found, and their neighbours in the
conversation) gets `weight * max(0, cosine - least)` added to its word match, the cosine taken
between the question and the passage's words (event ids, links and Markdown marks left out).
A passage that shares no word with the question can then enter; one that does rises when it
means the same thing. The harness after `--` runs unchanged otherwise, so its figures compare
with a plain run of the same harness on the same kept vaults. Printed last, to stderr: the
time the semantic term added per question.

The wheel's loader looks for its tokenizer in `wordllama/tokenizer/` while the wheel ships it
in `wordllama/tokenizers/`, and then tries Hugging Face; the probe points the loader's cache at
the package itself, with downloads off, so nothing leaves the machine.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import atexit  # noqa: E402
import runpy  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from braniac.search import retrieval  # noqa: E402
from braniac.search.meaning import plain_words as words_of  # noqa: E402  (a passage as its words)


def load_model():
    import wordllama

    return wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)


def install(weight: float, least: float) -> dict:
    """Wrap retrieval's scoring with the semantic term; returns the time and question counters."""
    model = load_model()
    vectors: dict[str, np.ndarray] = {}
    spent = {"seconds": 0.0, "questions": 0}
    asked = {"prompt": ""}

    def embed(texts: list[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in vectors]
        if new:
            for text, vector in zip(new, model.embed(new, norm=True)):
                vectors[text] = vector
        return np.stack([vectors[t] for t in texts])

    plain_weights, plain_score = retrieval._weights, retrieval._score

    def weights(queries: list[str], prompt: str) -> dict[str, float]:
        asked["prompt"] = prompt or " ".join(queries)
        spent["questions"] += 1
        return plain_weights(queries, prompt)

    def score(passages, terms, notes_found: int, meaning=None) -> None:
        plain_score(passages, terms, notes_found, meaning)
        if not passages or not asked["prompt"]:
            return
        started = time.perf_counter()
        question = embed([asked["prompt"]])[0]
        similarity = embed([words_of(p.text) for p in passages]) @ question
        for p, cosine in zip(passages, similarity):
            extra = weight * max(0.0, float(cosine) - least)
            if extra <= 0:
                continue
            if p.match <= 0:   # no word in common: it enters with its note's prior, as a match would
                prior = retrieval.NOTE_PRIOR / (retrieval.RRF_K + p.note_rank + 1) * retrieval.RRF_K / max(notes_found, 1)
                p.match, p.score = extra, extra + prior
            else:
                p.match += extra
                p.score += extra
        spent["seconds"] += time.perf_counter() - started

    retrieval._weights, retrieval._score = weights, score
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weight", type=float, default=10.0, help="the semantic term's weight (a word of the "
                        "question matched once in a passage adds about 1-3)")
    parser.add_argument("--least", type=float, default=0.1, help="cosine below which the term adds nothing")
    parser.add_argument("harness", nargs=argparse.REMAINDER, help="-- bench/locomo.py (or beam.py) and its arguments")
    args = parser.parse_args()
    harness = [a for a in args.harness if a != "--"]
    if not harness:
        parser.error("name the harness to run after --")
    spent = install(args.weight, args.least)
    atexit.register(lambda: print(f"semantic term: {1000 * spent['seconds'] / max(spent['questions'], 1):.1f} ms "
                                  f"per question over {spent['questions']} questions", file=sys.stderr))
    sys.argv = harness
    runpy.run_path(harness[0], run_name="__main__")


if __name__ == "__main__":
    main()
