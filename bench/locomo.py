"""LoCoMo memory-quality benchmark for braniac (protocol: ../shared/bench/README.md).

    python bench/locomo.py --data ../shared/bench/locomo-dev.json [--dump OUT.jsonl] [--vaults DIR]

Each conversation is replayed into a fresh vault through braniac's real paths: every turn is
reflected into short-term memory with the session's date as the clock, promotion runs between
sessions, and every question (categories 1-4) goes through the core loop's retrieval (query
generation, search, excerpts) with the offline engine. The long-term-memory text that enters
the working memory is capped at 300, 750 and 1500 words and scored by the counting rule in
locomo_scoring.py, beside a BM25 baseline over the raw turns computed in the same run. The
last line printed is the JSON summary; --dump writes one line per question and budget with
everything needed to re-score it (`--rescore OUT.jsonl` does that).
"""
from __future__ import annotations

import argparse
from functools import partial
import json
import math
import re
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from kept_vaults import in_utc, replayed  # noqa: E402
from locomo_scoring import cap_words, covered, summarize  # noqa: E402

from braniac import Vault
from braniac.infra import clock  # noqa: E402
from braniac.processes.promotion import promote  # noqa: E402
from braniac.model.prompts import excerpt_text  # noqa: E402
from braniac.session import Session  # noqa: E402

BUDGETS = (300, 750, 1500)
BENCH_CONFIG = """[memory]
search_limit = 60
context_tokens = 200000
"""


# ---------------------------------------------------------------------- reading the data

def parse_when(text: str) -> datetime:
    return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def sessions(conversation: dict) -> list[tuple[datetime, list[dict]]]:
    found = []
    for key, turns in conversation.items():
        match = re.fullmatch(r"session_(\d+)", key)
        if match and isinstance(turns, list) and turns:
            when = conversation.get(f"{key}_date_time")
            found.append((int(match.group(1)), parse_when(when) if when else None, turns))
    found.sort()
    out, last = [], None
    for _, when, turns in found:
        when = when or (last + timedelta(days=1) if last else datetime(2023, 1, 1, tzinfo=timezone.utc))
        out.append((when, turns))
        last = when
    return out


def clean_evidence(raw: list, turns: dict[str, str], stats: Counter) -> list[str]:
    """Split 'D8:6; D9:17', repair 'D:11:26' and 'D30:05', drop ids of turns that do not exist."""
    out = []
    for item in raw:
        pieces = [p for p in re.split(r"[;,\s]+", str(item)) if p]
        if len(pieces) > 1:
            stats["split"] += 1  # one string holding several ids
        for piece in pieces:
            fixed = re.sub(r"^D:?(\d+):0*(\d+)$", r"D\1:\2", piece)
            if fixed != piece:
                stats["repaired"] += 1
            if fixed in turns:
                out.append(fixed)
            else:
                stats["dropped"] += 1
    return list(dict.fromkeys(out))


def turn_text(turn: dict) -> str:
    text = turn.get("text", "")
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    return f"{turn['speaker']}: {text}"


# ---------------------------------------------------------------------- the baseline

class BM25:
    def __init__(self, docs: list[str], k1: float = 1.2, b: float = 0.75):
        self.tokens = [_tokens(d) for d in docs]
        self.k1, self.b = k1, b
        self.avg = sum(len(t) for t in self.tokens) / max(len(self.tokens), 1)
        df = Counter(w for t in self.tokens for w in set(t))
        n = len(docs)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
        self.tf = [Counter(t) for t in self.tokens]

    def rank(self, query: str) -> list[int]:
        q = _tokens(query)
        scores = []
        for i, tf in enumerate(self.tf):
            length = len(self.tokens[i])
            s = sum(self.idf.get(w, 0) * tf[w] * (self.k1 + 1) /
                    (tf[w] + self.k1 * (1 - self.b + self.b * length / self.avg)) for w in q if w in tf)
            scores.append(s)
        return sorted(range(len(scores)), key=lambda i: -scores[i])


