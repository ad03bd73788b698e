"""Many writers at once, and writers killed mid-write: real processes, real locks, real files.

The writers are `python -c CODE` processes forked from a server that has braniac imported
(tests/forked.py): real processes (own pid, files and locks; SIGKILL kills them mid-write) that
start in milliseconds. `braniac remember` runs as `python -m braniac`, as a person runs it."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

from braniac.infra import fsio
from braniac.vault import stm

import forked
from helpers import clean_env, run_cli

WRITERS, PER_WRITER = 4, 200


def spawn(code: str, *args: str) -> forked.Forked:
    """`python -c CODE ARGS`, its stdout and stderr piped (text)."""
    return forked.start(code=textwrap.dedent(code), argv=args, env=clean_env(), stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE)


def test_four_processes_remembering_200_times_each(vault, tmp_path):
    go = tmp_path / "go"
    code = """
        import json, os, sys, time
        from braniac import Vault
        root, writer, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
        vault = Vault(root)
        while not os.path.exists(go):      # start together, so the writes really interleave
            time.sleep(0.001)
        ids = [vault.remember(f"writer {writer} item {i}").id for i in range(count)]
        print(json.dumps(ids))
    """
    children = [spawn(code, str(vault.root), str(w), str(PER_WRITER), str(go)) for w in range(WRITERS)]
    time.sleep(0.3)
    go.write_text("go")
    returned: dict[int, list[str]] = {}
    for w, child in enumerate(children):
        out, err = child.communicate(timeout=240)
        assert child.returncode == 0, err
        returned[w] = json.loads(out)

    text = vault.stm_path.read_text(encoding="utf-8")
    doc = stm.parse(text)
    assert doc.render() == text
    events = doc.events
    assert len(events) == WRITERS * PER_WRITER
    ids = [e.id for e in events]
    assert len(set(ids)) == len(ids)
    assert set(ids) == {i for got in returned.values() for i in got}
    texts = [e.fields["User"] for e in events]
    assert sorted(texts) == sorted(f"writer {w} item {i}" for w in range(WRITERS) for i in range(PER_WRITER))
    # newest first: each writer's items appear in reverse order of writing, with its own ids
    for w in range(WRITERS):
        mine = [(e.id, e.fields["User"]) for e in events if e.fields["User"].startswith(f"writer {w} ")]
        assert [t for _, t in mine] == [f"writer {w} item {i}" for i in reversed(range(PER_WRITER))]
        assert [i for i, _ in mine] == list(reversed(returned[w]))
    assert doc.missing_sections() == []
    assert vault.doctor() == []
    assert fsio.stale_temp_files(vault.root) == []


def test_concurrent_cli_remember(vault):
    procs = [subprocess.Popen([sys.executable, "-m", "braniac", "--vault", str(vault.root), "remember", f"cli {n}"],
                              env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n in range(8)]
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    events = vault.read_stm().events
    assert sorted(e.fields["User"] for e in events) == [f"cli {n}" for n in range(8)]
    assert len({e.id for e in events}) == 8
    assert run_cli("--vault", vault.root, "doctor").returncode == 0


def _kill_at_random(child: forked.Forked, rng: random.Random, max_delay: float) -> None:
    assert child.stdout.readline().strip() == "ready", child.stderr.read()
    time.sleep(rng.uniform(0, max_delay))
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    child.stdout.close()
    child.stderr.close()


def test_sigkill_during_atomic_writes_leaves_a_or_b(tmp_path):
    target = tmp_path / "memory file.md"
    size = 4 * 1024 * 1024
    a = (b"A" * 1023 + b"\n") * (size // 1024)
    b = (b"B" * 511 + b"\n") * (size // 256)          # twice as long: a torn write cannot hide
    target.write_bytes(a)
    code = """
        import sys
        from pathlib import Path
        from braniac.infra.fsio import atomic_write
        target, size = Path(sys.argv[1]), int(sys.argv[2])
        a = (b"A" * 1023 + b"\\n") * (size // 1024)
        b = (b"B" * 511 + b"\\n") * (size // 256)
        print("ready", flush=True)
        while True:
            atomic_write(target, b)
            atomic_write(target, a)
    """
    rng = random.Random(1234)
    seen = set()
    for _ in range(20):
        child = spawn(code, str(target), str(size))
        _kill_at_random(child, rng, 0.25)
        data = target.read_bytes()
        assert data in (a, b), f"torn file: {len(data)} bytes, starts {data[:10]!r}"
        seen.add(data[:1])
        assert target.stat().st_mode & 0o777 == 0o644
    leftovers = [p for p in tmp_path.iterdir() if p != target]
    # a kill between creating the temp file and renaming it leaves a temp file, never a target
    assert all(p.name.endswith(fsio.TEMP_SUFFIX) and p.name.startswith(".memory file.md.") for p in leftovers)
    assert sorted(leftovers) == fsio.stale_temp_files(tmp_path)
    assert seen, "no kill was observed"


def test_sigkill_during_remember_keeps_whole_events(vault):
    code = """
        import sys
        from braniac import Vault
        vault, start = Vault(sys.argv[1]), int(sys.argv[2])
        print("ready", flush=True)
        i = start
        while True:
            vault.remember(f"crash test {i} " + "padding " * 200)
            i += 1
    """
    rng = random.Random(99)
    known: list[str] = []
    next_start = 0
    for _ in range(20):
        child = spawn(code, str(vault.root), str(next_start))
        _kill_at_random(child, rng, 0.3)
        text = vault.stm_path.read_text(encoding="utf-8")
        doc = stm.parse(text)
        assert doc.render() == text and doc.missing_sections() == []
        events = doc.events
        users = [e.fields["User"] for e in events]
        for event, user in zip(events, users):
            assert set(event.fields) == {"User", "Thoughts"}, event.raw
            assert user.startswith("crash test ") and user.endswith("padding"), event.raw
            assert event.raw.endswith("\n\n")
        # nothing already stored was lost, and nothing is duplicated
        assert users[len(users) - len(known):] == known
        assert len(set(e.id for e in events)) == len(events)
        known = users
        next_start = 1 + max((int(u.split()[2]) for u in users), default=-1)
        assert [f.severity for f in vault.doctor()] == ["warning"] * len(fsio.stale_temp_files(vault.root))
    assert len(known) > 20, "the writers never got going"
    with fsio.locked(vault.lock_path("stm"), timeout=5):    # killed holders released the lock
        pass
    assert vault.remember("after the storm").id


def test_doctor_waits_for_a_promotion_running_and_reports_what_it_left(vault):
    """A run holds the long-term memory lock while its files are half written; doctor, started
    meanwhile, reads the vault once the run has ended (not the half state as a problem)."""
    half = vault.ltm_root / "concrete" / "half.md"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time, pathlib
        from braniac.infra.fsio import locked
        with locked(pathlib.Path({str(vault.lock_path("ltm"))!r})):
            pathlib.Path({str(half)!r}).write_text("---\\nuuid: x\\n---\\nhalf written\\n")
            print("held", flush=True)
            time.sleep(1.5)
            pathlib.Path({str(half)!r}).unlink()
    """)], stdout=subprocess.PIPE, text=True, env=clean_env())
    assert holder.stdout.readline().strip() == "held"
    findings = vault.doctor()
    holder.wait(timeout=30)
    assert not [f for f in findings if f.severity == "problem"], findings
