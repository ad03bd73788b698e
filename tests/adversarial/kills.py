"""Scenario 2: `braniac promote --force`, `organize` and `remember` killed with SIGKILL at a random
instant (with any git they started, as a power cut or the OOM killer would) in a git vault with
work pending for each, then run again.

Right after the kill: every acknowledged event is still in short-term memory or archived, and
`braniac doctor` finds no problem. After the killed command is run again and then a last
`promote --force` and `organize`: no event lost, doctor healthy, no error or traceback,
`git status --porcelain` clean (git.autocommit commits all braniac wrote; nothing left staged,
no stale `.git/index.lock`), nothing outside the vault touched.

The instants: a uniform draw over the command's uninterrupted run time (measured first on the
same vault), from BRANIAC_TEST_SEED.
"""
from __future__ import annotations

import os
import random
import re
import shutil
import signal
import statistics
import tempfile
import time
from pathlib import Path

import checks
import forked
from checks import Failure
from runner import CHILD, SEED, Sandbox
from vaults import git_vault

COMMANDS = {
    "promote": ("promote", "--force"),
    "organize": ("organize",),
    "remember": ("remember", "Ana told me the ferry to Seixal leaves at nine."),
}


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (git started by braniac), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_tree(proc) -> None:
    """SIGKILL the process and everything it started, at the same instant as far as can be."""
    try:
        os.kill(proc.pid, signal.SIGSTOP)
    except ProcessLookupError:
        return
    for pid in [proc.pid] + descendants(proc.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class Kills:
    def __init__(self, workdir: Path, names=None):
        self.workdir = Path(workdir)
        self.base = Sandbox(self.workdir / "base")
        self.acked = git_vault(self.base, organize_work=True, events=12, promoted=8)
        self.durations = {name: self.measure(name) for name in names or COMMANDS}

    def fresh(self, name: str) -> Sandbox:
        box = Sandbox(Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.workdir)))
        shutil.copytree(self.base.vault, box.vault, symlinks=True)
        return box

    def measure(self, name: str) -> float:
        times = []
        for _ in range(2):
            box = self.fresh(f"measure-{name}")
            run = box.run(*COMMANDS[name], record=False)
            assert run.returncode == 0, run.describe()
            times.append(run.seconds)
            shutil.rmtree(box.workdir, ignore_errors=True)
        return statistics.median(times)

    def trial(self, n: int, name: str, delay: float) -> tuple[str, list[Failure]]:
        box = self.fresh(f"trial{n:03d}-{name}")
        before = checks.outside_snapshot(box)
        where = (f"kill `braniac {' '.join(COMMANDS[name])}` after {delay:.3f} s "
                 f"(trial {n}, BRANIAC_TEST_SEED={SEED}); vault kept in {box.workdir}")
        config, report = box._config(box.cli(*COMMANDS[name]))
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            proc = forked.start(code=CHILD, argv=[config], env=box.env(), cwd=box.tmp, stdout=out, stderr=err)
            time.sleep(delay)
            if proc.poll() is None:
                kill_tree(proc)
            status = proc.wait()
            out.seek(0)
            stdout = out.read().decode("utf-8", "replace")
        acked = dict(self.acked)
        match = re.search(r"remembered as event (\S+)", stdout)
        if match:
            acked[match.group(1)] = COMMANDS["remember"][1]
        state = "killed" if status == -signal.SIGKILL else f"finished (exit {status})"
        failures = [Failure(f.check, f.detail + " (right after the kill)") for f in checks.events_lost(box.vault, acked)]
        failures += [Failure("doctor-after-kill", f.detail) for f in checks.doctor_problems(box)]
        again = box.run(*COMMANDS[name], timeout=120)
        failures += checks.run_problems(again, ok_codes=(0,))
        match = re.search(r"remembered as event (\S+)", again.stdout)
        if match:
            acked[match.group(1)] = COMMANDS["remember"][1]
        failures += checks.stuck_problems(box)
        failures += checks.events_lost(box.vault, acked)
        failures += checks.doctor_problems(box)
        failures += checks.leftovers(box.vault)
        failures += checks.git_problems(box.vault)
        failures += checks.outside_changes(before, checks.outside_snapshot(box))
        return state, checks.concluded(failures, where, box.workdir)


def plan(trials: int, durations: dict[str, float], seed: int = SEED) -> list[tuple[int, str, float]]:
    rng = random.Random(seed)
    names = list(COMMANDS)
    return [(n, names[n % len(names)], rng.uniform(0.0, durations[names[n % len(names)]] * 1.1))
            for n in range(trials)]

