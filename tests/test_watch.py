"""`braniac watch`: a save is searchable within a second, and the watcher stops cleanly.

The watcher runs as a real subprocess (`braniac --vault V watch`); each check writes with
plain file operations, then polls every 20 ms with a fresh SearchIndex and `sync=False`, so
only the watcher can have brought the index up to date.
"""
from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

from braniac.vault import notes
from braniac.search.index import SearchIndex
from braniac import Vault

from helpers import clean_env

LATENCY = 1.0    # seconds from the write to the search that finds it
POLL = 0.02


class Watcher:
    """`braniac watch` in the background, its stderr collected line by line."""

    def __init__(self, vault: Vault):
        self.proc = subprocess.Popen([sys.executable, "-m", "braniac", "--vault", str(vault.root), "watch"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=clean_env())
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stderr:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, needle: str, timeout: float = 60) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                assert self.proc.poll() is None, f"watch exited early: {self.seen}"
                continue
            self.seen.append(line)
            if needle in line:
                return line
        raise AssertionError(f"no {needle!r} from watch within {timeout} s: {self.seen}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout=timeout)
        time.sleep(0.05)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return code


@pytest.fixture
def watcher(vault):
    w = Watcher(vault)
    w.wait_for("watching")
    yield w
    if w.proc.poll() is None:
        w.proc.kill()
        w.proc.wait()


def found(vault: Vault, word: str) -> list[str]:
    return [h.path for h in SearchIndex(vault).search(word, sync=False)]


def until(vault: Vault, word: str, expected: list[str], start: float) -> float:
    """Seconds from `start` until a fresh search for `word` gives `expected` (fails after LATENCY × 3)."""
    while True:
        if found(vault, word) == expected:
            return time.monotonic() - start
        if time.monotonic() - start > LATENCY * 3:
            raise AssertionError(f"{word!r}: still {found(vault, word)} after {LATENCY * 3} s, want {expected}")
        time.sleep(POLL)


def text(title: str, body: str) -> str:
    return notes.Note.new(title=title, body=body).render()


def test_saves_are_searchable_within_a_second(vault, watcher):
    root = vault.root
    latencies: dict[str, float] = {}

    rel = "memory/long_term/concrete/new.md"                    # a new note
    start = time.monotonic()
    (root / rel).write_text(text("New", "An alphaword appears."), encoding="utf-8")
    latencies["create"] = until(vault, "alphaword", [rel], start)

    start = time.monotonic()                                      # edited in place
    with open(root / rel, "w", encoding="utf-8") as handle:
        handle.write(text("New", "A bravoword now."))
    latencies["edit"] = until(vault, "bravoword", [rel], start)
    assert found(vault, "alphaword") == []

    start = time.monotonic()                                      # an editor's atomic save
    temp = root / "memory/long_term/concrete/.new.md.tmp"
    temp.write_text(text("New", "A charlieword now."), encoding="utf-8")
    os.replace(temp, root / rel)
    latencies["replace"] = until(vault, "charlieword", [rel], start)

    moved = "memory/long_term/skills/moved.md"                  # moved to another folder
    start = time.monotonic()
    os.rename(root / rel, root / moved)
    latencies["move"] = until(vault, "charlieword", [moved], start)

    folder = root / "memory/long_term/concrete/topic"           # a folder moved with its notes
    folder.mkdir()
    (folder / "inner.md").write_text(text("Inner", "A deltaword inside."), encoding="utf-8")
    until(vault, "deltaword", ["memory/long_term/concrete/topic/inner.md"], time.monotonic())
    start = time.monotonic()
    os.rename(folder, root / "memory/long_term/skills/topic")
    latencies["move folder"] = until(vault, "deltaword", ["memory/long_term/skills/topic/inner.md"], start)

    start = time.monotonic()                                      # deleted
    os.remove(root / moved)
    latencies["delete"] = until(vault, "charlieword", [], start)

    slow = {what: round(s, 3) for what, s in latencies.items() if s > LATENCY}
    assert not slow, f"slower than {LATENCY} s: {slow} (all: {latencies})"


def test_a_file_written_right_after_makedirs_is_picked_up(vault, watcher):
    root = vault.root
    slow = {}
    for n in range(6):
        folder = root / f"memory/long_term/concrete/new{n}/a/b/c"
        word = f"echo{n}word"
        start = time.monotonic()
        os.makedirs(folder)
        if n % 2:
            time.sleep(0.05 * n)  # and a little later, once the watcher may have seen the folder
        (folder / "x.md").write_text(text("X", f"The {word}."), encoding="utf-8")
        took = until(vault, word, [f"memory/long_term/concrete/new{n}/a/b/c/x.md"], start)
        if took > LATENCY:
            slow[n] = round(took, 3)
    assert not slow, slow


def test_ignored_files_stay_out_while_watching(vault, watcher):
    root = vault.root
    (root / ".obsidian").mkdir(exist_ok=True)
    (root / ".obsidian/x.md").write_text("The foxtrotword.", encoding="utf-8")
    (root / "memory/long_term/.trash").mkdir()
    (root / "memory/long_term/.trash/x.md").write_text("The foxtrotword.", encoding="utf-8")
    (root / "memory/long_term/concrete/x.txt").write_text("The foxtrotword.", encoding="utf-8")
    rel = "memory/long_term/concrete/marker.md"
    (root / rel).write_text(text("Marker", "The golfword marks the end."), encoding="utf-8")
    until(vault, "golfword", [rel], time.monotonic())
    time.sleep(0.3)
    assert found(vault, "foxtrotword") == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_watch_exits_cleanly_on_signals(vault, watcher, sig):
    rel = "memory/long_term/concrete/n.md"
    (vault.root / rel).write_text(text("N", "A hotelword."), encoding="utf-8")
    until(vault, "hotelword", [rel], time.monotonic())
    code = watcher.stop(sig)
    assert code == 0, watcher.seen
    assert not any("Traceback" in line for line in watcher.seen), watcher.seen
    assert any("stopped watching" in line for line in watcher.seen), watcher.seen


def test_watch_exits_cleanly_on_signal_while_starting(vault):
    """A signal during the first sync (a big vault's first index takes a while) is clean too."""
    for i in range(300):
        (vault.root / f"memory/long_term/concrete/n{i}.md").write_text(text(f"N{i}", f"Word{i} here."),
                                                                         encoding="utf-8")
    for sig in (signal.SIGINT, signal.SIGTERM):
        shutil.rmtree(vault.state_dir / "index", ignore_errors=True)
        w = Watcher(vault)
        w.wait_for("search index")  # the first index is being built
        code = w.stop(sig)
        assert code == 0, (sig, w.seen)
        assert not any("Traceback" in line for line in w.seen), w.seen
