"""The four scenarios as runs of many trials, each returning a Tally (trials, failures): what the
tests (test_adversary_*.py) run at CI size and bench/adversary.py at any size.

    chaos(workdir, trials, seconds)             everything at once on one vault
    kills(workdir, per_command, commands)       SIGKILL at random instants, then a re-run
    full_disk(workdir, command, sites)          ENOSPC injected at write points
    tmpfs(workdir, command, free_bytes)         a real full tmpfs (root only)
    hostile(workdir, items)                     hostile vault items x the eight commands
    fuzz(workdir, examples)                     hypothesis-drawn notes and short_term.md
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterable

import pytest

from checks import Failure, Tally
from runner import SCALE, SEED

THREADS = 2


def parallel(fn: Callable, items: Iterable, threads: int = THREADS) -> list:
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(fn, items))


def chaos(workdir: Path, trials: int, seconds: float) -> Tally:
    import chaos as engine
    tally = Tally("everything at once")
    for trial in range(trials):
        started = time.monotonic()
        failures, run = engine.run_chaos(Path(workdir) / f"chaos-{trial}", trial, seconds)
        counts = ", ".join(f"{k} {v}" for k, v in sorted(run.counts.items()))
        tally.notes.append(f"trial {trial} (seed {SEED + trial}, {seconds:.0f} s, {time.monotonic() - started:.0f} s "
                           f"in all): {len(run.acked)} events acknowledged, {len(run.lines)} lines saved by the "
                           f"person, {len(run.prompts)} chat prompts; {counts}; vault {run.box.vault}")
        tally.add(f"chaos trial {trial} (seed {SEED + trial})", failures)
    return tally


def kills(workdir: Path, per_command: int, commands: Iterable[str] | None = None, threads: int = THREADS) -> Tally:
    import kills as engine
    names = list(commands or engine.COMMANDS)
    runner = engine.Kills(Path(workdir), names)
    plan = [p for p in engine.plan(per_command * len(engine.COMMANDS), dict.fromkeys(engine.COMMANDS, 1.0) |
                                   runner.durations) if p[1] in names]
    tally = Tally(f"SIGKILL ({', '.join(names)})")
    tally.notes.append("uninterrupted run times: " + ", ".join(f"{k} {v:.2f} s" for k, v in runner.durations.items()))
    states: dict[str, int] = {}
    for (n, name, delay), (state, failures) in zip(plan, parallel(lambda p: runner.trial(*p), plan, threads)):
        states[f"{name} {state}"] = states.get(f"{name} {state}", 0) + 1
        tally.add(f"kill {n} ({name} after {delay:.3f} s)", failures)
    tally.notes.append("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(states.items())))
    return tally


def full_disk(workdir: Path, command: str, sites: int | None, *, every_point: bool = False,
              threads: int = THREADS) -> Tally:
    import full_disk as engine
    runner = engine.FullDisk(Path(workdir))
    points = runner.points(command)
    chosen = runner.choose(command, sites, every_point)
    n_sites = len({where for _, where in points})
    tally = Tally(f"full disk, {command}")
    tally.notes.append(f"{len(points)} write points in {n_sites} sites; {len(chosen)} tried, sticky and once in turn")
    jobs = [(k, where, i % 2 == 0) for i, (k, where) in enumerate(chosen)]
    for (k, where, sticky), failures in zip(jobs, parallel(lambda j: runner.trial(command, *j), jobs, threads)):
        tally.add(f"{command} ENOSPC at point {k} ({'sticky' if sticky else 'once'}; {where[0]} {where[1]})", failures)
    return tally


def tmpfs(workdir: Path, command: str, free_bytes: Iterable[int]) -> Tally:
    import full_disk as engine
    runner = engine.FullDisk(Path(workdir))
    tally = Tally(f"full tmpfs, {command}")
    for free in free_bytes:
        tally.add(f"{command} with {free} bytes free", runner.tmpfs_trial(command, free))
    return tally


def hostile(workdir: Path, items=None, threads: int = 4) -> Tally:
    import hostile as engine
    runner = engine.Hostile(Path(workdir))
    chosen = list(items if items is not None else engine.items())
    tally = Tally("hostile vault items x 8 commands")
    for item, failures in zip(chosen, parallel(runner.trial, chosen, threads)):
        tally.add(item.name, failures)
    return tally


def fuzz(workdir: Path, examples: int, *, shrink: bool = False, seed: int = SEED) -> Tally:
    import fuzz as engine
    tally = Tally("fuzzed notes and short_term.md")
    for name, failures in engine.run_fuzz(Path(workdir), examples, shrink=shrink, seed_value=seed):
        tally.add(name, failures)
    return tally


def failures_of(tally: Tally) -> list[Failure]:
    return [f for _, f in tally.failures]


def verdict(tally: Tally, workdir_state, rerun: str) -> None:
    """Print the tally (shown with -s, and in the failure); fail on any failure, with the line
    that replays the same trials."""
    root, state = workdir_state
    text = tally.summary()
    print("\n" + text)
    if tally.failures:
        state["failed"] = True
        pytest.fail(f"{text}\n\nreplay: BRANIAC_TEST_SEED={SEED} BRANIAC_ADVERSARY_SCALE={SCALE:g} {rerun}"
                    f"\nscratch kept in {root}", pytrace=False)
