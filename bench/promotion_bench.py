"""Promotion benchmark: the offline engine consolidating 50 events over ~6 topics.

    python bench/promotion_bench.py               # 5 fresh vaults, median (target ≤ 2 s)
    python bench/promotion_bench.py --runs 9 --events 50 --keep --workdir /tmp/pb

For each run a fresh vault gets the same 50 events (people, places, a tool, baking, running, a
how-to with numbered steps; tasks, one finished; spread over 10 days) through the real
reflection path, then `promote(vault, OfflineModel(), config, force=True)` is timed in-process.
That includes everything a promotion does on a vault that has never been searched: building
the search index (first use), analysis, synthesis, archiving each event, notes, digests, every
`_index.md` up to the root, the STM reset and the index update.

Reference, measured in the same run: the I/O floor, i.e. writing the same files (same bytes)
with braniac's atomic write (temp file, fsync, rename, fsync of the folder) into an empty
folder. The ratio promotion / floor says how much time is thinking rather than disk.

Then one promotion in a git vault (`init --git`, autocommit on) prints the commits it made and
the `git diff --stat` of the promotion commit. Ends with one JSON line of the figures.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from braniac import Vault  # noqa: E402
from braniac.infra.config import load as load_config  # noqa: E402
from braniac.infra.fsio import atomic_write  # noqa: E402
from braniac.model.offline import OfflineModel  # noqa: E402
from braniac.processes.promotion import promote  # noqa: E402
from braniac.processes.reflection import Reflector  # noqa: E402

TARGET_SECONDS = 2.0
T0 = datetime(2025, 3, 2, 8, 0, tzinfo=timezone.utc)

TOPICS = {
    "people": [
        "Ana: I moved to Lisbon last month and I love the tram rides there.",
        "My sister Maria works at the hospital in Porto as a nurse.",
        "Ana: I adopted a grey cat called Pixel and she sleeps all day.",
        "Maria told me the night shifts at the hospital in Porto are exhausting lately.",
        "Maria is planning a holiday in Madeira with her husband Rui in June.",
        "Ana: I am learning to surf at the beach every Sunday morning.",
        "My friend Tomas lives in Lisbon with his two cats.",
        "My friend Tomas lives in Porto now, near the river.",
        "Ana: I found a flat in Alfama with a view of the river.",
    ],
    "places": [
        "We visited Sintra on Saturday and the palace gardens were beautiful.",
        "The Sintra trip cost around forty euros including the train tickets.",
        "We booked a table at a seafood restaurant in Cascais for Saturday.",
        "The Lisbon conference is about distributed systems and starts in May.",
        "The old town of Porto has steep streets and tiled churches everywhere.",
        "Cascais has a long seaside promenade that is perfect for evening walks.",
        "Remind me to renew my passport before the Lisbon conference.",
        "I finished renewing my passport before the Lisbon conference.",
    ],
    "tool": [
        "I started using Obsidian for my notes and the graph view is really useful.",
        "I wrote my first Obsidian plugin in TypeScript this weekend.",
        "Obsidian sync keeps my vault updated across the laptop and the phone.",
        "The Obsidian graph view shows which notes link to each other.",
        "I moved my recipe collection into Obsidian with one note per recipe.",
        "Obsidian templates save me time when I start a daily journal note.",
        "Remind me to back up the Obsidian vault to the external drive.",
        "The Obsidian canvas is handy for planning the conference talk.",
    ],
    "baking": [
        "I baked sourdough bread with rye flour and the crust came out perfect.",
        "The sourdough starter needs feeding twice a day with rye flour and water.",
        "I baked another sourdough loaf with spelt flour and it was dense.",
        "A longer cold proof in the fridge gave the sourdough a more open crumb.",
        "The bakery near the station sells sourdough with olives on Fridays.",
        "My sourdough starter smelled of acetone after I forgot to feed it.",
        "How do I make a sourdough starter?",
        "I gave a jar of sourdough starter to Maria so she can bake at home.",
    ],
    "running": [
        "I ran ten kilometres along the river in fifty two minutes this morning.",
        "My marathon training plan has four runs a week and a long run on Sunday.",
        "I ran the half marathon in Porto in one hour fifty minutes.",
        "My running shoes are worn out after eight hundred kilometres.",
        "Remind me to buy new running shoes next week.",
        "Interval training on the track is hard but my pace is improving.",
        "The marathon in Lisbon is in October and registration opens in April.",
        "A physiotherapist told me to stretch my calves after every long run.",
    ],
    "programming": [
        "How do I profile a slow Python function?",
        "The Python service leaks memory when the cache grows without a limit.",
        "I rewrote the parser in Python with a generator and it is twice as fast.",
        "Code review at work takes too long because the pull requests are huge.",
        "Remind me to call the dentist on Friday.",
        "Python type hints caught three bugs in the billing module this week.",
        "The team decided to move the billing service to Python three twelve.",
        "I paired with Tomas on the billing module and we fixed the rounding bug.",
        "Pytest fixtures made the billing tests much shorter and clearer.",
    ],
}
ANSWERS = {
    "How do I make a sourdough starter?":
        "Here are the steps:\n1. Mix equal weights of flour and water in a jar.\n2. Leave it covered at room "
        "temperature.\n3. Discard half and feed it every day for a week.\n4. Use it when it doubles within six hours.",
    "How do I profile a slow Python function?":
        "Like this:\n1. Run it under cProfile with python -m cProfile -o out.prof.\n2. Open the profile with pstats "
        "and sort by cumulative time.\n3. Look at the top functions and time them again with timeit.",
}


def conversation(count: int) -> list[str]:
    """`count` lines, topics interleaved as a real week of talk would be."""
    lines, pools = [], [list(v) for v in TOPICS.values()]
    while len(lines) < count and any(pools):
        for pool in pools:
            if pool and len(lines) < count:
                lines.append(pool.pop(0))
    return lines


def fill(vault: Vault, lines: list[str]) -> None:
    reflector = Reflector(vault, OfflineModel())
    step = timedelta(days=10) / max(1, len(lines))
    for n, line in enumerate(lines):
        reflector.reflect_now(line, ANSWERS.get(line, "Noted."), at=T0 + step * n)


def io_floor(vault: Vault, files: list[str], scratch: Path) -> float:
    """Seconds to write the same files (same bytes) with atomic_write into an empty folder."""
    payload = [(scratch / rel, (vault.root / rel).read_bytes()) for rel in files]
    started = time.perf_counter()
    for path, data in payload:
        atomic_write(path, data)
    return time.perf_counter() - started


def run_once(workdir: Path, n: int, lines: list[str]) -> dict:
    vault, _ = Vault.init(workdir / f"vault-{n}")
    fill(vault, lines)
    config = load_config(vault.root)
    started = time.perf_counter()
    report = promote(vault, OfflineModel(), config, force=True)
    seconds = time.perf_counter() - started
    assert report.status == "done" and len(report.events) == len(lines), report.describe()
    floor = io_floor(vault, report.files, workdir / f"floor-{n}")
    return {"seconds": seconds, "floor": floor, "files": len(report.files), "notes_created": len(report.notes_created),
            "claims": report.claims, "rejected": len(report.rejected)}


_OPENER = r"(?:the|a|an|my|our|your|his|her|their|its|this|that|about|of|in|on|at|for|with|from|to|by|into)"
_TIME_WORDS = frozenset("""monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays
thursdays fridays saturdays sundays weekend weekends morning evening night today tomorrow yesterday week month
year""".split())


def note_names(vault: Vault) -> tuple[list[str], float]:
    """The concrete notes' file tree, and the share of notes whose title is a noun phrase the
    events they cite name: the title occurs in those events' words as a name (capitalised inside
    a sentence, or as the speaker) or right after a determiner or a preposition (one adjective allowed between), and
    is not a time ("on Saturday" says when, not what)."""
    root = vault.ltm_root / "concrete"
    tree, named = [], 0
    notes = sorted(p for p in root.rglob("*.md") if p.name != "_index.md")
    for path in notes:
        tree.append(path.relative_to(root).as_posix())
        text = path.read_text(encoding="utf-8")
        title = re.search(r"^title: '?(.*?)'?$", text, re.M).group(1)
        events = set(re.findall(r"\[(\d{4}-\d{2}-\d{2}T[\d:]+Z)\]", text))
        said = " ".join(re.search(r'\*\*User:\*\* "?(.*?)"?$', (vault.ltm_root / "events" / e[:4] / e[5:7] / e[8:10] /
                                 f"{e.replace(':', '-')}.md").read_text(encoding="utf-8"), re.M).group(1) for e in events)
        phrase = re.escape(title)
        as_name = re.search(rf"(?<![.!?]\s)(?<!^)\b{phrase}\b", said) if title[:1].isupper() else None
        as_noun = re.search(rf"\b{_OPENER}\s+(?:\w+\s+)?{phrase}\b", said, re.I)
        as_speaker = re.search(rf"(?:^|\s){phrase}:", said)
        if (as_name or as_noun or as_speaker) and title.lower() not in _TIME_WORDS:
            named += 1
        else:
            tree[-1] += "   <- not a noun phrase its events name"
    return tree, named / max(len(notes), 1)


def git_promotion(workdir: Path, lines: list[str]) -> dict:
    vault, _ = Vault.init(workdir / "git-vault", use_git=True)
    fill(vault, lines)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=vault.root, capture_output=True, text=True).stdout.strip()
    report = promote(vault, OfflineModel(), load_config(vault.root), force=True)
    log = subprocess.run(["git", "log", "--format=%h %s", f"{head}..HEAD"], cwd=vault.root, capture_output=True,
                         text=True).stdout
    stat = subprocess.run(["git", "diff", "--stat=100", "HEAD~1", "HEAD"], cwd=vault.root, capture_output=True,
                          text=True).stdout
    message = subprocess.run(["git", "log", "-1", "--format=%B"], cwd=vault.root, capture_output=True, text=True).stdout
    status = subprocess.run(["git", "status", "--porcelain"], cwd=vault.root, capture_output=True, text=True).stdout
    return {"commits": log.strip().splitlines(), "stat": stat, "message": message.strip(), "status": status,
            "report_files": len(report.files)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="braniac-promotion-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    lines = conversation(args.events)
    print(f"promotion of {len(lines)} events over {len(TOPICS)} topics, offline engine, {args.runs} fresh vaults")
    try:
        runs = [run_once(workdir, n, lines) for n in range(args.runs)]
        times = [r["seconds"] for r in runs]
        floors = [r["floor"] for r in runs]
        median, floor = statistics.median(times), statistics.median(floors)
        print(f"  runs (s):        {', '.join(f'{t:.3f}' for t in times)}")
        print(f"  median:          {median:.3f} s   (target ≤ {TARGET_SECONDS:g} s: "
              f"{'met' if median <= TARGET_SECONDS else 'MISSED'})")
        print(f"  per event:       {1000 * median / len(lines):.1f} ms")
        print(f"  I/O floor:       {floor:.3f} s to atomically write the same {runs[0]['files']} files "
              f"-> promotion is {median / floor:.1f}x the floor")
        print(f"  output:          {runs[0]['notes_created']} new notes, claims {runs[0]['claims']}, "
              f"{runs[0]['files']} files written, {runs[0]['rejected']} rejected")
        tree, share = note_names(Vault.find(workdir / "vault-0"))
        print(f"\nconcrete notes of the first vault ({len(tree)}): {share:.0%} titled by a noun phrase their events name")
        for rel in tree:
            print(f"  {rel}")
        git = git_promotion(workdir, lines)
        print(f"\none promotion in a git vault (autocommit): {len(git['commits'])} commit(s)")
        for line in git["commits"]:
            print(f"  {line}")
        print(f"\n$ git diff --stat HEAD~1 HEAD   # the promotion commit\n{git['stat']}")
        print("commit message:\n" + "\n".join(f"  {l}" for l in git["message"].splitlines()))
        print(f"\ngit status after the promotion: {'clean' if not git['status'] else git['status']}")
        print(json.dumps({"events": len(lines), "runs": times, "median_s": round(median, 4),
                          "target_s": TARGET_SECONDS, "io_floor_s": round(floor, 4),
                          "ratio_to_floor": round(median / floor, 2), "files": runs[0]["files"],
                          "notes_created": runs[0]["notes_created"], "noun_phrase_titles": round(share, 3),
                          "git_commits": len(git["commits"]),
                          "git_files_in_commit": git["stat"].strip().splitlines()[-1].strip() if git["stat"] else ""}))
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
