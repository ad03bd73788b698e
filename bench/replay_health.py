"""The vault's health after living LoCoMo conversations the way a person would (issue 16's
"must show"): every turn reflected into short-term memory on the conversation's clock, questions
asked between sessions through the whole core loop (so answers quoting notes and their
citations go into short-term memory, and get promoted), promotion after every session, an
organization at the end, then `doctor`.

    python bench/replay_health.py --data ../shared/bench/locomo-dev.json [--limit N] [--questions K]

Prints, per conversation and in total: doctor's problems and warnings, the number of
`_index.md` files and how many have Related Memories, and the counts of notes and events.
The last line is one JSON object.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import BENCH_CONFIG, sessions, turn_text  # noqa: E402

from braniac import Vault  # noqa: E402
from braniac.infra import clock  # noqa: E402
from braniac.processes.organization import organize  # noqa: E402
from braniac.processes.promotion import promote  # noqa: E402
from braniac.session import Session  # noqa: E402
from braniac.vault import folder_index  # noqa: E402
from braniac.vault.folder_related import written_by_braniac  # noqa: E402


def replay(sample: dict, root: Path, *, questions_per_session: int = 1, max_sessions: int | None = None,
           after_session: Callable[[int, Vault], None] | None = None, settings: str = "") -> Vault:
    """A LoCoMo conversation lived by braniac in a new vault at `root`: each session's turns
    reflected on the conversation's clock, questions asked through the core loop, a promotion
    after each session (then `after_session(n, vault)`), an organization at the end. The clock
    is left at the end of it. `settings`: more braniac.toml lines."""
    vault, _ = Vault.init(root)
    (vault.root / "braniac.toml").write_text(BENCH_CONFIG + settings, encoding="utf-8")
    session = Session(vault, model="offline")
    questions = [q["question"] for q in sample["qa"] if q.get("category") in (1, 2, 3, 4)]
    asked, at = 0, None
    for n_session, (when, turns) in enumerate(sessions(sample["conversation"])[:max_sessions]):
        for n, turn in enumerate(turns):
            at = when + timedelta(seconds=30 * n)
            clock.set_clock(at)
            session.reflector.reflect_now(turn_text(turn), "", at=at)
        at = when + timedelta(seconds=30 * len(turns) + 60)
        for question in questions[asked:asked + questions_per_session]:
            clock.set_clock(at)
            session.turn(question, background=False)   # the answer, quotes and all, is reflected
            at += timedelta(seconds=30)
        asked += questions_per_session
        clock.set_clock(at + timedelta(hours=1))
        promote(vault, session.model, session.config, force=True)
        if after_session is not None:
            after_session(n_session, vault)
    clock.set_clock(at + timedelta(days=2))
    organize(vault, session.config)
    session.close()
    return vault


def live(sample: dict, root: Path, questions_per_session: int) -> dict:
    vault = replay(sample, root, questions_per_session=questions_per_session)
    questions = [q for q in sample["qa"] if q.get("category") in (1, 2, 3, 4)]
    asked = questions_per_session * len(sessions(sample["conversation"]))
    found = vault.doctor()
    findings = Counter(f.severity for f in found)
    problems = [f"{f.path}: {f.reason}" for f in found if f.severity == "problem"]
    indexes = list(vault.ltm_root.rglob("_index.md"))
    related = sum(1 for p in indexes if any(written_by_braniac(e) for e in folder_index.read(p).related))
    notes = [p for p in vault.iter_ltm_files() if p.name != "_index.md"]
    return {"sample_id": sample["sample_id"], "questions_asked": min(asked, len(questions)),
            "problems": findings.get("problem", 0), "warnings": findings.get("warning", 0),
            "first_problems": problems[:5], "index_files": len(indexes), "with_related": related,
            "notes": sum(1 for p in notes if "/events/" not in p.as_posix()),
            "events": sum(1 for p in notes if "/events/" in p.as_posix())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared/bench/locomo-dev.json"))
    parser.add_argument("--limit", type=int)
    parser.add_argument("--questions", type=int, default=2, help="questions asked after each session")
    args = parser.parse_args()
    samples = json.loads(Path(args.data).read_text(encoding="utf-8"))[: args.limit]
    started, results = time.time(), []
    for sample in samples:
        with tempfile.TemporaryDirectory(prefix="braniac-replay-") as scratch:
            result = live(sample, Path(scratch) / "vault", args.questions)
        results.append(result)
        print(f"{result['sample_id']}: {result['problems']} problems, {result['warnings']} warnings; "
              f"{result['with_related']}/{result['index_files']} _index.md with Related Memories; "
              f"{result['notes']} notes, {result['events']} events; {result['questions_asked']} questions asked",
              flush=True)
        for line in result["first_problems"]:
            print(f"  {line}")
    total = {key: sum(r[key] for r in results) for key in
             ("problems", "warnings", "index_files", "with_related", "notes", "events", "questions_asked")}
    total["seconds"] = round(time.time() - started, 1)
    print(json.dumps({"conversations": len(results), **total}))


if __name__ == "__main__":
    main()
