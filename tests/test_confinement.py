"""Nothing read or written outside the vault (issue 15, items 1 and 2): paths braniac derives
from file content (event headings, a model's titles and folders) stay inside the vault, and
symlinks that leave it are never followed, for reads or writes. Real files, real symlinks."""
from __future__ import annotations

import os
import string
from pathlib import Path

import pytest

from braniac import ScriptedModel, Vault
from braniac.infra.errors import NoteError, UnsafePath
from braniac.model import prompts
from braniac.model.types import Candidate, Claim, NoteDraft
from braniac.processes.promotion import idle_for

from helpers import assert_clean_error, run_cli

SECRET = "SECRET-OUTSIDE-THE-VAULT"
OUTSIDE_NOTE = ("---\nuuid: outside-1\ntitle: Ana\ncreated_at: 2025-01-01T00:00:00Z\nupdated_at: 2025-01-01T00:00:00Z\n"
                f"tags: []\nemotion: calm\n---\n# Ana\n\n## Facts\n- {SECRET}\n")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the vault that braniac must never touch."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text(OUTSIDE_NOTE, encoding="utf-8")
    return folder


def listing(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def vault_text(vault: Vault) -> str:
    """Every byte of the vault's files (derived state left out), to look for what leaked in."""
    found = []
    for path in vault.root.rglob("*"):
        if ".braniac" not in path.parts and path.is_file() and not path.is_symlink():
            found.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(found)


def add_hand_written_event(vault: Vault, heading: str, user: str) -> None:
    """A person's event at the bottom of the Event Log, typed in an editor."""
    with vault.stm_path.open("a", encoding="utf-8") as handle:
        handle.write(f"### {heading}\n**User:** \"{user}\"\n\n")


# ------------------------------------------------------------------------------ item 1: event headings

@pytest.mark.parametrize("heading", ["{outside}/pwned", "../../../..", "../../../../outside/x",
                                     "2025-03-06T09:00:00Z/../../../../../outside", "Meeting with Ana"])
def test_an_event_heading_that_is_no_event_id_stays_in_short_term_memory(vault, outside, tmp_path, notices, heading):
    heading = heading.format(outside=outside)
    vault.remember("Carol is a doctor in Lisbon.")
    add_hand_written_event(vault, heading, "Ana lives in Porto and works at Unbabel.")
    before_outside = listing(outside)

    report = vault.promote(force=True)

    assert report.status == "done"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside", "vault"]   # nothing written beside the vault
    assert listing(outside) == before_outside
    doc = vault.read_stm()
    kept = [e for e in doc.events if e.id == heading]
    assert len(kept) == 1 and "Ana lives in Porto" in kept[0].raw   # not consumed: still the person's, verbatim
    assert [e.id for e in doc.events] == [heading]                   # the real event was promoted
    assert heading not in report.events
    assert any(heading[:60] in n and "not an event id" in n for n in notices)
    problems = [f for f in vault.doctor() if f.severity == "problem"]
    assert [(f.path, "not an event id" in f.reason) for f in problems] == [("memory/short_term.md", True)]
    again = vault.promote(force=True)              # a later promotion is not stuck on it either
    assert again.status == "nothing" and [e.id for e in vault.read_stm().events] == [heading]


def test_doctor_names_an_event_heading_that_is_a_path(vault):
    add_hand_written_event(vault, "../../../../tmp/x", "hello")
    result = run_cli("--vault", vault.root, "doctor")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "problem  memory/short_term.md: event heading '### ../../../../tmp/x' is not an event id" in result.stdout


def test_idle_promotion_is_not_blocked_by_a_heading_that_is_no_event_id(vault):
    vault.remember("Carol is a doctor in Lisbon.")
    add_hand_written_event(vault, "Meeting with Ana", "Ana lives in Porto.")
    assert idle_for(vault) is not None   # the real event's age; the other heading has no time


def test_confined_keeps_paths_inside_the_vault(vault, outside):
    ltm = vault.ltm_root
    assert vault.confined("memory/long_term/concrete/x.md") == ltm / "concrete" / "x.md"
    assert vault.confined("memory/long_term/concrete/../skills/y.md", within=ltm) == ltm / "skills" / "y.md"
    os.symlink(outside, ltm / "concrete" / "linked")
    os.symlink("loop.md", ltm / "concrete" / "loop.md")
    (ltm / "concrete" / "inner").mkdir()
    os.symlink("inner", ltm / "concrete" / "alias")   # a symlink that stays inside is fine
    assert vault.confined("memory/long_term/concrete/alias/z.md") == ltm / "concrete" / "alias" / "z.md"
    for bad, within in [("../outside/secret.md", None), (str(outside / "secret.md"), None),
                        ("memory/long_term/events/../../../../outside", None),
                        ("memory/long_term/concrete/linked/new.md", None),
                        ("memory/long_term/concrete/loop.md", None), ("memory/x\x00.md", None),
                        ("memory/short_term.md", ltm), ("memory/long_term/events/x.md", ltm / "concrete")]:
        with pytest.raises(UnsafePath):
            vault.confined(bad, within=within)


# ------------------------------------------------------------------------------ item 1: a model's places

def scripted_draft(folder: list[str], title: str = "Ana") -> tuple[ScriptedModel, str]:
    model = ScriptedModel()
    model.enqueue("analyze", lambda events, titles: [Candidate("concrete", folder, title, [events[0].id])])
    model.enqueue("synthesize", lambda candidate, events, existing: NoteDraft(
        "concrete", folder, title, "Ana, from the meetup.", [Claim("Ana lives in Porto.", [events[0].id])]))
    return model, title


def test_a_draft_in_a_folder_that_is_a_symlink_out_of_the_vault_is_rejected(vault, outside):
    os.symlink(outside, vault.ltm_root / "concrete" / "people")
    vault.remember("Ana lives in Porto.")
    before = listing(outside)
    model, _ = scripted_draft(["people"])

    report = vault.promote(force=True, model=model)

    assert listing(outside) == before
    assert any("Ana" in r and "leaves" in r for r in report.rejected), report.rejected
    # the events are archived all the same, and what they state reaches a note of the offline
    # engine's (places/porto.md), never one in the folder that leaves the vault
    assert report.events and not any("/people/" in n for n in report.notes_created), report.notes_created


def test_a_note_that_is_a_symlink_out_of_the_vault_is_never_read_or_copied(vault, outside):
    os.symlink(outside / "secret.md", vault.ltm_root / "concrete" / "ana.md")
    vault.remember("Ana lives in Porto.")
    before = listing(outside)
    model, _ = scripted_draft([])

    report = vault.promote(force=True, model=model)

    assert listing(outside) == before
    assert SECRET not in vault_text(vault)
    assert (vault.ltm_root / "concrete" / "ana.md").is_symlink()   # the person's link is left as it was
    assert report.rejected


# ------------------------------------------------------------------------------ item 2: symlinks out

def test_an_identity_that_is_a_symlink_out_of_the_vault_is_never_sent_to_a_model(vault, outside):
    vault.identity_path.unlink()
    os.symlink(outside / "secret.md", vault.identity_path)
    model = ScriptedModel()
    with pytest.raises(UnsafePath, match="core_identity.md: leaves the vault"):
        vault.ask("Who am I?", model=model)
    assert SECRET not in repr(model.history)
    result = run_cli("--vault", vault.root, "ask", "Who am I?")
    assert_clean_error(result, "core_identity.md", "leaves the vault")
    assert SECRET not in result.stdout


def test_a_prompt_override_that_is_a_symlink_out_of_the_vault_falls_back_to_the_packaged_one(vault, outside, notices):
    (vault.root / "prompts").mkdir(exist_ok=True)
    os.symlink(outside / "secret.md", vault.root / "prompts" / "answer.md")
    packaged = prompts.template_path("answer")
    assert prompts.template_path("answer", vault.root) == packaged
    names = string.Template(packaged.read_text(encoding="utf-8")).get_identifiers()
    text = prompts.render("answer", vault.root, **{name: "x" for name in names})
    assert SECRET not in text
    assert any("prompts/answer.md" in n and "leaves the vault" in n for n in notices)


def test_a_symlinked_short_term_memory_leaving_the_vault_is_refused(vault, outside):
    moved = outside / "stm.md"
    vault.stm_path.rename(moved)
    os.symlink(moved, vault.stm_path)
    before = listing(outside)
    result = run_cli("--vault", vault.root, "remember", "hello")
    assert_clean_error(result, "short_term.md", "leaves the vault")
    assert listing(outside) == before
    problems = [f for f in vault.doctor() if f.severity == "problem"]
    assert any(f.path == "memory/short_term.md" and "leaves the vault" in f.reason for f in problems)


def test_reading_refuses_a_symlink_out_but_follows_one_inside(vault, outside):
    from braniac.infra.fsio import read_text
    inner = vault.ltm_root / "concrete" / "inner.md"
    inner.write_text("inside\n", encoding="utf-8")
    os.symlink(inner, vault.ltm_root / "concrete" / "alias.md")
    os.symlink(outside / "secret.md", vault.ltm_root / "concrete" / "out.md")
    os.symlink(outside, vault.root / "system" / "linked")
    assert read_text(vault.ltm_root / "concrete" / "alias.md") == "inside\n"
    for path in (vault.ltm_root / "concrete" / "out.md", vault.root / "system" / "linked" / "secret.md"):
        with pytest.raises(UnsafePath, match="leaves the vault"):
            read_text(path)
    assert isinstance(UnsafePath("x"), NoteError)


@pytest.mark.parametrize("command", [["doctor"], ["stats"], ["organize"], ["search", "ana"]])
def test_symlink_loops_crash_no_command(vault, command):
    concrete = vault.ltm_root / "concrete"
    os.symlink("loop.md", concrete / "loop.md")
    os.symlink("b.md", concrete / "a.md")
    os.symlink("a.md", concrete / "b.md")
    os.symlink(".", concrete / "again")             # a folder that contains itself
    os.symlink("spin", concrete / "spin")           # a folder link that loops
    result = run_cli("--vault", vault.root, *command, timeout=60)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1), result.stderr
    if command == ["doctor"]:
        assert "problem  memory/long_term/concrete/loop.md: symlink loop; braniac cannot read it" in result.stdout


