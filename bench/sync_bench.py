"""`braniac sync` benchmark: a 10k-note vault shared by two clones of one bare remote.

    python bench/sync_bench.py                        # 10,000 notes, 50 events a side, 100 rounds
    python bench/sync_bench.py --notes 1000 --rounds 20 --workdir /tmp/sb --keep

Setup (not timed): a vault of N concrete notes (frontmatter, a Facts list, 20 folders of N/20
notes, each folder's `_index.md` written by braniac's own refresh), committed, pushed to a bare
remote on disk, cloned as machine B; B's search index built.

Figures:
- sync with 50 new events on each side: A remembers 50 events and syncs (a push); B remembers
  50 and syncs: commit, fetch, merge (short-term memory changed on both sides: merged by
  events), repairs, search-index sync, push. Seconds, median of --repeat runs.
- reference, in the same run: the same change merged by plain git in a copy of B (`git add -A;
  git commit; git fetch; git merge`), which leaves short_term.md in conflict (what a person
  would then resolve by hand), so git's own work is the floor braniac's merge adds to.
- growth: `git count-objects -vH` of A before and after --rounds rounds of (A: remember, sync;
  B: remember, sync), and seconds per sync over those rounds; then again after `git gc`
  (git packs loose objects itself once there are 6,700 of them: `gc --auto`).
The load average is printed beside each figure: the machine may be shared.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from braniac import Vault  # noqa: E402
from braniac.vault.folders import refresh_indexes  # noqa: E402
from braniac.vault.notes import Note  # noqa: E402

WORDS = ("river stone lamp orchard violin harbor cedar meadow lantern copper falcon willow ember "
         "glacier saffron thistle quarry marble canyon velvet").split()


def git(root: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=check).stdout


def load() -> str:
    return "load %.2f %.2f %.2f" % os.getloadavg()


def make_vault(root: Path, notes: int, remote: Path) -> Vault:
    vault, _ = Vault.init(root, use_git=True, remote=str(remote))
    vault = Vault(vault.root)
    rng = random.Random(42)
    folders = 20
    written: set[Path] = set()
    for f in range(folders):
        folder = vault.ltm_root / "concrete" / f"topic-{f:02d}"
        folder.mkdir(parents=True)
        for n in range(notes // folders):
            title = " ".join(rng.choice(WORDS) for _ in range(3)) + f" {f}-{n}"
            facts = "\n".join(f"- 2025-01-0{1 + i % 9} — {' '.join(rng.choices(WORDS, k=12))}." for i in range(5))
            note = Note.new(title=title, body=f"# {title}\n\n## Facts\n{facts}\n", tags=[rng.choice(WORDS)])
            (folder / f"note-{n:05d}.md").write_text(note.render())
    refresh_indexes(vault, [vault.ltm_root / "concrete" / f"topic-{f:02d}" for f in range(folders)], written)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "bench vault")
    return vault


def timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def size_kib(root: Path) -> float:
    stats = dict(line.split(": ") for line in git(root, "count-objects", "-v").splitlines())
    return int(stats["size"]) + int(stats["size-pack"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="braniac-sync-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    remote = work / "remote.git"
    try:
        subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
        started = time.perf_counter()
        a = make_vault(work / "a", args.notes, remote)
        a.sync()
        b = Vault.clone(str(remote), work / "b")
        b.reindex()
        print(f"setup: {args.notes} notes, cloned and indexed in {time.perf_counter() - started:.0f} s")

        braniac_s, git_s = [], []
        for rep in range(args.repeat):
            for i in range(args.events):
                a.remember(f"laptop event {rep}-{i}: {' '.join(random.choices(WORDS, k=8))}")
            a.sync()
            for i in range(args.events):
                b.remember(f"server event {rep}-{i}: {' '.join(random.choices(WORDS, k=8))}")
            copy = work / f"plain-{rep}"
            shutil.copytree(b.root, copy, symlinks=True, ignore=shutil.ignore_patterns(".braniac"))

            def plain(copy=copy):
                git(copy, "add", "-A")
                git(copy, "commit", "-qm", "plain")
                git(copy, "fetch", "-q", "origin")
                git(copy, "merge", "-q", "--no-edit", "origin/master", check=False)   # conflicts: left so
            git_s.append(timed(plain))
            shutil.rmtree(copy)
            braniac_s.append(timed(lambda: b.sync()))
            a.sync()
            print(f"  run {rep + 1}: braniac sync {braniac_s[-1]:.2f} s, plain git {git_s[-1]:.2f} s ({load()})")
        sync_med, git_med = statistics.median(braniac_s), statistics.median(git_s)
        print(f"sync, {args.events} new events a side, {args.notes} notes: {sync_med:.2f} s "
              f"(plain git add+commit+fetch+merge of the same change: {git_med:.2f} s; "
              f"ratio {sync_med / git_med:.1f}x) ({load()})")

        before = size_kib(a.root)
        per_sync = []
        for r in range(args.rounds):
            a.remember(f"round {r} on the laptop")
            per_sync.append(timed(lambda: a.sync()))
            b.remember(f"round {r} on the server")
            per_sync.append(timed(lambda: b.sync()))
        a.sync()
        after = size_kib(a.root)
        print(f"growth after {args.rounds} sync rounds: {before:.0f} KiB -> {after:.0f} KiB "
              f"(+{after - before:.0f} KiB, {(after - before) / max(args.rounds, 1):.1f} KiB a round); "
              f"median sync {statistics.median(per_sync):.2f} s ({load()})")
        print(git(a.root, "count-objects", "-vH").strip().replace("\n", "; "))
        git(a.root, "gc", "-q")
        packed = size_kib(a.root)
        print(f"after `git gc`: {before:.0f} KiB -> {packed:.0f} KiB (+{packed - before:.0f} KiB); "
              + git(a.root, "count-objects", "-vH").strip().replace("\n", "; "))
        print(json.dumps({"notes": args.notes, "events": args.events, "sync_s": round(sync_med, 3),
                          "plain_git_s": round(git_med, 3), "rounds": args.rounds,
                          "growth_kib": round(after - before), "growth_after_gc_kib": round(packed - before), "median_round_sync_s": round(statistics.median(per_sync), 3),
                          "load": os.getloadavg()}))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
