"""BEAM long-message benchmark for braniac: project conversations with a coding assistant.

    python bench/beam.py --beam /work/.mirror/mohammadtavakoli78+BEAM/repo [--chats 1-10] [--dump OUT.jsonl] [--vaults DIR]

BEAM (Tavakoli et al.) is not part of this repository and nothing of it is committed (no licence
is given): the harness reads `chats/100K/<n>/chat.json` and its
`probing_questions/probing_questions.json` at run time, from a checkout or from a bare git
snapshot (read with `git show`). Only chats 1-10 are dev data; 11-20 are kept for measurement
outside and the harness refuses them.

Protocol (as LoCoMo's, ../shared/bench/README.md): each chat replayed into a fresh vault, every
user message and the assistant's answer one exchange through the real reflection path with the
batch's date as the clock, promotion between batches; every probing question with evidence
(`source_chat_ids`, flattened) goes through the core loop's retrieval, the long-term-memory text
capped at 300 / 750 / 1500 words, and a message counts as retrieved when one span cites it (its
exchange's event id) and holds half of its distinct content words (locomo_scoring.covered).
Two baselines in the same run, BM25 over the raw messages (one document per message): `bm25`
stops at the first message that does not fit the budget, `bm25-fill` skips it and keeps filling.
Knowledge-update items: where both the original and the updated message are in the context, the
share where the updated one comes first.
"""
from __future__ import annotations

import argparse
from functools import partial
import json
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import BM25, braniac_context  # noqa: E402
from kept_vaults import in_utc, replayed  # noqa: E402
from locomo_scoring import cap_words, content_words, spans  # noqa: E402

from braniac import Vault  # noqa: E402
from braniac.infra import clock  # noqa: E402
from braniac.processes.promotion import promote  # noqa: E402
from braniac.session import Session  # noqa: E402

BUDGETS = (300, 750, 1500)
DEV_CHATS = range(1, 11)
BENCH_CONFIG = "[memory]\nsearch_limit = 60\ncontext_tokens = 200000\n"
_MARKER = re.compile(r"\s*->->\s*[\d,\s]+$")


def read(beam: Path, rel: str) -> str:
    if (beam / rel).exists():
        return (beam / rel).read_text(encoding="utf-8")
    return subprocess.run(["git", "--git-dir", str(beam if (beam / "HEAD").exists() else beam / ".git"), "show",
                           f"HEAD:{rel}"], capture_output=True, text=True, check=True).stdout


def anchor(text: str | None) -> datetime | None:
    try:
        return datetime.strptime(text, "%B-%d-%Y").replace(tzinfo=timezone.utc) if text else None
    except ValueError:
        return None


def load_chat(beam: Path, n: int) -> tuple[list[list[dict]], list[dict]]:
    """(batches of messages, questions with their evidence ids)."""
    chat = json.loads(read(beam, f"chats/100K/{n}/chat.json"))
    batches = [[{**m, "content": _MARKER.sub("", m["content"])} for turn in b["turns"] for m in turn] for b in chat]
    probing = json.loads(read(beam, f"chats/100K/{n}/probing_questions/probing_questions.json"))
    questions = []
    for category, items in probing.items():
        for q in items:
            ids = q.get("source_chat_ids")
            parts = {k: _ints(v) for k, v in ids.items()} if isinstance(ids, dict) else {}
            evidence = [i for v in parts.values() for i in v] if parts else _ints(ids)
            if evidence:
                questions.append({"category": category, "question": q["question"], "evidence": list(dict.fromkeys(evidence)),
                                  "parts": parts})
    return batches, questions


def _ints(value) -> list[int]:
    """Message ids, however the item nests them (a list, a list of lists, a string)."""
    if isinstance(value, (list, tuple)):
        return [i for v in value for i in _ints(v)]
    try:
        return [int(value)]
    except (TypeError, ValueError):
        return []