def _tokens(text: str) -> list[str]:
    from locomo_scoring import STOP_WORDS
    return [w for w in re.findall(r"\w+", text.lower()) if w not in STOP_WORDS]


def baseline_context(bm25: BM25, ids: list[str], docs: list[str], question: str, budget: int) -> str:
    lines, used = [], 0
    for i in bm25.rank(question):
        line = f"[{ids[i]}] {docs[i]}"
        words = len(line.split())
        if used + words > budget:
            break
        lines.append(line)
        used += words
    return "\n\n".join(lines)


# ---------------------------------------------------------------------- braniac

def replay(sample: dict, root: Path, progress) -> tuple[Session, dict[str, str], datetime]:
    """Live the conversation through braniac: reflection per turn, promotion between sessions."""
    vault, _ = Vault.init(root)
    (vault.root / "braniac.toml").write_text(BENCH_CONFIG, encoding="utf-8")
    session = Session(vault, model="offline")
    provenance: dict[str, str] = {}
    last = None
    for when, turns in sessions(sample["conversation"]):
        for n, turn in enumerate(turns):
            at = when + timedelta(seconds=30 * n)
            clock.set_clock(at)
            event = session.reflector.reflect_now(turn_text(turn), "", at=at)
            provenance[event.id] = turn["dia_id"]
            progress()
        last = when + timedelta(seconds=30 * len(turns))
        clock.set_clock(last + timedelta(hours=1))  # the idle time between sessions
        promote(vault, session.model, session.config, force=True)
    return session, provenance, last


def braniac_context(session: Session, question: str) -> str:
    turn, _wm = session.loop.prepare(question, sync=False)
    return "\n\n".join(excerpt_text(e) for e in turn.excerpts)


# ---------------------------------------------------------------------- the run

def run(data_path: Path, dump_path: Path | None, limit: int | None = None, kept: Path | None = None) -> dict:
    samples = json.loads(Path(data_path).read_text(encoding="utf-8"))
    if limit:
        samples = samples[:limit]
    stats: Counter = Counter()
    total_turns = sum(len(t) for s in samples for _, t in sessions(s["conversation"]))
    total_q = sum(1 for s in samples for q in s["qa"] if q.get("category") in (1, 2, 3, 4) and "answer" in q)
    done = {"turns": 0, "questions": 0}
    started = time.monotonic()

    def progress() -> None:
        done["turns"] += 1
        _bar(done, total_turns, total_q, started)

    rows: dict[str, dict[int, list[dict]]] = {"braniac": {b: [] for b in BUDGETS}, "baseline": {b: [] for b in BUDGETS}}
    dump = open(dump_path, "w", encoding="utf-8") if dump_path else None
    question_seconds = 0.0
    with tempfile.TemporaryDirectory(prefix="braniac-locomo-") as tmp:
        for sample in samples:
            turns = {t["dia_id"]: t["text"] + (f" [shares a photo: {t['blip_caption']}]" if t.get("blip_caption") else "")
                     for _, ts in sessions(sample["conversation"]) for t in ts}
            ids = list(turns)
            docs = [turn_text(t) for _, ts in sessions(sample["conversation"]) for t in ts]
            bm25 = BM25(docs)
            session, provenance, last = replayed(sample["sample_id"], Path(tmp), kept,
                                                 partial(replay, sample, progress=progress),
                                                 source=f"{Path(data_path).resolve()} {Path(data_path).stat().st_size}")
            clock.set_clock(last + timedelta(days=1))
            for qa in sample["qa"]:
                if qa.get("category") not in (1, 2, 3, 4) or "answer" not in qa:
                    continue
                evidence = clean_evidence(qa.get("evidence", []), turns, stats)
                if not evidence:
                    stats["questions without usable evidence"] += 1
                    continue
                t0 = time.monotonic()
                full = braniac_context(session, qa["question"])
                question_seconds += time.monotonic() - t0
                for budget in BUDGETS:
                    for system, context in (("braniac", cap_words(full, budget)),
                                            ("baseline", baseline_context(bm25, ids, docs, qa["question"], budget))):
                        hit = covered(context, evidence, turns, provenance)
                        row = {"category": qa["category"], "evidence": evidence, "covered": hit,
                               "words": len(context.split())}
                        rows[system][budget].append(row)
                        if dump and system == "braniac":
                            cited = {e: provenance[e] for e in re.findall(r"\d{4}-\d{2}-\d{2}T[\d:.]+Z", context) if e in provenance}
                            dump.write(json.dumps({"sample_id": sample["sample_id"], "question": qa["question"],
                                                   "category": qa["category"], "budget": budget, "evidence": evidence,
                                                   "context": context, "covered": hit, "provenance": cited,
                                                   "turns": {d: turns[d] for d in evidence}}) + "\n")
                done["questions"] += 1
                _bar(done, total_turns, total_q, started)
            session.close()
            clock.set_clock(None)
    if dump:
        dump.close()
    print(file=sys.stderr)
    n = len(rows["braniac"][BUDGETS[0]])
    result = {"questions": n, "seconds_per_question": round(question_seconds / max(n, 1), 4),
              "budgets": {str(b): {"braniac": summarize(rows["braniac"][b]), "baseline": summarize(rows["baseline"][b])}
                          for b in BUDGETS},
              "evidence_fixes": dict(stats)}
    return result


