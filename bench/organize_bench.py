"""Organization (vault-format.md §10.5) at scale, and what it does to retrieval on LoCoMo.

    python bench/organize_bench.py [--notes 10000] [--log-lines 10000] [--dir DIR] [--seed N]
    python bench/organize_bench.py --locomo [--data ../shared/bench/locomo-dev.json]

Default mode: builds a vault of N notes (200-400 words each, written with Note.new, nested
four folders deep under memory/long_term/concrete/, 5 % created 400 days ago and never read,
one link a person wrote per note) and an access log of about `--log-lines` lines (QUERY + READ
turns: a few hot notes read often, each with its usual companions, and a long tail), then runs
the real `braniac organize --json` and prints how long it took, what it did and the retrieval
gate's figures (probes, recall@10 and MRR before and after). A second run (no new use) is timed
too. The last line is a JSON summary.

--locomo: replays the first LoCoMo conversation with bench/locomo.py's own replay, asks every
question through the core loop (which logs the QUERY and READ lines organization learns from),
runs organize, asks them all again, and prints the LoCoMo figures before and after the pass,
beside a control (the same vault asked again without organize: the reads of the first pass lift
ranking by themselves). Search's read counts follow organization's MOVE lines, so a moved
note keeps its reads.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from braniac import Vault
from braniac.infra import clock  # noqa: E402
from braniac.vault.folders import refresh_indexes  # noqa: E402
from braniac.vault.links import make_link  # noqa: E402
from braniac.vault.notes import Note  # noqa: E402

LTM = "memory/long_term"
AREAS = ["tech", "people", "places", "health", "finance", "hobbies", "work", "home", "travel", "food"]
FILLER = ("the of and to in is for on with as at by from that this it be are was were or an which but not "
          "have has had all any can more most other some such only own same so than too very just").split()


# ---------------------------------------------------------------------- the synthetic vault

def _words(rng: random.Random, n: int) -> list[str]:
    """A pronounceable vocabulary of n distinct made-up words."""
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qui", "dor", "fen", "gal", "hir"]
    found: set[str] = set()
    while len(found) < n:
        found.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(found)


def build_vault(root: Path, n_notes: int, log_lines: int, seed: int) -> dict:
    rng = random.Random(seed)
    vault, _ = Vault.init(root)
    vocabulary = _words(rng, 6000)
    now = clock.now()
    # folders: area/topic/sub/leaf, ~10 notes per leaf folder
    leaves = max(1, n_notes // 10)
    folders = []
    for i in range(leaves):
        area = AREAS[i % len(AREAS)]
        folders.append(f"{LTM}/concrete/{area}/topic-{i % 37:02d}/group-{i % 11:02d}/leaf-{i:04d}")
    notes: list[tuple[str, str, list[str]]] = []   # (rel, uuid, its own words)
    started = time.monotonic()
    old = set(rng.sample(range(n_notes), n_notes // 20))
    for n in range(n_notes):
        folder = folders[n % leaves]
        own = rng.sample(vocabulary, 3)
        length = rng.randint(200, 400)
        body_words = [rng.choice(FILLER) if rng.random() < 0.45 else rng.choice(vocabulary) for _ in range(length)]
        for w in own:   # its own words a few times: what the queries about it ask for
            for _ in range(3):
                body_words.insert(rng.randrange(len(body_words)), w)
        title = f"{own[0].title()} {own[1]}"
        at = now - timedelta(days=400 if n in old else rng.uniform(1, 100))
        with clock.frozen(at):
            note = Note.new(title=title, body=f"# {title}\n\n" + " ".join(body_words) + ".\n",
                            tags=[folder.split("/")[3], own[0]])
        path = vault.root / folder / f"{own[0]}-{n:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        notes.append((str(path.relative_to(vault.root)), note.uuid, own))
        path.write_text(note.render(), encoding="utf-8")
    # one link a person wrote per note, to a random other note
    for rel, _uuid, _own in notes:
        other_rel, other_uuid, other_own = notes[rng.randrange(n_notes)]
        if other_rel == rel:
            continue
        path = vault.root / rel
        link = make_link(f"{other_own[0].title()} {other_own[1]}", path, vault.root / other_rel, other_uuid)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"\nSee also {link}.\n")
    written: set[Path] = set()
    from braniac.vault.folders import ensure_folder
    for folder in folders:
        ensure_folder(vault, vault.root / folder, written)
    refresh_indexes(vault, {vault.root / f for f in folders}, written)
    build_seconds = time.monotonic() - started

    # the access log: hot notes with their companions, and a long tail
    live = [i for i in range(n_notes) if i not in old]
    hot = rng.sample(live, 25)
    companions = {h: rng.sample(live, 3) for h in hot}
    lines: list[str] = []
    at = now - timedelta(days=20)
    old_place = "/home/someone/previous-location/vault"
    while len(lines) < log_lines:
        at += timedelta(minutes=rng.uniform(2, 10))
        if rng.random() < 0.6:
            focus = hot[min(int(rng.expovariate(0.25)), len(hot) - 1)]
            reads = [focus] + [c for c in companions[focus] if rng.random() < 0.5]
        else:
            focus = rng.choice(live)
            reads = [focus] + ([rng.choice(live)] if rng.random() < 0.3 else [])
        own = notes[focus][2]
        query = " ".join(rng.sample(own, 2) + rng.sample(FILLER, 2))
        stamp = clock.iso(at)
        lines.append(f"{stamp} | QUERY | {query}")
        lines += [f"{stamp} | READ | {old_place}/{notes[r][0]}" for r in dict.fromkeys(reads)]
    vault.access_log_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"notes": n_notes, "folders": len(folders), "old_notes": len(old), "log_lines": len(lines),
            "build_seconds": round(build_seconds, 1)}


def run_organize(root: Path, *extra: str) -> tuple[dict, float]:
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "braniac", "--vault", str(root), "organize", "--json", *extra],
                            capture_output=True, text=True)
    seconds = time.monotonic() - started
    if result.returncode != 0:
        raise SystemExit(f"organize failed: {result.stderr}")
    return json.loads(result.stdout), seconds


def doctor(root: Path) -> dict:
    result = subprocess.run([sys.executable, "-m", "braniac", "--vault", str(root), "doctor", "--json"],
                            capture_output=True, text=True)
    return json.loads(result.stdout)


def scale_mode(args) -> dict:
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="braniac-organize-bench-"))
    root = base / "vault"
    shutil.rmtree(root, ignore_errors=True)
    print(f"building {args.notes} notes and {args.log_lines} log lines in {root} (seed {args.seed})", file=sys.stderr)
    built = build_vault(root, args.notes, args.log_lines, args.seed)
    print(f"built in {built['build_seconds']} s", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "braniac", "--vault", str(root), "reindex"], capture_output=True, check=True)
    report, seconds = run_organize(root)
    second, seconds2 = run_organize(root)
    health = doctor(root)
    ops = Counter(op["op"] for op in report["operations"])
    gate = report["gate"]
    print(f"organize: {seconds:.1f} s, status {report['status']}, {dict(ops)}, "
          f"{len(report['rejected'])} rejected, {report['log_lines']} log lines")
    if "before" in gate:
        print(f"gate: {gate['probes']} probes; before recall {gate['before']['recall']:.3f} MRR "
              f"{gate['before']['mrr']:.3f}; after recall {gate['after']['recall']:.3f} MRR {gate['after']['mrr']:.3f}"
              + (f"; kept plan recall {gate['after_without_used_notes']['recall']:.3f} MRR "
                 f"{gate['after_without_used_notes']['mrr']:.3f}" if "after_without_used_notes" in gate else ""))
    print(f"second run (no new use): {seconds2:.1f} s, {len(second['operations'])} operations")
    print(f"doctor: {'healthy' if health['healthy'] else str(len(health['problems'])) + ' problems'}")
    summary = {"mode": "scale", **built, "organize_seconds": round(seconds, 2), "status": report["status"],
               "operations": dict(ops), "gate": gate, "second_run_seconds": round(seconds2, 2),
               "second_run_operations": len(second["operations"]), "healthy": health["healthy"]}
    if not args.dir and not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return summary


# ---------------------------------------------------------------------- LoCoMo before and after

def locomo_mode(args) -> dict:
    import locomo
    from locomo_scoring import cap_words, covered, summarize

    from braniac.processes.organization import organize
    from braniac.session import Session

    sample = json.loads(Path(args.data).read_text(encoding="utf-8"))[0]
    turns = {t["dia_id"]: t["text"] + (f" [shares a photo: {t['blip_caption']}]" if t.get("blip_caption") else "")
             for _, ts in locomo.sessions(sample["conversation"]) for t in ts}
    stats: Counter = Counter()
    questions = []
    for qa in sample["qa"]:
        if qa.get("category") in (1, 2, 3, 4) and "answer" in qa:
            evidence = locomo.clean_evidence(qa.get("evidence", []), turns, stats)
            if evidence:
                questions.append((qa, evidence))

    def score(session, provenance) -> tuple[dict, float]:
        rows = {b: [] for b in locomo.BUDGETS}
        started = time.monotonic()
        for qa, evidence in questions:
            full = locomo.braniac_context(session, qa["question"])   # logs QUERY + READ lines
            for budget in locomo.BUDGETS:
                context = cap_words(full, budget)
                rows[budget].append({"category": qa["category"], "evidence": evidence,
                                     "covered": covered(context, evidence, turns, provenance),
                                     "words": len(context.split())})
        seconds = (time.monotonic() - started) / max(len(questions), 1)
        return {str(b): summarize(rows[b]) for b in locomo.BUDGETS}, seconds

    with tempfile.TemporaryDirectory(prefix="braniac-organize-locomo-") as tmp:
        root = Path(tmp) / sample["sample_id"]
        print(f"replaying {sample['sample_id']} ({len(turns)} turns, {len(questions)} questions)", file=sys.stderr)
        session, provenance, last = locomo.replay(sample, root, lambda: None)
        clock.set_clock(last + timedelta(days=1))
        first, q_first = score(session, provenance)   # logs the QUERY + READ lines
        session.close()
        vault = Vault(root)
        log_lines = len(vault.access_log_path.read_text(encoding="utf-8").splitlines())
        # the control: the same vault, same logs, no organize (asking again adds reads, which
        # lift ranking by themselves: the effect of organize is after vs this)
        control_root = Path(tmp) / "control"
        shutil.copytree(root, control_root, symlinks=True)
        clock.set_clock(last + timedelta(days=1, hours=3))   # that night
        organizer = Session(vault, model="offline")
        started = time.monotonic()
        report = organize(vault, organizer.config, model=organizer.model)
        seconds = time.monotonic() - started
        organizer.close()
        health = [f for f in vault.doctor() if f.severity == "problem"]
        results = {}
        for name, where in (("control", control_root), ("after", root)):
            clock.set_clock(last + timedelta(days=2))
            session = Session(Vault(where), model="offline")
            results[name] = score(session, provenance)
            session.close()
        clock.set_clock(None)
    (control, q_control), (after, q_after) = results["control"], results["after"]

    ops = Counter(op["op"] for op in report.operations)
    print(f"access log: {log_lines} lines from {len(questions)} questions; organize {seconds:.1f} s, "
          f"status {report.status}, {dict(ops)}; doctor {'healthy' if not health else health}")
    if "before" in report.gate:
        gate = report.gate
        print(f"gate: {gate['probes']} probes; recall {gate['before']['recall']:.3f} -> {gate['after']['recall']:.3f}, "
              f"MRR {gate['before']['mrr']:.3f} -> {gate['after']['mrr']:.3f}")
    print("frac/all/any: first pass (before organize) | asked again, no organize | asked again, after organize")
    print(f"{'budget':>6} {'cat':>8} {'first pass':>18} {'again, control':>18} {'again, organized':>18}")
    dropped, below_first = [], []
    for budget in first:
        for cat in ("overall", "1", "2", "3", "4"):
            f, c, a = first[budget][cat], control[budget][cat], after[budget][cat]
            print(f"{budget:>6} {cat:>8} " + " ".join(f"{x['frac']:>6.1f}/{x['all']:>5.1f}/{x['any']:>5.1f}" for x in (f, c, a)))
            if cat == "overall" and a["frac"] < c["frac"]:
                dropped.append(budget)
            if cat == "overall" and a["frac"] < f["frac"]:
                below_first.append(budget)
    print("organize's effect (after vs control, overall frac): "
          + (f"DROPPED at budgets {dropped}" if dropped else "no drop"))
    print("after organize vs the first pass: " + (f"lower at budgets {below_first}" + (
        " (as in the control: asking again moves ranking by itself)" if all(
            control[b]["overall"]["frac"] <= after[b]["overall"]["frac"] for b in below_first) else "")
        if below_first else "no drop"))
    return {"mode": "locomo", "sample": sample["sample_id"],
            "questions": len(questions), "access_log_lines": log_lines, "organize_seconds": round(seconds, 2),
            "status": report.status, "operations": dict(ops), "gate": report.gate,
            "first_pass": first, "control": control, "after": after,
            "seconds_per_question": {"first": round(q_first, 4), "control": round(q_control, 4),
                                     "after": round(q_after, 4)},
            "dropped": dropped, "below_first_pass": below_first, "healthy": not health}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--log-lines", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dir", help="build the vault here (kept) instead of a temp folder")
    parser.add_argument("--keep", action="store_true", help="keep the temp vault")
    parser.add_argument("--locomo", action="store_true", help="LoCoMo figures before and after an organize pass")
    parser.add_argument("--data", type=Path,
                        default=Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo-dev.json")
    args = parser.parse_args()
    summary = locomo_mode(args) if args.locomo else scale_mode(args)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
