"""Scenario 1, everything at once on one git vault for SECONDS seconds: `braniac watch`, a piped
`braniac chat`, three `braniac remember` loops, `promote --force` and `organize` from cron-like
loops, and a person editing notes and short_term.md (person.py: saves by rename and in place).

Afterwards (every process stopped, then a last `promote --force` and `organize`):
- every event a `remember` acknowledged is in short-term memory or archived, with its text;
  every prompt the chat read is recorded;
- every line of every save the person completed is somewhere in the vault (a key fact moves to
  the digest, an event to the archive: moving is allowed, dropping is not);
- nothing outside the vault read, written or copied in; no traceback, no hang, no unclean error;
- `braniac doctor` healthy, the last promotion and organization complete, nothing left staged.
"""
from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import checks
import person
from checks import Failure
from runner import SEED, Run, Sandbox
from vaults import QUESTIONS, TALK, git_vault, quick_config

SECONDS = float(os.environ.get("BRANIAC_CHAOS_SECONDS", "20"))


class Chaos:
    def __init__(self, box: Sandbox, seed: int, seconds: float = SECONDS, *, actors: str = "all",
                 methods: tuple[str, ...] = ("rename", "in-place")):
        """`actors`: "all", or a comma list of remember, promote, organize, person-notes,
        person-stm, chat, watch (to narrow a failure down); `methods`: the person's saves."""
        self.box, self.seed, self.seconds = box, seed, seconds
        self.actors = {"remember", "promote", "organize", "person-notes", "person-stm", "chat", "watch"} \
            if actors == "all" else set(actors.split(","))
        self.methods = methods
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.t0 = time.monotonic()
        self.lock = threading.Lock()
        self.acked: dict[str, str] = {}           # event id -> text, from remember
        self.acks: list[tuple[str, str]] = []     # every acknowledgment (an id given twice stays twice)
        self.lines: dict[str, str] = {}           # a person's line -> the file it went to
        self.prompts: list[str] = []              # what the chat was fed
        self.saves: list[person.Save] = []
        self.timeline: list[tuple[float, float, str]] = []   # (start, end, what)
        self.failures: list[Failure] = []
        self.stderr: dict[str, str] = {}          # the chat's and watch's, kept for the report
        self.counts: dict[str, int] = {}
        self.workers = 0                          # promotions and organizations running now

    def now(self) -> float:
        return time.monotonic() - self.t0

    def count(self, what: str) -> None:
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1

    def braniac(self, *args, timeout: float = 120) -> Run:
        started = self.now()
        worker = args[0] in ("promote", "organize")
        if worker:
            with self.lock:
                self.workers += 1
        try:
            run = self.box.run(*args, timeout=timeout)
        finally:
            if worker:
                with self.lock:
                    self.workers -= 1
        with self.lock:
            self.timeline.append((started, self.now(), run.command.replace(str(self.box.vault), "V")
                                  + f" -> {run.returncode}"))
            self.failures += checks.run_problems(run)
        return run

    # ------------------------------------------------------------------ actors
    def remember_loop(self, n: int) -> None:
        rng = random.Random(f"{self.seed}-remember-{n}")
        i = 0
        while not self.stop.is_set():
            text = f"{rng.choice(TALK)} (loop {n} note {i} tok{rng.getrandbits(32):08x})"
            run = self.braniac("remember", text)
            match = re.search(r"remembered as event (\S+)", run.stdout)
            if run.returncode == 0 and match:
                with self.lock:
                    if match.group(1) in self.acked:
                        self.failures.append(Failure("duplicate-id", f"two events acknowledged as {match.group(1)}: "
                                                     f"{self.acked[match.group(1)]!r} and {text!r}"))
                    self.acked[match.group(1)] = text
                    self.acks.append((match.group(1), text))
                self.count("remember ok")
            else:
                reason = (run.stderr.strip().splitlines() or ["?"])[-1].split(":")[1:2] or ["?"]
                self.count(f"remember refused ({reason[0].strip()[:50]})")
            i += 1
            self.stop.wait(rng.uniform(0.02, 0.15))

    def cron_loop(self, args: tuple[str, ...], low: float, high: float) -> None:
        rng = random.Random(f"{self.seed}-{args[0]}")
        while not self.stop.wait(rng.uniform(low, high)):
            run = self.braniac(*args)
            self.count(f"{args[0]} " + ("skipped" if "skipped" in run.stdout else f"exit {run.returncode}"))

    def person_loop(self) -> None:
        rng = random.Random(f"{self.seed}-person")
        n = 0
        # while a promotion or an organization runs, the person saves far more often (a sync
        # tool, an editor's autosave): the notes being rewritten are the ones edited
        while not self.stop.wait(rng.uniform(0.005, 0.03) if self.workers else rng.uniform(0.03, 0.2)):
            n += 1
            token = f"hand{n:04d}x{rng.getrandbits(24):06x}"
            kinds = [k for k in ("person-notes", "person-stm") if k in self.actors]
            if not kinds:
                return
            if rng.choice(kinds) == "person-notes":
                self.edit_note(rng, token)
            else:
                self.edit_stm(rng, token)

    def edit_note(self, rng: random.Random, token: str) -> None:
        root = self.box.vault
        candidates = checks.memory_files(root / "memory" / "long_term") + [root / "system" / "core_identity.md"]
        if rng.random() < 0.7:      # most often a note braniac wrote a moment ago: it may well again
            candidates = sorted(candidates, key=_mtime)[-(3 if self.workers else 8):]
        path = rng.choice(candidates)
        line = f"A line by hand {token}: {person.words(rng, 5)}."
        self.save(rng, path, lambda text: person.add_own_line(text, line), line)

    def edit_stm(self, rng: random.Random, token: str) -> None:
        path = self.box.vault / "memory" / "short_term.md"
        choice = rng.random()
        if choice < 0.4:
            line = f"Key fact by hand {token}: {person.words(rng, 5)}"
            self.save(rng, path, lambda text: person.add_list_item(text, "Key Facts & Decisions", f"- {line}"), line)
        elif choice < 0.6:
            line = f"task by hand {token} {person.words(rng, 4)}"
            self.save(rng, path, lambda text: person.add_list_item(text, "Tasks", f"- [ ] {line}"), line)
        else:
            with self.lock:
                ids = list(self.acked)[-30:]
            if not ids:
                return
            event_id = rng.choice(ids)
            line = f"Added by hand {token}: {person.words(rng, 5)}."
            self.save(rng, path, lambda text: person.annotate_event(text, event_id, line), line)

    def save(self, rng: random.Random, path: Path, change, line: str) -> None:
        started = self.now()
        got = person.read_for_edit(path)
        if got is None:
            return
        text, stamp = got
        new = change(text)
        if new is None or new == text:
            return
        method = rng.choice(self.methods)
        try:
            outcome = (person.save_by_rename(path, new, stamp) if method == "rename"
                       else person.save_in_place(path, new, stamp, rng))
        except OSError as exc:
            outcome = f"failed: {exc}"
        rel = path.relative_to(self.box.vault).as_posix()
        with self.lock:
            self.saves.append(person.Save(rel, method, started, self.now(), outcome, line))
            self.timeline.append((started, self.now(), f"person {method} save of {rel}: {outcome}"))
            if outcome == "saved":
                self.lines[line] = rel
        self.count(f"person {method} {outcome.split(':')[0]}")

    def chat_loop(self, proc: subprocess.Popen) -> None:
        rng = random.Random(f"{self.seed}-chat")
        n = 0
        while not self.stop.wait(rng.uniform(0.3, 1.0)):
            n += 1
            prompt = (f"{rng.choice(QUESTIONS)} chat{n:03d}" if rng.random() < 0.6
                      else f"Remember that {rng.choice(TALK)} chat{n:03d}")
            try:
                proc.stdin.write(prompt + "\n")
                proc.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                return
            with self.lock:
                self.prompts.append(prompt)
                self.timeline.append((self.now(), self.now(), f"chat prompt {prompt!r}"))

    # ------------------------------------------------------------------ the run
    def run(self) -> list[Failure]:
        box = self.box
        before = checks.outside_snapshot(box)
        on = self.actors
        watch = box.spawn("watch") if "watch" in on else None
        chat = box.spawn("chat", stdin=subprocess.PIPE) if "chat" in on else None
        outputs: dict[str, list[str]] = {"watch": ["", ""], "chat": ["", ""]}

        def drain(name, proc):
            def pump(i, stream):
                outputs[name][i] = stream.read()
            threads = [threading.Thread(target=pump, args=(i, s), daemon=True) for i, s in
                       enumerate((proc.stdout, proc.stderr))]
            for t in threads:
                t.start()
            return threads
        pumps = (drain("watch", watch) if watch else []) + (drain("chat", chat) if chat else [])
        actors = [threading.Thread(target=self.remember_loop, args=(n,)) for n in range(3) if "remember" in on]
        if "promote" in on:
            actors.append(threading.Thread(target=self.cron_loop, args=(("promote", "--force"), 0.6, 2.0)))
        if "organize" in on:
            actors.append(threading.Thread(target=self.cron_loop, args=(("organize",), 1.0, 3.0)))
        if on & {"person-notes", "person-stm"}:
            actors.append(threading.Thread(target=self.person_loop))
        if chat:
            actors.append(threading.Thread(target=self.chat_loop, args=(chat,)))
        for actor in actors:
            actor.start()
        self.stop.wait(self.seconds)
        self.stop.set()
        for actor in actors:
            actor.join()
        if chat:
            chat.stdin.close()
            self.collect(chat, "chat", outputs, pumps)
        if watch:
            watch.send_signal(signal.SIGTERM)
            self.collect(watch, "watch", outputs, pumps)
        return self.check(before)

    def collect(self, proc, name, outputs, pumps) -> None:
        timed_out = False
        try:
            proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.kill()
            proc.wait()
        for t in pumps:
            t.join(timeout=5)
        run = self.box.finish(proc, *outputs[name], timed_out=timed_out)
        self.stderr[name] = run.stderr
        with self.lock:
            self.timeline.append((run.seconds, run.seconds, f"{name} ended: exit {run.returncode}"))
            self.failures += checks.run_problems(run, ok_codes=(0,))

    def check(self, before) -> list[Failure]:
        box = self.box
        root = box.vault
        out = list(self.failures)
        out += checks.stuck_problems(box)
        out += checks.leftovers(root)
        out += checks.doctor_problems(box)
        out += [self.explain(f) for f in checks.events_lost(root, self.acks)]
        lost_lines = checks.lines_lost(root, self.lines)
        for failure in lost_lines:
            where = "short_term.md" if "short_term.md" in failure.detail else "notes"
            self.count(f"lost lines in {where}")
        out += [self.explain(f) for f in lost_lines]
        out += [self.chat_turn_lost(f) for f in checks.lines_lost(root, {p: "the chat" for p in self.prompts})]
        out += checks.outside_changes(before, checks.outside_snapshot(box))
        out += checks.secret_leaks(root)
        edited = {s.path for s in self.saves}
        out += [f for f in checks.git_problems(root, ignore=edited, untracked_ok=True)
                if "uncommitted" not in f.detail]
        return out

    def chat_turn_lost(self, failure: Failure) -> Failure:
        """A prompt fed to the chat and found in no vault file: say whether it waits in a journal
        (recorded by the next session: deferred, still a failure, as the chat ended without
        recording it) and what the chat said on stderr."""
        journal = self.box.vault / ".braniac" / "journal"
        prompt = next((p for p in self.prompts if p in failure.detail), "")
        waiting = [path.name for path in sorted(journal.glob("*")) if prompt and
                   prompt in path.read_text(encoding="utf-8", errors="replace")] if journal.is_dir() else []
        where = f"journaled only ({', '.join(waiting)})" if waiting else "in no journal either"
        said = self.stderr.get("chat", "").strip()[-1500:]
        return Failure("lost-chat-turn", f"{failure.detail.replace('written to', 'fed to')}; {where}; "
                                         f"the chat's stderr: {said!r}")

    def explain(self, failure: Failure) -> Failure:
        """A lost line or event with what happened around it: the person's saves and the
        braniac commands that overlapped, times in seconds from the start."""
        line = next((l for l in self.lines if l in failure.detail), None)
        event = next((i for i in self.acked if f"event {i} " in failure.detail), None)
        if line is not None:
            save = next(s for s in reversed(self.saves) if s.line == line and s.outcome == "saved")
            start, end, path = save.started, save.ended, save.path
            failure.detail += f" [saved {save.method} at {start:.3f}-{end:.3f} s]"
        elif event is not None:
            when = [(a, b) for a, b, what in self.timeline if "remember" in what and self.acked[event] in what]
            if not when:
                return failure
            (start, end), path = when[0], "memory/short_term.md"
            failure.detail += f" [acknowledged at {end:.3f} s]"
        else:
            return failure
        near = [f"{a:7.3f}-{b:7.3f} {what}" for a, b, what in sorted(self.timeline)
                if a <= end + 1.0 and b >= start - 0.1 and ("person" not in what or path in what)
                and "remember" not in what or (a <= end + 0.3 and b >= start)]
        failure.repro = "timeline (s from start):\n      " + "\n      ".join(near[:20])
        return failure


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def run_chaos(workdir: Path, trial: int, seconds: float = SECONDS, **options) -> tuple[list[Failure], Chaos]:
    """One chaos run in `workdir`; the seed is BRANIAC_TEST_SEED + trial; `options` go to Chaos."""
    box = Sandbox(workdir)
    git_vault(box, organize_work=True, events=10, promoted=8)
    quick_config(box.vault, promote_minutes=0.01, organize_minutes=0.03)
    checks.git(box.vault, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "quick idle timers", "--",
               "braniac.toml")
    chaos = Chaos(box, SEED + trial, seconds, **options)
    return chaos.run(), chaos