def replay(batches: list[list[dict]], root: Path) -> tuple[Session, dict[str, list[int]], datetime]:
    vault, _ = Vault.init(root)
    (vault.root / "braniac.toml").write_text(BENCH_CONFIG, encoding="utf-8")
    session = Session(vault, model="offline")
    provenance: dict[str, list[int]] = {}
    when = datetime(2024, 1, 1, tzinfo=timezone.utc)
    for batch in batches:
        first = next((anchor(m.get("time_anchor")) for m in batch if m.get("time_anchor")), None)
        when = first if first and first > when else when + timedelta(days=1)
        user = None
        for n, message in enumerate(batch):
            if message["role"] == "user":
                user = message
                continue
            at = when + timedelta(seconds=30 * n)
            clock.set_clock(at)
            event = session.reflector.reflect_now(user["content"] if user else "", message["content"], at=at)
            provenance[event.id] = [m["id"] for m in (user, message) if m is not None]
            user = None
        when += timedelta(seconds=30 * len(batch))
        clock.set_clock(when + timedelta(hours=1))
        promote(session.vault, session.model, session.config, force=True)
    return session, provenance, when


def baseline(bm25: BM25, ids: list[int], docs: list[str], question: str, budget: int, fill: bool) -> str:
    lines, used = [], 0
    for i in bm25.rank(question):
        line = f"[M{ids[i]}] {docs[i]}"
        words = len(line.split())
        if used + words > budget:
            if fill:
                continue
            break
        lines.append(line)
        used += words
    return "\n\n".join(lines)


_MESSAGE = re.compile(r"\bM\d+\b")


def covered(context: str, evidence: list[str], texts: dict[str, str]) -> list[str]:
    """LoCoMo's counting rule (locomo_scoring.covered) with message ids for citations."""
    pieces = [(set(_MESSAGE.findall(span)), content_words(span)) for span in spans(context)]
    hits = []
    for message in evidence:
        need = content_words(texts.get(message, ""))
        if any(message in ids and (not need or 2 * len(need & words) >= len(need)) for ids, words in pieces):
            hits.append(message)
    return hits


def first_span(context: str, message: str) -> int | None:
    for n, span in enumerate(spans(context)):
        if message in _MESSAGE.findall(span):
            return n
    return None


