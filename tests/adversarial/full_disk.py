"""Scenario 3: a full disk at every write point of init, remember, ask, promote, organize and
reindex.

Injected (always available): guard.py counts the write points of the command's uninterrupted
run (opens for writing, writes, renames, links, mkdirs, fsyncs, git commands that write), then
runs it again on a fresh copy with the k-th point failing with ENOSPC: only that one
("once"), or that one and every later one that needs space ("sticky": the disk stays full
until the process ends). The points are grouped into *sites* (the same operation on the same
kind of file: a temp file's random name, a segment's name and an event's date masked); each
trial fails the first point of one site, the sites drawn at random (all of them at a large
BRANIAC_ADVERSARY_SCALE; `every_point` for every single point).

A real small tmpfs (when running as root and `mount` works): the vault on a tmpfs filled up
to a few bytes or kilobytes of free space, the command run, the filler removed.

After each fault: the command gave a clean error (exit 2 and a `braniac: …` line) or succeeded,
no traceback; `braniac doctor` finds the vault valid; no acknowledged event lost; with space
back, the command run again completes, and so do a promotion and an organization, leaving
git clean; nothing outside the vault touched.
"""
from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import checks
from checks import Failure
from runner import SEED, Run, Sandbox
from vaults import git_vault

TEXT = "Ana said the ferry to Seixal leaves at nine from Cais do Sodre."
COMMANDS = {
    "init": ("init", "--git", "{vault}"),
    "remember": ("remember", TEXT),
    "ask": ("ask", "where does Ana live?"),
    "promote": ("promote", "--force"),
    "organize": ("organize",),
    "reindex": ("reindex",),
}


KNOWN = {"V", "memory", "long_term", "concrete", "skills", "events", "archive", "merged-folders", "system", "logs",
         "prompts", ".braniac", ".git", "index", "organize", "staging", "promotion", "state", "locks", "journal",
         "_index.md", "digest.md", "short_term.md", "core_identity.md", "braniac.toml", ".gitignore", "access.log"}


def site(op: str, path: str, vault: str) -> tuple[str, str]:
    """A write point's site: its operation and the kind of file, with what varies run to run or
    note to note masked (a temp file's random part, a segment's name, a note's or folder's name,
    a date), so that one trial per site reaches every different write braniac makes."""
    path = path.replace(vault, "V")
    if path.startswith("V/.braniac/organize/staging/"):
        path = "V/.braniac/organize/staging/**"
    path = re.sub(r"\.[0-9a-f]{8}\.braniac-tmp$", ".TMP", path)
    path = re.sub(r"_[a-z0-9]{16}(?=[._])", "_SEG", path)
    path = re.sub(r"/[a-z0-9]{28}\.ctmp$", "/*.ctmp", path)
    path = re.sub(r"\.toc\.[\d.]+$", ".toc.*", path)
    path = re.sub(r"_\d+\.toc", "_N.toc", path)
    path = re.sub(r"(old|new)-\d+-[0-9a-f]+", r"\1-*", path)
    path = re.sub(r"^fd \d+$|^\d+$", "fd", path)
    parts = []
    for part in path.split("/"):
        hidden = part.startswith(".") and part.endswith(".TMP")
        name = part[1:-4] if hidden else part
        if name not in KNOWN and not name.startswith(("MAIN", "_MAIN", "*", "braniac-", "index.")) and "SEG" not in name:
            name = "*.md" if name.endswith(".md") else "*"
        name = f".{name}.TMP" if hidden else name
        if not (name == "*" and parts and parts[-1] == "**") and not (name == "*" and parts and parts[-1] == "*"):
            parts.append(name)
        elif parts[-1] == "*":
            parts[-1] = "**"
    return op, "/".join(parts)