def test_promotion_writes_into_a_folder_holding_a_loop_a_fifo_and_a_symlink_out(vault, outside):
    people = vault.ltm_root / "concrete" / "people"
    people.mkdir()
    os.symlink("loop.md", people / "loop.md")
    os.mkfifo(people / "pipe.md")
    os.symlink(outside / "secret.md", people / "out.md")
    vault.remember("Ana lives in Porto.")
    model, _ = scripted_draft(["people"])

    report = vault.promote(force=True, model=model)

    assert report.notes_created == ["memory/long_term/concrete/people/ana.md"]
    manifest = (people / "_index.md").read_text(encoding="utf-8")
    assert "ana.md" in manifest and not any(name in manifest for name in ("loop.md", "pipe.md", "out.md"))
    assert SECRET not in vault_text(vault)


def test_a_braniac_toml_that_is_a_fifo_or_a_symlink_out_is_a_clear_error(vault, outside):
    config = vault.root / "braniac.toml"
    config.unlink(missing_ok=True)
    os.mkfifo(config)
    assert_clean_error(run_cli("--vault", vault.root, "ask", "hello", timeout=30), "braniac.toml", "not a regular file")
    config.unlink()
    (outside / "braniac.toml").write_text('[model]\nname = "offline"\n', encoding="utf-8")
    os.symlink(outside / "braniac.toml", config)
    assert_clean_error(run_cli("--vault", vault.root, "ask", "hello", timeout=30), "braniac.toml", "leaves the vault")
