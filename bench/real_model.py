"""A real language model, end to end: a scripted session and what it left in long-term memory.

    python bench/real_model.py --model openai/qwen2.5-coder-1.5b --api-base http://127.0.0.1:8080/v1
    python bench/real_model.py --model ollama_chat/qwen2.5:1.5b            # any LiteLLM model string
    python bench/real_model.py ... --reflect some     # the model reflects on 4 exchanges, not all 15

Not part of the tests (it needs a model; see bench/README.md for one that runs here). In a temp
vault configured for the model (model.context_tokens = --context, retries 0):

1. a session of 15 exchanges: twelve facts about a person (Ana) and a project (braniac), one
   of them restated, one contradicted later (the staging port), and a how-to; each reflected
   on by the model (`--reflect some`: four of them, the rest by the offline engine, for a slow
   machine);
2. three questions, each a real turn (search queries, the answer streamed);
3. promote (analyze, synthesize per note, summarize), then organize;
4. the same three questions again, now answered from long-term memory.

It prints, per task: calls, accepted (first reply as it came), repaired (first reply after a
tolerant reading), retried (the second reply served), fell back (the offline engine did it),
and the seconds per HTTP call (median, max); then what long-term memory holds: each expected
fact found in a cited claim or not, the contradiction superseded or not, every event archived,
and `doctor`'s problems. Reference, in the same run: the offline engine on the same session
(its long-term checks), so the model's figures read against braniac without a model.
"""
from __future__ import annotations

import argparse
import json
import logging
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from braniac import Vault  # noqa: E402
from braniac.infra.config import load as load_config  # noqa: E402
from braniac.infra.notices import logger as notice_logger  # noqa: E402
from braniac.model import get_model  # noqa: E402
from braniac.model.offline import OfflineModel  # noqa: E402
from braniac.processes.core_loop import CoreLoop  # noqa: E402
from braniac.processes.organization import organize  # noqa: E402
from braniac.processes.promotion import promote  # noqa: E402
from braniac.processes.reflection import Reflector  # noqa: E402
from braniac.vault.claims import FACTS, HISTORY, FactNote, event_path  # noqa: E402
from braniac.vault.layout import FOLDER_INDEX  # noqa: E402

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)

# (what the person says, what the assistant said, words a cited claim must hold for the fact)
SESSION = [
    ("My name is Ana Duarte and I live in Lisbon.", "Nice to meet you, Ana.", ("Lisbon",)),
    ("I work as a backend engineer at a company called Tidewater.", "Noted.", ("Tidewater",)),
    ("My sister Maria is a nurse at the hospital in Porto.", "Noted.", ("Maria", "nurse")),
    ("I have a grey cat called Pixel.", "A grey cat, noted.", ("Pixel",)),
    ("I run ten kilometres every Sunday morning along the river.", "Good habit.", ("Sunday",)),
    ("The braniac project stores memory as plain Markdown files kept in git.", "Understood.", ("Markdown",)),
    ("The braniac project is written in Python 3.11.", "Noted.", ("3.11",)),
    ("The staging database for braniac runs PostgreSQL on port 5432.", "Noted.", ("PostgreSQL",)),
    ("The braniac release is planned for June 14.", "Noted.", ("June 14",)),
    ("Tomas reviews every braniac pull request.", "Noted.", ("Tomas",)),
    ("I live in Lisbon, in the Alfama neighbourhood, as I said.", "Yes, Lisbon.", ()),          # restated
    ("The staging database moved: it now runs on port 5433.", "Updated: port 5433.", ("5433",)),  # contradiction
    ("How do I restart the staging database? Run `make restart-db` and then `make migrate`.",
     "Two steps: make restart-db, then make migrate.", ("restart-db",)),
    ("My favourite food is grilled sardines.", "Noted.", ("sardines",)),
    ("The braniac CI runs on every push and takes about six minutes.", "Noted.", ("six minutes",)),
]
SOME = {0, 7, 11, 12}   # --reflect some: the model reflects on these (a fact, the port twice, the how-to)
OLD_VALUE, NEW_VALUE = "5432", "5433"

QUESTIONS = [("Where does Ana live?", ("Lisbon",)),
             ("What port does the braniac staging database use?", (NEW_VALUE,)),
             ("How do I restart the staging database?", ("restart-db",))]

TASKS = ["search_queries", "answer", "reflect", "promote_analyze", "promote_synthesize", "promote_summary",
         "organize"]


