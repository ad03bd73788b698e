"""The adversarial suite's checkers: small functions that each return a list of what is wrong
(empty when all is well), in words precise enough to act on. They read the vault with plain
file operations and their own patterns, never with braniac's parsers (which are under test).

    events_lost(root, {event_id: text})     every acknowledged event in STM or archived, with its text
    lines_lost(root, lines)                 every line a person wrote still somewhere in the vault
    outside_changes(before, after)          snapshots of the folders outside the vault
    run_problems(run, ok_codes)             a traceback, a hang, an unclean error, a write outside
    doctor_problems(box)                    `braniac doctor --json` finds no problem
    stuck_problems(box)                     a promotion and an organization still complete
    git_problems(root, ignore)              nothing of braniac's left uncommitted or staged
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from runner import SECRET, Run, Sandbox

EVENT_HEADING = re.compile(r"^### (\S.*?)[ \t]*$", re.M)
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^Exception in thread|^Fatal Python error", re.M)
CLEAN_LINE = re.compile(r"^(braniac: |  rejected: |indexing|\s*$)")


@dataclass
class Failure:
    """One thing wrong, with what reproduces it."""
    check: str
    detail: str
    repro: str = ""

    def __str__(self) -> str:
        detail = " / ".join(l.strip() for l in self.detail.splitlines() if l.strip())
        detail = detail if len(detail) <= 600 else detail[:600] + " ..."
        return f"[{self.check}] {detail}" + (f"\n    reproduce: {self.repro}" if self.repro else "")


def concluded(failures: list[Failure], repro: str, workdir: Path | None = None) -> list[Failure]:
    """Each failure told how to reproduce it (after what it says already); a trial's scratch
    folder (`workdir`) removed when nothing failed, kept for inspection when something did."""
    for failure in failures:
        failure.repro = (failure.repro + "; " if failure.repro else "") + repro
    if workdir is not None and not failures:
        shutil.rmtree(workdir, ignore_errors=True)
    return failures


@dataclass
class Tally:
    """A scenario's trials and failures, as printed at the end of a run."""
    scenario: str
    trials: int = 0
    failures: list[tuple[str, Failure]] = field(default_factory=list)   # (trial name, failure)
    notes: list[str] = field(default_factory=list)

    def add(self, trial: str, failures: list[Failure]) -> None:
        self.trials += 1
        self.failures.extend((trial, f) for f in failures)

    def by_check(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for _, failure in self.failures:
            counts[failure.check] = counts.get(failure.check, 0) + 1
        return counts

    def summary(self, per_check: int = 3) -> str:
        """Trials and failures per check; for each check, the first failure of up to `per_check`
        trials (with its reproduction)."""
        failed_trials = len({t for t, _ in self.failures})
        by_check = self.by_check()
        counts = ", ".join(f"{k} {v}" for k, v in sorted(by_check.items()))
        lines = [f"{self.scenario}: {self.trials} trials, {failed_trials} failed" + (f" ({counts})" if counts else "")]
        lines += [f"  {n}" for n in self.notes]
        for check in sorted(by_check):
            mine = [(t, f) for t, f in self.failures if f.check == check]
            firsts = list({t: (t, f) for t, f in reversed(mine)}.values())[::-1]    # each trial's first
            shown = (firsts + [p for p in mine if p not in firsts])[:per_check]
            lines += [f"  {trial}: {failure}" for trial, failure in shown]
            if len(mine) > len(shown):
                trials = len(firsts)
                lines.append(f"  ... {len(mine) - len(shown)} more {check} ({len(mine)} in {trials} trial(s))")
        return "\n".join(lines)


# ------------------------------------------------------------------------------ reading a vault

def memory_files(root: Path) -> list[Path]:
    """Every file braniac or a person keeps memory in: .md files anywhere in the vault except
    hidden folders (.git, .braniac), read by plain walking (no symlink followed)."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [Path(folder) / f for f in files if f.endswith(".md") and not f.startswith(".")]
    return sorted(found)


def read_all(root: Path) -> dict[str, str]:
    texts = {}
    for path in memory_files(root):
        try:
            if path.is_symlink() or not path.is_file():
                continue
            texts[path.relative_to(root).as_posix()] = path.read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
    return texts


def event_blocks(text: str) -> dict[str, list[str]]:
    """`### heading` -> the text of each block under it (to the next `### ` or `## ` heading)."""
    blocks: dict[str, list[str]] = {}
    for match in EVENT_HEADING.finditer(text):
        rest = text[match.end():]
        end = re.search(r"^#{2,3} ", rest, re.M)
        blocks.setdefault(match.group(1), []).append(rest[: end.start()] if end else rest)
    return blocks


def events_lost(root: Path, acked) -> list[Failure]:
    """Every event a command acknowledged (id -> text, or (id, text) pairs) is in short_term.md's
    Event Log or archived as memory/long_term/events/…/<id>.md, under its own `### id` heading,
    with its text."""
    texts = read_all(root)
    stm = texts.get("memory/short_term.md", "")
    log_at = re.search(r"^## Event Log[ \t]*$", stm, re.M)
    stm_log = stm[log_at.end():] if log_at else ""
    places = [event_blocks(stm_log)] + [event_blocks(t) for rel, t in texts.items()
                                        if rel.startswith("memory/long_term/events/")]
    lost = []
    for event_id, text in (acked.items() if isinstance(acked, dict) else acked):
        blocks = [b for found in places for b in found.get(event_id, [])]
        if not blocks:
            where = [rel for rel, t in texts.items() if event_id in t]
            lost.append(Failure("lost-event", f"event {event_id} ({text[:60]!r}) is neither in short-term memory "
                                f"nor archived" + (f"; its id appears in {where[:3]}" if where else "")))
        elif text and not any(text in b for b in blocks):
            lost.append(Failure("lost-event", f"event {event_id} is there but without its text {text[:60]!r}"))
    return lost


def body(text: str) -> str:
    """A Markdown file without its YAML frontmatter (a title made from a line is not the line)."""
    if text.startswith("---\n"):
        end = re.search(r"^(---|\.\.\.)[ \t]*$", text[4:], re.M)
        if end:
            return text[4 + end.end():]
    return text


def lines_lost(root: Path, lines: dict[str, str]) -> list[Failure]:
    """Every line a person wrote (line -> where they wrote it) is still in the body of some file of
    the vault: braniac may move it (a key fact to the digest, an event to the archive), never drop
    it (its first words becoming a note's title does not count)."""
    texts = [body(t) for t in read_all(root).values()]
    lost = []
    for line, where in lines.items():
        if not any(line in t for t in texts):
            lost.append(Failure("lost-person-line", f"{line!r} (written to {where}) is nowhere in the vault"))
    return lost


# ------------------------------------------------------------------------------ outside the vault

def snapshot(folder: Path, skip: tuple[Path, ...] = ()) -> dict[str, tuple]:
    """Every entry under `folder` (but `skip`): kind, mode, size, mtime and content hash."""
    found: dict[str, tuple] = {}
    skip_real = {os.path.realpath(s) for s in skip}
    for current, dirs, files in os.walk(folder):
        if os.path.realpath(current) in skip_real:
            dirs[:] = []
            continue
        dirs[:] = [d for d in dirs if os.path.realpath(os.path.join(current, d)) not in skip_real]
        for name in dirs + files:
            path = os.path.join(current, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            digest = ""
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as handle:
                    digest = hashlib.sha1(handle.read()).hexdigest()
            found[os.path.relpath(path, folder)] = (st.st_mode, st.st_size, st.st_mtime_ns, digest)
    return found


def outside_snapshot(box: Sandbox) -> dict[str, tuple]:
    """The sandbox outside the vault (outside/, home/ and the sandbox folder itself), reports
    and TMPDIR left out."""
    return snapshot(box.workdir, skip=(box.vault, box.reports, box.tmp))


def outside_changes(before: dict[str, tuple], after: dict[str, tuple], where: str = "") -> list[Failure]:
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    return [Failure("outside-touched", f"{where}{name} " + ("created" if name not in before else "removed"
                    if name not in after else "changed") + " outside the vault") for name in changed]


def secret_leaks(root: Path) -> list[Failure]:
    """A file outside the vault holds SECRET; finding it inside means braniac copied it in."""
    return [Failure("read-outside", f"{rel} holds the text of a file outside the vault")
            for rel, text in read_all(root).items() if SECRET in text]


# ------------------------------------------------------------------------------ one process

def run_problems(run: Run, ok_codes: tuple[int, ...] = (0, 2), *, hang: bool = True) -> list[Failure]:
    """A traceback, a hang, an exit code outside `ok_codes`, an error without a clean
    `braniac: …` line, a write outside the vault (blocked by the guard) or a read of a file
    outside it."""
    out: list[Failure] = []
    cmd = run.command
    if run.timed_out and hang:
        out.append(Failure("hang", f"`{cmd}` still running after {run.seconds:.0f} s (killed)"))
    if TRACEBACK.search(run.stderr) or TRACEBACK.search(run.stdout):
        tail = run.stderr.strip().splitlines()[-1:] or ["?"]
        out.append(Failure("traceback", f"`{cmd}` (exit {run.returncode}): {tail[0][:300]}",
                           repro=_traceback_where(run.stderr)))
    elif not run.timed_out and run.returncode not in ok_codes:
        out.append(Failure("exit-code", f"`{cmd}` exited {run.returncode}: {run.stderr.strip()[-400:]}"))
    elif not run.timed_out and run.returncode not in (0, 1):
        if not any(l.startswith("braniac: ") for l in run.stderr.splitlines()):
            out.append(Failure("unclear-error", f"`{cmd}` exited {run.returncode} without a `braniac: ...` line: "
                               f"{run.stderr.strip()[-300:]!r}"))
    for finding in run.findings:
        check = "write-outside" if finding["kind"] == "write-outside" else "read-outside"
        path, real = (finding.get(k, "") for k in ("path", "real"))
        if run.vault:
            path = path.replace(run.vault, "V")
            real = real.replace(os.path.dirname(run.vault), "SANDBOX")
        out.append(Failure(check, f"`{cmd}`: {finding['op']} {path}" + (f" (really {real})" if real != path else "")))
    return out


def _traceback_where(stderr: str) -> str:
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', stderr)
    mine = [f for f in frames if "/braniac/" in f[0]]
    if not mine:
        return ""
    path, line, func = mine[-1]
    return f"raised in {path.split('/braniac/', 1)[1]}:{line} ({func})"


# ------------------------------------------------------------------------------ the vault afterwards

def doctor_problems(box: Sandbox, label: str = "") -> list[Failure]:
    run = box.run("doctor", "--json", timeout=120)
    out = run_problems(run, ok_codes=(0, 1))
    if out:
        return out
    try:
        data = json.loads(run.stdout)
    except ValueError:
        return [Failure("doctor", f"`braniac doctor --json` printed no JSON: {run.stdout[:200]!r}")]
    return [Failure("doctor", f"{label}{p['path']}: {p['reason']}") for p in data.get("problems", [])]


def doctor_findings(box: Sandbox) -> set[tuple[str, str]] | None:
    """`doctor --json`'s problems as (path, reason), or None when doctor did not answer."""
    run = box.run("doctor", "--json", timeout=30, record=False)
    try:
        return {(p["path"], p["reason"]) for p in json.loads(run.stdout)["problems"]}
    except (ValueError, KeyError, TypeError):
        return None


def new_problems(before: set | None, after: set | None) -> list[Failure]:
    """Problems braniac's commands made in a vault (those it had already are the input's)."""
    if before is None or after is None:
        return []
    return [Failure("doctor", f"{path}: {reason} (not there before the commands ran)")
            for path, reason in sorted(after - before)]


def stuck_problems(box: Sandbox) -> list[Failure]:
    """No state that blocks later runs: a forced promotion and an organization both complete."""
    out = []
    for args in (("promote", "--force"), ("organize",)):
        run = box.run(*args, timeout=180)
        problems = run_problems(run, ok_codes=(0,))
        if not problems and "skipped" in run.stdout.lower():
            problems = [Failure("stuck", f"`{run.command}` skipped with no other braniac process: {run.stdout.strip()}")]
        out += [Failure("stuck", f.detail, f.repro) if f.check in ("exit-code", "unclear-error") else f
                for f in problems]
    return out


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True).stdout


def git_problems(root: Path, ignore: set[str] = frozenset(), *, untracked_ok: bool = False) -> list[Failure]:
    """With git.autocommit, everything braniac changed is committed: `git status --porcelain`
    shows only the files in `ignore` (a person's own edits), nothing is left staged, and no
    stale `.git/index.lock` remains."""
    out = []
    if (root / ".git" / "index.lock").exists():
        out.append(Failure("git", ".git/index.lock left behind: every later git command fails"))
    staged = [p for p in git(root, "diff", "--cached", "--name-only").splitlines() if p and p not in ignore]
    if staged:
        out.append(Failure("git", f"left staged (the person's next commit sweeps them in): {staged[:8]}"))
    dirty = []
    for line in git(root, "status", "--porcelain", "--untracked-files=all").splitlines():
        path = line[3:].split(" -> ")[-1].strip('"')
        if path in ignore or (untracked_ok and line.startswith("??")):
            continue
        dirty.append(line)
    if dirty:
        out.append(Failure("git", f"uncommitted after the re-run: {dirty[:8]}"))
    return out


def leftovers(root: Path) -> list[Failure]:
    """Scratch a killed or failed run left where it blocks later runs: temp folders."""
    out = []
    for folder, dirs, _files in os.walk(root / "memory"):
        for d in dirs:
            if d.endswith(".braniac-tmp"):
                out.append(Failure("stuck", f"temp folder {os.path.relpath(os.path.join(folder, d), root)} left"))
    return out
