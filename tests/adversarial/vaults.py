"""Starting vaults for the adversarial scenarios: git vaults (`init --git`, so git.autocommit is
on) with work pending for every worker: events for promotion, notes three folders deep with an
access log of co-reads for organization (tests/test_organize_faults.py's vault), notes a
promotion already wrote about the topics the talk keeps returning to."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from runner import Sandbox

TALK = [
    "Ana moved to Lisbon last month and loves the tram rides there.",
    "My sister Maria works at the hospital in Porto as a nurse.",
    "We visited Sintra on Saturday and the palace gardens were beautiful.",
    "I started using Obsidian for my notes and the graph view is useful.",
    "Remind me to call the dentist on Friday.",
    "Ana adopted a grey cat called Pixel who sleeps all day.",
    "Maria said the night shifts at the hospital in Porto are exhausting.",
    "I baked sourdough bread with rye flour and the crust came out perfect.",
    "Tomas lives in Lisbon with his two cats.",
    "I ran ten kilometres along the river in fifty two minutes.",
    "The Lisbon conference is about distributed systems and starts in May.",
    "Remind me to buy new running shoes next week.",
]
QUESTIONS = ["where does Ana live?", "what does Maria do in Porto?", "how did the sourdough go?",
             "what is the Lisbon conference about?", "who is Tomas?", "what did we see in Sintra?"]


def quick_config(root: Path, promote_minutes: float | None = None, organize_minutes: float | None = None) -> None:
    """Idle timers short enough that `watch` and `chat` promote and organize during a run."""
    path = root / "braniac.toml"
    text = path.read_text(encoding="utf-8")
    if promote_minutes is not None:
        text = re.sub(r"^#? ?promote_after_minutes = .*$", f"promote_after_minutes = {promote_minutes}", text, flags=re.M)
    if organize_minutes is not None:
        text = re.sub(r"^#? ?organize_after_minutes = .*$", f"organize_after_minutes = {organize_minutes}", text,
                      flags=re.M)
    path.write_text(text, encoding="utf-8")


def git_vault(box: Sandbox, *, organize_work: bool = True, events: int = 12, promoted: int = 8,
              use_git: bool = True) -> dict[str, str]:
    """A git vault in `box.vault` built with the real CLI: (optionally) the organize fault vault's
    notes and access log, `promoted` events already promoted, then `events` more in short-term
    memory. Returns the acknowledged events (id -> text) in short-term memory."""
    if organize_work:
        from test_organize_faults import build_fault_vault
        build_fault_vault(box.vault)
    run = box.run("init", *(["--git"] if use_git else []), "--force", str(box.vault), record=False)
    assert run.returncode == 0, run.describe()
    talk = [TALK[i % len(TALK)] for i in range(promoted + events)]
    for line in talk[:promoted]:
        remember(box, line)
    if promoted:
        run = box.run("promote", "--force", record=False)
        assert run.returncode == 0, run.describe()
    acked = {}
    for line in talk[promoted:]:
        event_id = remember(box, line)
        acked[event_id] = line
    return acked


def remember(box: Sandbox, text: str) -> str:
    run = box.run("remember", text, record=False)
    match = re.search(r"remembered as event (\S+)", run.stdout)
    assert run.returncode == 0 and match, run.describe()
    return match.group(1)


def clone(source: Sandbox, target: Sandbox) -> None:
    """The source's vault copied into the target sandbox (symlinks kept as symlinks)."""
    shutil.copytree(source.vault, target.vault, symlinks=True)