def configure(root: Path, args: argparse.Namespace) -> None:
    lines = ["[model]", f'name = "{args.model}"', f"context_tokens = {args.context}",
             f"timeout = {args.timeout}", "retries = 0", "temperature = 0.1"]
    if args.api_base:
        lines.append(f'api_base = "{args.api_base}"')
    (root / "braniac.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_session(root: Path, args: argparse.Namespace | None) -> dict:
    """The scripted session in a new vault at `root`; args None: the offline engine throughout."""
    vault, _ = Vault.init(root)
    if args is not None:
        configure(root, args)
    config = load_config(root)
    model = get_model(config, root) if args is not None else OfflineModel()
    offline = OfflineModel()
    answers: list[dict] = []
    said: list[str] = []

    class Collect(logging.Handler):   # the notices a person would see on stderr
        def emit(self, record: logging.LogRecord) -> None:
            said.append(record.getMessage())

    notice_logger.addHandler(Collect())
    reflector = Reflector(vault, model)
    ids = []
    for n, (user, ai, _words) in enumerate(SESSION):
        use = model if (args is None or args.reflect == "all" or n in SOME) else offline
        started = time.monotonic()
        ids.append(reflector.reflect_now(user, ai, at=T0 + timedelta(minutes=5 * n), model=use).id)
        if args is not None:
            print(f"  reflected {n + 1}/{len(SESSION)} in {time.monotonic() - started:.1f} s", flush=True)
    loop = CoreLoop(vault, model, config)

    def ask(stage: str) -> None:
        for question, words in QUESTIONS:
            started = time.monotonic()
            calls_before = len(getattr(model, "calls", []))
            try:
                turn = loop.run(question)
                answer = turn.answer
            except Exception as exc:  # noqa: BLE001 - a bench reports a failed turn, it does not stop
                answer = f"(failed: {exc})"
            total = time.monotonic() - started
            queries = sum(sum(c.seconds) for c in getattr(model, "calls", [])[calls_before:])
            answers.append({"stage": stage, "question": question, "answer": " ".join(answer.split())[:300],
                            "correct": all(w.lower() in answer.lower() for w in words),
                            "answer_seconds": total - queries})
            if args is not None:
                print(f"  {stage}: {question} -> {answers[-1]['answer'][:120]!r} ({total:.1f} s)", flush=True)

    if args is None or args.ask_before:
        ask("before promotion")
    started = time.monotonic()
    report = promote(vault, model, config, force=True)
    promote_seconds = time.monotonic() - started
    started = time.monotonic()
    organized = organize(vault, config, model=model)
    organize_seconds = time.monotonic() - started
    ask("after promotion")
    return {"vault": vault, "model": model, "ids": ids, "answers": answers, "notices": said,
            "promotion": report, "promote_seconds": promote_seconds, "organize": organized,
            "organize_seconds": organize_seconds, "memory": long_term(vault, ids)}


def long_term(vault: Vault, ids: list[str]) -> dict:
    """What long-term memory holds: expected facts in cited claims, the contradiction, the archive."""
    claims: list[tuple[str, str, list[str], str]] = []   # (section, text, sources, note)
    for path in sorted(vault.ltm_root.rglob("*.md")):
        rel = path.relative_to(vault.ltm_root).as_posix()
        if path.name == FOLDER_INDEX or rel.startswith(("events/", "archive/")):
            continue
        note = FactNote.load(path)
        for section in (FACTS, HISTORY):
            claims += [(section, f.text, list(f.sources), rel) for f in note.facts(section)]
    found = []
    for user, _ai, words in SESSION:
        if words:
            hit = next((c for c in claims if c[0] == FACTS and c[2] and all(w.lower() in c[1].lower() for w in words)),
                       None)
            found.append({"fact": user, "claim": hit[1] if hit else None, "note": hit[3] if hit else None})
    current = [c for c in claims if c[0] == FACTS and OLD_VALUE in c[1]]
    history = [c for c in claims if c[0] == HISTORY and OLD_VALUE in c[1]]
    stm_left = [e.id for e in vault.read_stm().events]
    return {"claims": claims, "found": found, "superseded": bool(history) and not current,
            "old_value_current": bool(current),
            "archived": sum(1 for i in ids if event_path(vault, i).is_file()),
            "stm_left": stm_left,
            "doctor": [f"{f.severity}: {f.message}" for f in vault.doctor() if f.severity == "problem"]}


def task_table(model, answers: list[dict]) -> list[str]:
    rows = [f"{'task':<20} {'calls':>5} {'accepted':>8} {'repaired':>8} {'retried':>7} {'fell back':>9} "
            f"{'s/call median':>13} {'max':>6}"]
    calls = getattr(model, "calls", [])
    for task in TASKS:
        if task == "answer":
            seconds = [a["answer_seconds"] for a in answers]
            outcomes = {"accepted": sum(not a["answer"].startswith("(failed") for a in answers)}
            count = len(answers)
        else:
            mine = [c for c in calls if c.task == task]
            seconds = [s for c in mine for s in c.seconds]
            outcomes = {o: sum(c.outcome == o for c in mine) for o in ("accepted", "repaired", "retried", "fell back")}
            count = len(mine)
        if not count:
            continue
        rows.append(f"{task:<20} {count:>5} {outcomes.get('accepted', 0):>8} {outcomes.get('repaired', 0):>8} "
                    f"{outcomes.get('retried', 0):>7} {outcomes.get('fell back', 0):>9} "
                    f"{statistics.median(seconds):>13.1f} {max(seconds):>6.1f}")
    return rows


def memory_lines(result: dict) -> list[str]:
    memory = result["memory"]
    found = memory["found"]
    lines = [f"facts found in a cited claim: {sum(1 for f in found if f['claim'])}/{len(found)}"]
    lines += [f"  {'yes' if f['claim'] else 'NO '} {f['fact'][:60]:<60} -> {(f['claim'] or '')[:70]}" for f in found]
    lines.append(f"contradiction ({OLD_VALUE} -> {NEW_VALUE}) superseded: {'yes' if memory['superseded'] else 'no'}"
                 + (" (the old value is still a current claim)" if memory["old_value_current"] else ""))
    lines.append(f"events archived: {memory['archived']}/{len(result['ids'])}; left in short-term memory: "
                 f"{len(memory['stm_left'])}")
    correct = [a for a in result["answers"] if a["correct"]]
    lines.append(f"questions answered with the expected words: {len(correct)}/{len(result['answers'])} "
                 f"(before promotion {sum(a['correct'] for a in result['answers'] if a['stage'].startswith('before'))}"
                 f"/{sum(a['stage'].startswith('before') for a in result['answers'])}, after "
                 f"{sum(a['correct'] for a in result['answers'] if a['stage'].startswith('after'))}"
                 f"/{sum(a['stage'].startswith('after') for a in result['answers'])})")
    lines.append(f"doctor problems: {len(memory['doctor'])}" + "".join(f"\n  {p}" for p in memory["doctor"]))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="a LiteLLM model string, e.g. openai/qwen or ollama_chat/qwen2.5:1.5b")
    parser.add_argument("--api-base", default=None, help="the server's base URL, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--context", type=int, default=4096, help="model.context_tokens (default 4096)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per call (default 600: slow CPUs)")
    parser.add_argument("--reflect", choices=("all", "some"), default="all",
                        help="reflect on every exchange with the model, or on 4 (default all)")
    parser.add_argument("--no-ask-before", dest="ask_before", action="store_false",
                        help="ask the questions only after promotion (3 turns fewer, for a slow machine)")
    parser.add_argument("--keep", type=Path, default=None, help="copy the model's vault here afterwards")
    parser.add_argument("--json", type=Path, default=None, help="write the figures as JSON here")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="braniac-real-") as tmp:
        print(f"model {args.model}" + (f" at {args.api_base}" if args.api_base else "")
              + f", model.context_tokens {args.context}", flush=True)
        started = time.monotonic()
        result = run_session(Path(tmp) / "model", args)
        wall = time.monotonic() - started
        reference = run_session(Path(tmp) / "offline", None)
        model = result["model"]
        print(f"\n== per task ({args.model}; wall time {wall / 60:.1f} min; promote {result['promote_seconds']:.0f} s, "
              f"organize {result['organize_seconds']:.0f} s)")
        print("\n".join(task_table(model, result["answers"])))
        print("\n== long-term memory after the session (model)")
        print("\n".join(memory_lines(result)))
        print(f"promotion: {result['promotion'].describe()}; rejected {len(result['promotion'].rejected)}")
        print("\n== reference: the offline engine on the same session")
        print("\n".join(memory_lines(reference)))
        print("\n== the notes' claims (model)")
        for section, text, sources, note in result["memory"]["claims"]:
            print(f"  {note} [{section}] {text[:110]} ({len(sources)} source{'s' if len(sources) != 1 else ''})")
        print("\n== what the person was told (notices)")
        for line in dict.fromkeys(result["notices"]):
            print(f"  braniac: {line[:220]}")
        log = result["vault"].root / "logs" / "model.log"
        print(f"\n== logs/model.log ({len(log.read_text().splitlines()) if log.exists() else 0} lines)")
        if log.exists():
            for line in log.read_text(encoding="utf-8").splitlines()[:30]:
                print(f"  {line[:240]}")
        if args.keep:
            shutil.copytree(result["vault"].root, args.keep, dirs_exist_ok=True)
        if args.json:
            figures = {"model": args.model, "wall_seconds": wall, "table": task_table(model, result["answers"]),
                       "memory": memory_lines(result), "answers": result["answers"]}
            args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
