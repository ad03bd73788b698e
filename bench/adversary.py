"""The adversarial suite (tests/adversarial/) at any size: prints, per scenario, the trials run
and what failed, with a reproduction for each kind of failure.

    python bench/adversary.py                          # every scenario, twice CI's size (CI runs --scale 0.5)
    python bench/adversary.py --scale 10               # ten times the trials (and chaos runs)
    python bench/adversary.py kills disk --scale 5 --seed 7
    python bench/adversary.py chaos --seconds 90 --trials 5
    python bench/adversary.py disk --commands promote --every-point     # every single write point
    python bench/adversary.py fuzz --examples 500
    python bench/adversary.py fuzz --shrink            # stop at the first failure, shrunk by hypothesis

Exit status 1 when anything failed. Scratch folders of failed trials are kept (their paths are
printed); --keep keeps everything.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIOS = ["chaos", "kills", "disk", "tmpfs", "hostile", "fuzz"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO", help=f"any of {', '.join(SCENARIOS)} (default: all)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every trial count (default 1; CI runs 0.5)")
    parser.add_argument("--seed", type=int, help="BRANIAC_TEST_SEED for the random instants, sites and examples")
    parser.add_argument("--seconds", type=float, help="length of one chaos run (default 20)")
    parser.add_argument("--trials", type=int, help="chaos runs (default: scale)")
    parser.add_argument("--kills", type=int, help="kills per command (default 5 x scale)")
    parser.add_argument("--sites", type=int, help="write sites per command (default 6 x scale)")
    parser.add_argument("--every-point", action="store_true", help="ENOSPC at every write point, not one per site")
    parser.add_argument("--commands", help="comma list of commands for kills and disk")
    parser.add_argument("--examples", type=int, help="fuzz examples (default 30 x scale)")
    parser.add_argument("--shrink", action="store_true", help="fuzz: stop at the first failure and shrink it")
    parser.add_argument("--threads", type=int, default=2, help="trials run side by side (default 2)")
    parser.add_argument("--show", type=int, default=5, help="failures shown per check (default 5)")
    parser.add_argument("--keep", action="store_true", help="keep every scratch folder")
    args = parser.parse_args()
    unknown = set(args.scenarios) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenario(s) {', '.join(sorted(unknown))}; choose from {', '.join(SCENARIOS)}")

    os.environ["BRANIAC_ADVERSARY_SCALE"] = str(args.scale)
    if args.seed is not None:
        os.environ["BRANIAC_TEST_SEED"] = str(args.seed)
    if args.seconds is not None:
        os.environ["BRANIAC_CHAOS_SECONDS"] = str(args.seconds)
    sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent / "tests" / "adversarial")]

    import forked
    import full_disk
    import scenarios
    from chaos import SECONDS
    from runner import SEED, scaled, scratch

    chosen = args.scenarios or SCENARIOS
    commands = args.commands.split(",") if args.commands else None
    root = scratch("braniac-adversary-")
    print(f"braniac adversarial suite: seed {SEED}, scale {args.scale:g}, scratch {root}", flush=True)
    forked.ready()
    tallies = []
    started = time.monotonic()
    try:
        for name in chosen:
            begun = time.monotonic()
            workdir = root / name
            if name == "chaos":
                found = [scenarios.chaos(workdir, args.trials or scaled(1), SECONDS)]
            elif name == "kills":
                found = [scenarios.kills(workdir, args.kills or scaled(5), commands, args.threads)]
            elif name == "disk":
                found = [scenarios.full_disk(workdir / c, c, args.sites or scaled(6), every_point=args.every_point,
                                             threads=args.threads) for c in commands or full_disk.COMMANDS]
            elif name == "tmpfs":
                if not full_disk.tmpfs_available():
                    print("tmpfs: skipped (needs root and a mountable tmpfs)", flush=True)
                    continue
                levels = [0, 4096, 16384, 65536, 262144, 512, 8192, 32768][:max(3, scaled(3))]
                found = [scenarios.tmpfs(workdir / c, c, levels) for c in commands or full_disk.COMMANDS]
            elif name == "hostile":
                found = [scenarios.hostile(workdir, threads=max(args.threads, 4))]
            else:
                found = [scenarios.fuzz(workdir, args.examples or scaled(30), shrink=args.shrink)]
            for tally in found:
                print("\n" + tally.summary(args.show), flush=True)
            print(f"({name}: {time.monotonic() - begun:.0f} s)", flush=True)
            tallies += found
    finally:
        forked.stop()
    failed = [t for t in tallies if t.failures]
    print(f"\n{'=' * 72}\n{time.monotonic() - started:.0f} s; trials and failures per scenario:")
    for tally in tallies:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(tally.by_check().items())) or "none"
        print(f"  {tally.scenario}: {tally.trials} trials, "
              f"{len({t for t, _ in tally.failures})} failed; failures: {counts}")
    if not failed and not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    else:
        print(f"scratch kept in {root}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