def run(beam: Path, chats: list[int], dump_path: Path | None, kept: Path | None = None) -> dict:
    rows = {s: {b: [] for b in BUDGETS} for s in ("braniac", "bm25", "bm25-fill")}
    updates = {s: {b: [0, 0] for b in BUDGETS} for s in rows}          # [updated first, both present]
    dump = open(dump_path, "w", encoding="utf-8") if dump_path else None
    seconds, started = 0.0, time.monotonic()
    with tempfile.TemporaryDirectory(prefix="braniac-beam-") as tmp:
        for n in chats:
            batches, questions = load_chat(beam, n)
            messages = {m["id"]: m for b in batches for m in b}
            ids = list(messages)
            docs = [f"{messages[i]['role']}: {messages[i]['content']}" for i in ids]
            bm25 = BM25(docs)
            session, provenance, last = replayed(f"chat-{n}", Path(tmp), kept, partial(replay, batches),
                                                 source=f"{Path(beam).resolve()} chat {n} {len(messages)} messages")
            # the scorer resolves an event id to one message: a span citing an exchange cites both of its messages
            texts = {f"M{i}": messages[i]["content"] for i in ids}
            clock.set_clock(last + timedelta(days=1))
            for q in questions:
                evidence = [f"M{i}" for i in q["evidence"] if i in messages]
                t0 = time.monotonic()
                full = braniac_context(session, q["question"])
                seconds += time.monotonic() - t0
                for budget in BUDGETS:
                    contexts = {"braniac": _cite_messages(cap_words(full, budget), provenance),
                                "bm25": baseline(bm25, ids, docs, q["question"], budget, fill=False),
                                "bm25-fill": baseline(bm25, ids, docs, q["question"], budget, fill=True)}
                    for system, context in contexts.items():
                        hit = covered(context, evidence, texts)
                        rows[system][budget].append({"category": q["category"], "evidence": evidence, "covered": hit,
                                                     "words": len(cap_words(full, budget).split()) if system == "braniac"
                                                     else len(context.split())})
                        if q["category"] == "knowledge_update" and {"original_info", "updated_info"} <= set(q["parts"]):
                            old = [f"M{i}" for i in q["parts"]["original_info"]]
                            new = [f"M{i}" for i in q["parts"]["updated_info"]]
                            if any(m in hit for m in old) and any(m in hit for m in new):
                                first_old = min(p for m in old if (p := first_span(context, m)) is not None)
                                first_new = min(p for m in new if (p := first_span(context, m)) is not None)
                                updates[system][budget][1] += 1
                                updates[system][budget][0] += first_new < first_old
                        if dump and system == "braniac":
                            dump.write(json.dumps({"chat": n, "question": q["question"], "category": q["category"],
                                                   "budget": budget, "evidence": evidence, "covered": hit,
                                                   "parts": {k: [f"M{i}" for i in v] for k, v in q.get("parts", {}).items()
                                                             if isinstance(v, list)},
                                                   "context": context}) + "\n")
            session.close()
            clock.set_clock(None)
            print(f"chat {n}: {len(ids)} messages, {len(questions)} questions, {time.monotonic() - started:.0f} s; "
                  "so far: " + ", ".join(f"{b}: " + " / ".join(f"{s} {_frac(rows[s][b])}" for s in rows) for b in BUDGETS),
                  file=sys.stderr, flush=True)
    if dump:
        dump.close()
    result = {"questions": len(rows["braniac"][BUDGETS[0]]), "seconds_per_question":
              round(seconds / max(len(rows["braniac"][BUDGETS[0]]), 1), 4), "budgets": {}}
    for budget in BUDGETS:
        result["budgets"][str(budget)] = {
            s: {"frac": _frac(rows[s][budget]), "words": round(sum(r["words"] for r in rows[s][budget]) /
                                                             max(len(rows[s][budget]), 1), 1),
                "updated_first": f"{updates[s][budget][0]}/{updates[s][budget][1]}",
                "by_category": {c: _frac([r for r in rows[s][budget] if r["category"] == c])
                                for c in sorted({r["category"] for r in rows[s][budget]})}}
            for s in rows}
    return result


def _cite_messages(context: str, provenance: dict[str, list[int]]) -> str:
    """An event id in braniac's context stands for its exchange: both of its messages."""
    return re.sub(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b",
                  lambda m: " ".join(f"[M{i}]" for i in provenance.get(m.group(0), [])) or m.group(0), context)


def _frac(rows: list[dict]) -> float:
    return round(100 * sum(len(r["covered"]) / len(r["evidence"]) for r in rows) / max(len(rows), 1), 1)


def main() -> None:
    in_utc()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--beam", type=Path, required=True, help="a checkout or git snapshot of the BEAM repository")
    parser.add_argument("--chats", default="1-10", help="dev chats, e.g. 1-10 or 1,3 (11-20 are not for tuning)")
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--vaults", type=Path, help="keep the replayed vaults here and reuse them (see kept_vaults.py)")
    args = parser.parse_args()
    chats = sorted({i for part in args.chats.split(",") for i in
                    (range(int(part.split("-")[0]), int(part.split("-")[1]) + 1) if "-" in part else [int(part)])})
    if any(c not in DEV_CHATS for c in chats):
        parser.error("only chats 1-10 are dev data; 11-20 are kept for measurement outside")
    result = run(args.beam, chats, args.dump, args.vaults)
    for budget, systems in result["budgets"].items():
        print(f"{budget:>5} words: " + "   ".join(f"{s} {v['frac']:.1f} (updated first {v['updated_first']})"
                                                 for s, v in systems.items()))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