def rescore(dump_path: Path) -> dict:
    """Re-score a dump from its own lines (context, evidence, provenance, turn texts)."""
    rows: dict[int, list[dict]] = {b: [] for b in BUDGETS}
    for line in Path(dump_path).read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        hit = covered(item["context"], item["evidence"], item["turns"], item.get("provenance", {}))
        rows[item["budget"]].append({"category": item["category"], "evidence": item["evidence"], "covered": hit,
                                     "words": len(item["context"].split())})
    return {str(b): summarize(rows[b]) for b in BUDGETS}


_last_draw = [0.0]


def _bar(done: dict, turns: int, questions: int, started: float) -> None:
    total = turns + questions
    if time.monotonic() - _last_draw[0] < 0.5 and done["turns"] + done["questions"] < total:
        return  # a few redraws a second are plenty
    _last_draw[0] = time.monotonic()
    now = done["turns"] + done["questions"]
    width = 30
    filled = int(width * now / max(total, 1))
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done['turns']}/{turns} turns, "
                     f"{done['questions']}/{questions} questions, {time.monotonic() - started:.0f} s")
    sys.stderr.flush()


def print_table(result: dict) -> None:
    print(f"{'budget':>6} {'cat':>8} {'braniac frac/all/any':>24} {'baseline frac/all/any':>24}")
    for budget, systems in result["budgets"].items():
        for cat in ("overall", "1", "2", "3", "4"):
            b, r = systems["braniac"][cat], systems["baseline"][cat]
            print(f"{budget:>6} {cat:>8} {b['frac']:>8.1f}/{b['all']:>5.1f}/{b['any']:>5.1f} "
                  f"{r['frac']:>12.1f}/{r['all']:>5.1f}/{r['any']:>5.1f}")


def main() -> None:
    in_utc()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path)
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--rescore", type=Path, help="re-score a dump written by --dump and print its figures")
    parser.add_argument("--limit", type=int, help="only the first N conversations (quick looks)")
    parser.add_argument("--vaults", type=Path, help="keep the replayed vaults here and reuse them (see kept_vaults.py)")
    args = parser.parse_args()
    if args.rescore:
        print(json.dumps(rescore(args.rescore)))
        return
    if not args.data:
        parser.error("--data is required")
    result = run(args.data, args.dump, args.limit, args.vaults)
    print_table(result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
