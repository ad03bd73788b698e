"""States braniac must never leave behind, and data it must never drop (issue 15: "stuck forever",
"data lost"; issue 16 item 3). Each test builds the state a kill, a full disk or an odd file
leaves, with real files, real git and real processes killed at a chosen point (a child that
SIGKILLs itself at a hook: deterministic, not a race), then checks that the next run completes
and that nothing was lost or left uncommitted.
"""
from __future__ import annotations

import re
import signal
import subprocess
import textwrap
from pathlib import Path

import pytest

from braniac import Vault
from braniac.infra.config import load as load_config
from braniac.model.offline import OfflineModel
from braniac.processes.promotion import promote
from braniac.vault import notes

import forked
from helpers import check_healthy, clean_env

EVENTS = "memory/long_term/events"


# ------------------------------------------------------------------------------ helpers

def archived_events(vault: Vault) -> dict[str, str]:
    """event id (the archived event's heading) -> the archived event's body."""
    found = {}
    for path in sorted((vault.root / EVENTS).rglob("*.md")):
        if path.name in ("_index.md", "digest.md"):
            continue
        body = notes.read(path).body
        found[re.match(r"### (\S+)\n", body).group(1)] = body
    return found


def stm_event_ids(vault: Vault) -> list[str]:
    return [e.id for e in vault.read_stm().events]


def with_duplicate_id(vault: Vault, first: str, second: str) -> str:
    """Short-term memory holding `first` and, under the very same id, `second` (a person's paste
    or a merge of two copies of short_term.md); returns the id."""
    event = vault.remember(first)
    text = vault.stm_path.read_text(encoding="utf-8")
    start = text.index(f"### {event.id}")
    copy = text[start:].replace(first, second)
    vault.stm_path.write_text(text + ("" if text.endswith("\n\n") else "\n") + copy, encoding="utf-8")
    assert stm_event_ids(vault) == [event.id, event.id]
    return event.id


def killed_at(root: Path, hook: str, args: list[str], *, setup: str = "") -> int:
    """Run `braniac ARGS` in a real process that SIGKILLs itself when `hook` (module:attribute)
    is called; the exit status (-9 when the hook was reached)."""
    module, name = hook.split(":")
    code = textwrap.dedent(f"""
        import os, signal, sys, importlib
        target = importlib.import_module({module!r})
        def die(*args, **kwargs):
            os.kill(os.getpid(), signal.SIGKILL)
        setattr(target, {name!r}, die)
        {setup}
        from braniac.app.cli import main
        sys.argv = ["braniac", "--vault", {str(root)!r}, *{args!r}]
        main()
    """)
    proc = forked.start(code=code, env=clean_env(), stderr=subprocess.PIPE)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, f"the hook {hook} was never reached: {err}"
    return proc.returncode


def cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    result = forked.run(["--vault", str(root), *args], env=clean_env(), timeout=120)
    assert "Traceback" not in result.stderr, result.stderr
    return result


# ------------------------------------------------------------------------------ 9: one id, two events

def test_two_events_with_one_id_are_both_archived_and_neither_is_lost(vault):
    event_id = with_duplicate_id(vault, "Alice drinks green tea every morning.",
                                 "Bob drinks black coffee every evening.")
    report = promote(vault, OfflineModel(), load_config(vault.root), force=True)
    assert report.status == "done"
    archived = archived_events(vault)
    assert len(archived) == 2, archived
    bodies = "\n".join(archived.values())
    assert "green tea" in bodies and "black coffee" in bodies
    assert event_id in archived                       # the first keeps its id
    other = next(i for i in archived if i != event_id)
    assert other.startswith(event_id[:19]) and f"### {other}\n" in archived[other]
    assert stm_event_ids(vault) == []
    check_healthy(vault)


def test_an_event_whose_id_an_archived_event_has_is_archived_beside_it(vault):
    """A person pastes an old event back with a new text: the archived one is never overwritten."""
    first = vault.remember("The boiler was serviced by Marta on Tuesday.")
    promote(vault, OfflineModel(), load_config(vault.root), force=True)
    before = archived_events(vault)[first.id]
    text = vault.stm_path.read_text(encoding="utf-8")
    vault.stm_path.write_text(text.rstrip("\n") + f"\n\n### {first.id}\n**User:** \"The roof was fixed by Ivo.\"\n",
                              encoding="utf-8")
    promote(vault, OfflineModel(), load_config(vault.root), force=True)
    archived = archived_events(vault)
    assert archived[first.id] == before
    assert any("roof was fixed" in body for body in archived.values())
    assert stm_event_ids(vault) == []


def test_an_archived_event_id_reads_back_as_the_id_it_was_written_as(vault):
    event = vault.remember("The meeting with Priya moved to Thursday.")
    promote(vault, OfflineModel(), load_config(vault.root), force=True)
    path = next(p for p in (vault.root / EVENTS).rglob("*Z.md"))
    assert notes.read(path).meta["event_id"] == event.id     # a string, not a date
    # archives written before: unquoted, YAML reads a date; the text is still the id
    older = notes.parse(f"---\nevent_id: {event.id}\n---\nbody\n")
    assert older.text("event_id") == event.id


def test_a_promotion_killed_after_archiving_two_events_of_one_id_is_finished_once(tmp_path):
    vault, _ = Vault.init(tmp_path / "v")
    with_duplicate_id(vault, "Carla plays the cello on Sundays.", "Dmitri plays chess on Mondays.")
    killed_at(vault.root, "braniac.processes.promotion.run:_finish_short_term", ["promote", "--force"])
    assert len(archived_events(vault)) == 2 and len(stm_event_ids(vault)) == 2
    assert cli(vault.root, "promote", "--force").returncode == 0
    archived = archived_events(vault)
    assert len(archived) == 2 and stm_event_ids(vault) == []
    bodies = "\n".join(archived.values())
    assert bodies.count("Carla plays the cello") == 1 and bodies.count("Dmitri plays chess") == 1
    check_healthy(vault)