class FullDisk:
    def __init__(self, workdir: Path):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.bases: dict[str, tuple[Sandbox, dict[str, str]]] = {}

    def base(self, name: str) -> tuple[Sandbox, dict[str, str]]:
        """The organize command gets a vault with moves to make; the others a smaller one."""
        kind = "organize" if name == "organize" else "plain"
        if kind not in self.bases:
            box = Sandbox(self.workdir / f"base-{kind}")
            acked = git_vault(box, organize_work=kind == "organize", events=6, promoted=6)
            box.run("ask", "what does Maria do in Porto?", record=False)   # an access log for organize
            self.bases[kind] = box, acked
        return self.bases[kind]

    def fresh(self, name: str, label: str) -> tuple[Sandbox, dict[str, str]]:
        base, acked = self.base(name)
        box = Sandbox(Path(tempfile.mkdtemp(prefix=f"{label}-", dir=self.workdir)))
        if name != "init":
            shutil.copytree(base.vault, box.vault, symlinks=True)
        return box, dict(acked) if name != "init" else {}

    def args(self, name: str, box: Sandbox) -> list[str]:
        return [a.replace("{vault}", str(box.vault)) for a in COMMANDS[name]]

    def points(self, name: str) -> list[tuple[int, tuple[str, str]]]:
        """Every write point of the uninterrupted run: (k, site)."""
        box, _ = self.fresh(name, f"count-{name}")
        run = box.run(*self.args(name, box), count=True, record=False)
        assert run.returncode == 0 and run.end, run.describe()
        shutil.rmtree(box.workdir, ignore_errors=True)
        return [(k, site(op, path, str(box.vault))) for k, (op, path) in enumerate(run.end["ops"], 1)]

    def choose(self, name: str, how_many: int | None, every_point: bool = False, seed: int = SEED
               ) -> list[tuple[int, tuple[str, str]]]:
        points = self.points(name)
        if every_point:
            return points
        first: dict[tuple[str, str], int] = {}
        for k, where in points:
            first.setdefault(where, k)
        sites = sorted((k, where) for where, k in first.items())
        if how_many is None or how_many >= len(sites):
            return sites
        return sorted(random.Random(f"{seed}-{name}").sample(sites, how_many))

    # ------------------------------------------------------------------ one fault
    def trial(self, name: str, k: int, where: tuple[str, str], sticky: bool) -> list[Failure]:
        mode = "sticky" if sticky else "once"
        box, acked = self.fresh(name, f"{name}-{k}-{mode}")
        before = checks.outside_snapshot(box)
        run = box.run(*self.args(name, box), fault_at=k, sticky=sticky, timeout=120)
        hit = (run.end or {}).get("fault")
        repro = (f"ENOSPC at write point {k} of `braniac {name}` ({mode}): {where[0]} {where[1]}"
                 + (f" (hit: {hit['op']} {hit['path'].replace(str(box.vault), 'V')})" if hit else " (not reached)")
                 + f"; vault kept in {box.workdir}")
        failures = self.after_fault(name, box, run, acked)
        failures += self.after_space_returns(name, box, acked)
        failures += checks.outside_changes(before, checks.outside_snapshot(box))
        return checks.concluded(failures, repro, box.workdir)

    def after_fault(self, name: str, box: Sandbox, run: Run, acked: dict[str, str]) -> list[Failure]:
        failures = [Failure(f.check, f.detail + " (on the full disk)", f.repro) for f in checks.run_problems(run)]
        if re.search(r"damaged|corrupt", run.stderr, re.I):
            failures.append(Failure("misleading-error", f"`braniac {name}` on a full disk speaks of damage: "
                                    f"{run.stderr.strip()[:300]!r}"))
        elif run.returncode == 2 and not re.search(r"space|full", run.stderr, re.I):
            failures.append(Failure("misleading-error", f"`braniac {name}` failed on a full disk without saying "
                                    f"so: {run.stderr.strip()[:300]!r}"))
        match = re.search(r"remembered as event (\S+)", run.stdout)
        if match:
            acked[match.group(1)] = TEXT
        if name == "init" and run.returncode != 0:
            return failures          # no vault yet: the re-run must make one
        failures += [Failure(f.check, f.detail + " (after the full disk, before space returns)", f.repro)
                     for f in checks.doctor_problems(box) + checks.events_lost(box.vault, acked)]
        return failures

    def after_space_returns(self, name: str, box: Sandbox, acked: dict[str, str]) -> list[Failure]:
        again = box.run(*self.args(name, box), timeout=120)
        if name == "init" and again.returncode == 2 and "--force" in again.stderr:
            again = box.run("init", "--git", "--force", str(box.vault), timeout=120)
        failures = [Failure("rerun", f"{f.detail} (run again with space back)", f.repro)
                    for f in checks.run_problems(again, ok_codes=(0,))]
        match = re.search(r"remembered as event (\S+)", again.stdout)
        if match:
            acked[match.group(1)] = TEXT
        failures += checks.stuck_problems(box)
        failures += checks.doctor_problems(box)
        failures += checks.events_lost(box.vault, acked)
        failures += checks.leftovers(box.vault)
        failures += checks.git_problems(box.vault)
        return failures

    # ------------------------------------------------------------------ a real full tmpfs
    def tmpfs_trial(self, name: str, free: int) -> list[Failure]:
        """The vault on a small tmpfs with `free` bytes left; [] also when tmpfs is unavailable."""
        mount = Path(tempfile.mkdtemp(prefix=f"tmpfs-{name}-{free}-", dir=self.workdir))
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(mount)],
                          capture_output=True).returncode != 0:
            raise RuntimeError("mount -t tmpfs failed")
        try:
            base, acked = self.base(name)
            box = Sandbox(mount / "box", reports=self.workdir / f"reports-{mount.name}")
            if name != "init":
                shutil.copytree(base.vault, box.vault, symlinks=True)
            acked = dict(acked) if name != "init" else {}
            before = checks.outside_snapshot(box)
            filler = mount / "filler"
            stat = os.statvfs(mount)
            with open(filler, "wb") as handle:
                handle.truncate(0)
                left = stat.f_bavail * stat.f_frsize - free
                block = b"\0" * (1 << 20)
                while left > 0:
                    try:
                        left -= handle.write(block[:min(left, len(block))])
                        handle.flush()
                    except OSError:
                        break
            run = box.run(*self.args(name, box), timeout=120)
            failures = self.after_fault(name, box, run, acked)
            filler.unlink()
            failures += self.after_space_returns(name, box, acked)
            failures += checks.outside_changes(before, checks.outside_snapshot(box))
            checks.concluded(failures, f"`braniac {name}` on a tmpfs with {free} bytes free")
            if failures:
                keep = self.workdir / f"tmpfs-kept-{name}-{free}"
                shutil.copytree(box.workdir, keep, symlinks=True)
                failures[0].repro += f"; vault copied to {keep}"
            return failures
        finally:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)
            shutil.rmtree(mount, ignore_errors=True)


def tmpfs_available() -> bool:
    """Root, and a tmpfs can be mounted (a container may forbid it)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    probe = Path(tempfile.mkdtemp(prefix="braniac-tmpfs-probe-"))
    try:
        ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(probe)],
                            capture_output=True).returncode == 0
        if ok:
            subprocess.run(["umount", str(probe)], capture_output=True)
        return ok
    finally:
        shutil.rmtree(probe, ignore_errors=True)
