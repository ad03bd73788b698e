"""A person's edits are never lost, whatever braniac is doing when they save (issue 15, items 3-8).

The races are real (braniac runs as its own process, forked from tests/forked.py, while this
test saves files as a person's editor would) and deterministic: where an instant matters, the
braniac process is paused at that instant by a hook set in the child only, and the person's
save is made while it waits.
"""
from __future__ import annotations

import os
import stat
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from braniac.infra import fsio
from braniac.vault import stm

import forked
from helpers import assert_clean_error, clean_env

PERSON_FACT = "- The person decided the report goes out on Fridays."


def spawn(code: str, *args: object) -> forked.Forked:
    """`python -c CODE ARGS` as a real process, its stdout and stderr piped."""
    return forked.start(code=textwrap.dedent(code), argv=[str(a) for a in args], env=clean_env(),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for(flag: Path, child: forked.Forked, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not flag.exists():
        if child.poll() is not None:
            out, err = child.communicate()
            raise AssertionError(f"the child ended before {flag.name}: {out}\n{err}")
        assert time.monotonic() < deadline, f"no {flag.name} from the child"
        time.sleep(0.002)


def save_by_rename(path: Path, text: str) -> None:
    """A careful editor's save: the whole text to a file of its own, renamed over the note."""
    temp = path.with_name(f".{path.name}.editor-swap")
    temp.write_text(text, encoding="utf-8")
    os.rename(temp, path)


def with_person_fact(text: str) -> str:
    heading = f"### {stm.FACTS}\n"
    assert heading in text
    return text.replace(heading, heading + PERSON_FACT + "\n", 1)


def cli(*args: object) -> subprocess.CompletedProcess:
    return forked.run([str(a) for a in args], env=clean_env(), timeout=60)


# ------------------------------------------------------------------------------ item 6: check, then replace

# In the child: `remember`, paused just before braniac puts its new short_term.md in place (at
# the rename on today's code, at the exchange where there is one), until the test says go.
PAUSED_REMEMBER = """
    import os, sys, time
    from pathlib import Path
    from braniac import Vault
    from braniac.infra import fsio
    root, flags = sys.argv[1], Path(sys.argv[2])
    vault = Vault(root)
    target = os.path.realpath(vault.stm_path)
    paused = []

    def pause(destination):
        if not paused and os.path.realpath(destination) == target:
            paused.append(True)
            (flags / "paused").touch()
            while not (flags / "go").exists():
                time.sleep(0.001)

    real_replace = os.replace
    def replace(source, destination, *args, **kwargs):
        pause(destination)
        return real_replace(source, destination, *args, **kwargs)
    os.replace = replace
    real_exchange = getattr(fsio, "exchange", None)
    if real_exchange is not None:
        def exchange(a, b):
            pause(b)
            return real_exchange(a, b)
        fsio.exchange = exchange
    print(vault.remember("braniac's own event about the garden").id)
"""


def test_a_save_landing_between_the_check_and_the_replace_is_kept(vault, tmp_path):
    vault.remember("an earlier event about the kitchen")
    flags = tmp_path / "flags"
    flags.mkdir()
    child = spawn(PAUSED_REMEMBER, vault.root, flags)
    wait_for(flags / "paused", child)
    # braniac has read short_term.md, checked it is unchanged, and is about to replace it
    save_by_rename(vault.stm_path, with_person_fact(vault.stm_path.read_text(encoding="utf-8")))
    (flags / "go").touch()
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    text = vault.stm_path.read_text(encoding="utf-8")
    assert PERSON_FACT in text.splitlines()                      # the person's save is kept
    users = [e.fields["User"] for e in stm.parse(text).events]   # and braniac's event is in it too
    assert users == ["braniac's own event about the garden", "an earlier event about the kitchen"]
    assert fsio.stale_temp_files(vault.root) == []
    assert not list(vault.stm_path.parent.glob("*conflict*"))


def test_the_exchange_puts_back_a_save_it_displaced(tmp_path):
    """fsio level: the check happens after the exchange; a save found there goes back."""
    if not fsio.exchange(*_pair(tmp_path)):
        pytest.skip("no renameat2 exchange on this system; the fallback check is used")
    path = tmp_path / "note.md"
    path.write_text("version 1\n", encoding="utf-8")
    before = os.stat(path)
    save_by_rename(path, "the person's version 2\n")
    with pytest.raises(fsio.ConcurrentEdit):
        fsio.atomic_write(path, "braniac's stale rewrite of version 1\n", expect_unchanged=before)
    assert path.read_text(encoding="utf-8") == "the person's version 2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "note.md"]


def _pair(folder: Path) -> tuple[Path, Path]:
    a, b = folder / "a", folder / "b"
    a.write_text("a")
    b.write_text("b")
    return a, b


# ------------------------------------------------------------------------------ item 7: a save in place

def test_an_in_place_save_in_progress_is_waited_for_not_cut_in_half(vault):
    for n in range(60):
        vault.remember(f"event number {n} about the long history of the allotment, with enough words to fill lines")
    old = vault.stm_path.read_text(encoding="utf-8")
    saved = with_person_fact(old)
    data = saved.encode("utf-8")
    chunk = len(data) // 60 + 1
    # an editor saving a large file in place: truncate, then chunks a few ms apart
    with open(vault.stm_path, "r+b") as handle:
        handle.truncate(0)
        handle.write(data[:chunk])
        handle.flush()
        child = forked.start(["--vault", vault.root, "remember", "braniac's event during the save"],
                             env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for start in range(chunk, len(data), chunk):
            time.sleep(0.005)
            handle.write(data[start:start + chunk])
            handle.flush()
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    text = vault.stm_path.read_text(encoding="utf-8")
    doc = stm.parse(text)
    users = [e.fields["User"] for e in doc.events]
    assert users[0] == "braniac's event during the save"
    assert len(users) == 61                         # every old event is still there
    assert PERSON_FACT in text.splitlines()


def test_a_file_braniac_wrote_itself_is_never_waited_for(tmp_path):
    path = tmp_path / "short_term.md"
    fsio.atomic_write(path, "one\n")
    started = time.monotonic()
    for n in range(20):
        fsio.update_text(path, lambda text, n=n: text + f"line {n}\n")
    from braniac.infra.filestate import SETTLE_S
    assert time.monotonic() - started < 20 * SETTLE_S / 2


# ------------------------------------------------------------------------------ item 8: read-only files

@pytest.fixture
def restore_modes():
    """Modes to put back after the test (so the tmp dir can be cleaned up)."""
    changed: list[tuple[Path, int]] = []

    def make_read_only(path: Path) -> None:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        changed.append((path, mode))
        os.chmod(path, mode & ~0o222)

    yield make_read_only
    for path, mode in reversed(changed):
        os.chmod(path, mode)


def test_remember_refuses_a_read_only_short_term_memory(vault, restore_modes):
    vault.remember("an earlier event")
    before = vault.stm_path.read_bytes()
    restore_modes(vault.stm_path)
    result = cli("--vault", vault.root, "remember", "something new")
    assert_clean_error(result, "short_term.md", "read-only")
    assert vault.stm_path.read_bytes() == before
    assert stat.S_IMODE(os.stat(vault.stm_path).st_mode) == 0o444
    assert fsio.stale_temp_files(vault.root) == []


def test_remember_refuses_a_read_only_folder(vault, restore_modes):
    before = vault.stm_path.read_bytes()
    restore_modes(vault.stm_path.parent)
    result = cli("--vault", vault.root, "remember", "something new")
    assert_clean_error(result, "memory", "folder is read-only")
    assert vault.stm_path.read_bytes() == before


def test_ask_keeps_the_exchange_but_leaves_a_read_only_short_term_memory_alone(vault, restore_modes):
    before = vault.stm_path.read_bytes()
    restore_modes(vault.stm_path)
    result = cli("--vault", vault.root, "ask", "what did I plant in the garden?")
    assert "Traceback" not in result.stderr
    assert "read-only" in result.stderr and "short_term.md" in result.stderr
    assert vault.stm_path.read_bytes() == before
    # the exchange waits in the journal until the file is writable again, then is recorded
    os.chmod(vault.stm_path, 0o644)
    result = cli("--vault", vault.root, "ask", "and the roses?")
    assert result.returncode == 0, result.stderr
    users = [e.fields.get("User") for e in vault.read_stm().events]
    assert sorted(users) == ["and the roses?", "what did I plant in the garden?"]
