"""Promotion (vault-format.md §10.4, §6, §5.2, §10.1): short-term memory consolidated into
cited long-term notes, run in-process with the offline engine and through the real CLI.

Every check reads the files themselves (manifests, citation links, frontmatter) with its own
small parsers, so a bug in braniac's readers cannot hide a bug in its writers.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml

from braniac import ScriptedModel, Vault
from braniac.infra import clock
from braniac.vault import stm
from braniac.infra.config import load as load_config
from braniac.model.offline import OfflineModel
from braniac.processes.promotion import promote
from braniac.processes.reflection import Reflector

from helpers import REPO, canonical_uuids, check_healthy, clean_env, run_cli

T0 = datetime(2025, 3, 2, 9, 0, tzinfo=timezone.utc)
OLD_SUMMARY = "An old summary from before this promotion: nothing about anyone yet."
EVENT_ID = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z"
CITATION = re.compile(rf"\[({EVENT_ID})\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
LINK = re.compile(r"\[((?:[^\[\]\\]|\\.)*)\]\(([^)\s]+)(?:\s+\"uuid:([^\"]+)\")?\)")
REPORT_KEYS = {"status", "reason", "events", "notes_created", "notes_updated", "claims", "rejected", "files",
               "plan", "commit"}

# Several topics over two days: people (Ana speaking, Maria mentioned), places, a tool, a
# how-to answer with numbered steps in the AI field, a task that stays open and one completed.
SCENARIO = [
    (0, "Ana: I moved to Lisbon last month and I love the tram rides there.", "That sounds wonderful!"),
    (5, "My sister Maria works at the hospital in Porto as a nurse.", "Noted."),
    (30, "Remind me to send the quarterly report to Maria.", "I will remind you."),
    (60 * 24, "We visited Sintra on Saturday and the palace gardens were beautiful.", "Sintra is lovely."),
    (60 * 25, "I started using Obsidian for my notes and the graph view is really useful.", "Obsidian is a great tool."),
    (60 * 26, "How do I train a neural network classifier?",
     "Here are the steps:\n1. Collect and label a training dataset.\n2. Split it into training and validation sets.\n"
     "3. Train the model with gradient descent.\n4. Evaluate accuracy on the validation set."),
    (60 * 27, "Remind me to call the dentist on Friday.", "I'll remember."),
    (60 * 28, "I finished the quarterly report for Maria today.", "Well done!"),
]


# ------------------------------------------------------------------------------ helpers

def fill(vault: Vault, scenario=SCENARIO, start: datetime = T0) -> list[str]:
    """Record each exchange through the real reflection path (offline engine); returns the ids."""
    reflector = Reflector(vault, OfflineModel())
    return [reflector.reflect_now(user, ai, at=start + timedelta(minutes=minutes)).id
            for minutes, user, ai in scenario]


def set_summary(vault: Vault, text: str) -> None:
    doc = vault.read_stm()
    block = doc.block(stm.SUMMARY)
    block.raw = f"## {stm.SUMMARY}\n{text}\n\n---\n"
    vault.stm_path.write_text(doc.render(), encoding="utf-8")


def frontmatter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), path
    return yaml.safe_load(text.split("\n---\n", 1)[0][4:]) or {}


def section(text: str, name: str) -> list[str]:
    """The lines of one `## name` section (to the next `## `), blank lines dropped."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = line[3:].strip() == name
            continue
        if inside and line.strip():
            out.append(line)
    return out


def ltm_notes(vault: Vault, tiers=("concrete", "skills")) -> list[Path]:
    return sorted(p for tier in tiers for p in (vault.ltm_root / tier).rglob("*.md") if p.name != "_index.md")


def archived(vault: Vault) -> dict[str, list[Path]]:
    """event id -> archived files holding it (events/YYYY/MM/DD/<id>.md, digests left out)."""
    found: dict[str, list[Path]] = {}
    for path in (vault.ltm_root / "events").rglob("*.md"):
        if path.name in ("_index.md", "digest.md"):
            continue
        for event_id in re.findall(rf"^### ({EVENT_ID})[ \t]*$", path.read_text(encoding="utf-8"), re.M):
            found.setdefault(event_id, []).append(path)
    return found


def stm_ids(vault: Vault) -> list[str]:
    text = vault.stm_path.read_text(encoding="utf-8")
    log = text.split("\n## Event Log", 1)[1] if "\n## Event Log" in text else ""
    return re.findall(rf"^### ({EVENT_ID})[ \t]*$", log, re.M)


def check_manifests(vault: Vault) -> None:
    """Every LTM folder has an _index.md whose Manifest lists every file and subfolder exactly
    once, and nothing else."""
    folders = [vault.ltm_root, *(p for p in vault.ltm_root.rglob("*") if p.is_dir() and not p.name.startswith("."))]
    for folder in folders:
        index = folder / "_index.md"
        assert index.is_file(), f"{folder} has no _index.md"
        text = index.read_text(encoding="utf-8")
        listed = []
        for line in section(text, "Manifest"):
            match = LINK.search(line)
            if match:
                listed.append((folder / unquote(match.group(2))).resolve())
        expected = [(p / "_index.md").resolve() if p.is_dir() else p.resolve() for p in folder.iterdir()
                    if not p.name.startswith(".") and p.name != "_index.md" and (p.is_dir() or p.suffix == ".md")]
        assert len(listed) == len(set(listed)), f"{index}: an entry is listed twice"
        assert sorted(listed) == sorted(expected), (index, sorted(listed), sorted(expected))


def check_citations(vault: Vault) -> dict[Path, set[str]]:
    """Every citation in every concrete/skill note and digest resolves to the archived event
    file holding that event's `### <id>` heading; `sources` lists exactly the cited ids."""
    cited_by: dict[Path, set[str]] = {}
    digests = list((vault.ltm_root / "events").rglob("digest.md"))
    for path in ltm_notes(vault) + digests:
        text = path.read_text(encoding="utf-8")
        body = text.split("\n---\n", 1)[1]
        ids = set()
        for event_id, target in CITATION.findall(body):
            file = (path.parent / unquote(target)).resolve()
            assert file.is_file(), f"{path}: citation {event_id} -> {target} does not resolve"
            assert file.is_relative_to((vault.ltm_root / "events").resolve()), (path, target)
            assert re.search(rf"^### {re.escape(event_id)}[ \t]*$", file.read_text(encoding="utf-8"), re.M), \
                f"{file} does not hold event {event_id}"
            ids.add(event_id)
        for line in section(text, "Facts") + section(text, "History"):
            if line.startswith("- "):
                assert CITATION.search(line), f"{path}: claim without a citation: {line}"
        assert set(frontmatter(path).get("sources") or []) == ids, path
        cited_by[path] = ids
    return cited_by


def check_no_duplicates(vault: Vault) -> None:
    """No two notes with one title in a folder, no -2 copies, no claim line twice in a note."""
    for folder in {p.parent for p in ltm_notes(vault)}:
        titles = [frontmatter(p).get("title") for p in folder.glob("*.md") if p.name != "_index.md"]
        assert len(titles) == len(set(titles)), (folder, titles)
    for path in ltm_notes(vault) + list((vault.ltm_root / "events").rglob("digest.md")):
        assert not re.search(r"-\d+$", path.stem), f"duplicate-looking note {path}"
        text = path.read_text(encoding="utf-8")
        claims = [claim_text(line) for line in section(text, "Facts") + section(text, "History")]
        assert len(claims) == len(set(claims)), f"{path}: a claim is there twice"


def claim_text(line: str) -> str:
    """A claim line without its trailing citation group."""
    return re.sub(r"\s*\((?:\[[^\]]+\]\([^)]*\)(?:,\s*)?)+\)\s*$", "", line).strip()


def facts_of(path: Path) -> list[str]:
    return [l for l in section(path.read_text(encoding="utf-8"), "Facts") if l.startswith("- ")]


def rel(vault: Vault, path: Path) -> str:
    return path.relative_to(vault.ltm_root).as_posix()


def tree_bytes(root: Path, skip=(".braniac",)) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.relative_to(root).parts[0] not in skip}


@pytest.fixture
def filled(tmp_path) -> tuple[Vault, list[str]]:
    vault, _ = Vault.init(tmp_path / "vault")
    set_summary(vault, OLD_SUMMARY)
    return vault, fill(vault)


# ------------------------------------------------------------------------------ what a promotion writes

def check_scenario_promoted(vault: Vault, ids: list[str]) -> None:
    notes = {rel(vault, p) for p in ltm_notes(vault)}
    # sensible places: people, places, the tool as a topic, the how-to as a skill
    for expected in ("concrete/people/ana.md", "concrete/people/maria.md", "concrete/places/lisbon.md",
                     "concrete/places/porto.md", "concrete/places/sintra.md", "concrete/topics/obsidian.md",
                     "skills/how-to-train-a-neural-network-classifier.md"):
        assert expected in notes, (expected, sorted(notes))
    assert not any(n.rsplit("/", 1)[-1] in ("remind.md", "friday.md", "we.md", "i.md") for n in notes), notes
    skill = vault.ltm_root / "skills/how-to-train-a-neural-network-classifier.md"
    steps = [re.sub(r"\s*\(\[.*$", "", l) for l in facts_of(skill)]
    assert steps == ["- Step 1: Collect and label a training dataset.",
                     "- Step 2: Split it into training and validation sets.",
                     "- Step 3: Train the model with gradient descent.",
                     "- Step 4: Evaluate accuracy on the validation set."]
    assert any("Lisbon" in l and ids[0] in l for l in facts_of(vault.ltm_root / "concrete/people/ana.md"))
    assert any("nurse" in l for l in facts_of(vault.ltm_root / "concrete/people/maria.md"))
    for path in ltm_notes(vault):
        meta = frontmatter(path)
        assert {"uuid", "created_at", "updated_at", "tags", "emotion", "title", "sources"} <= set(meta), path

    check_manifests(vault)
    cited = check_citations(vault)
    assert set().union(*cited.values()) <= set(ids)
    check_no_duplicates(vault)

    # every event archived verbatim exactly once, none left in the Event Log
    found = archived(vault)
    assert sorted(found) == sorted(ids) and all(len(v) == 1 for v in found.values())
    for minutes, user, _ in SCENARIO:
        event_id = clock.iso(T0 + timedelta(minutes=minutes))
        assert user in found[event_id][0].read_text(encoding="utf-8")
    doc = vault.read_stm()
    assert doc.events == [] and stm_ids(vault) == []
    assert doc.summary and doc.summary != OLD_SUMMARY and "Nothing has been consolidated" not in doc.summary
    assert doc.missing_sections() == []

    # the open tasks survive unchecked; the completed one left the list for the day digest
    tasks = doc.items(stm.TASKS)
    assert [(t.text, t.done) for t in tasks] == [("call the dentist on Friday", False)], tasks
    last_day = clock.iso(T0 + timedelta(minutes=SCENARIO[-1][0]))[:10]
    digest = vault.ltm_root / "events" / last_day[:4] / last_day[5:7] / last_day[8:10] / "digest.md"
    done = [l for l in facts_of(digest) if "task done: send the quarterly report to Maria" in l]
    assert len(done) == 1 and CITATION.search(done[0]), facts_of(digest)
    assert "call the dentist" in doc.summary  # the open task is named in the new summary
    assert vault.doctor() == []                  # not even a warning


def test_offline_promotion_writes_cited_notes_in_sensible_places(filled):
    vault, ids = filled
    before = vault.read_stm()
    assert [(t.text, t.done) for t in before.items(stm.TASKS)] == [
        ("send the quarterly report to Maria", True), ("call the dentist on Friday", False)]
    report = promote(vault, OfflineModel(), load_config(vault.root), force=True)
    assert report.status == "done", report
    assert sorted(report.events) == sorted(ids) and report.rejected == []
    assert report.claims["added"] > 0 and report.notes_created
    check_scenario_promoted(vault, ids)
    # the report names exactly the files that exist and were written
    assert all((vault.root / f).is_file() for f in report.files)
    assert "memory/short_term.md" in report.files


def test_short_facts_a_person_states_reach_a_note_and_small_talk_does_not(tmp_path):
    """"My manager is Priya." has two words of substance, and is what a person expects their
    memory to keep: short statements of the person's own, or of someone named, are claims;
    "Congrats on the trophy!" and "My pleasure, Mel." are small talk, whatever their words."""
    vault, _ = Vault.init(tmp_path / "vault")
    said = ["My manager is Priya.", "Priya approved my vacation.", "My dentist is Dr Silva.",
            "Dr Silva said my teeth are fine.", "My doctor raised the lisinopril to 20 mg.",
            "Congrats on the trophy, Priya!", "My pleasure, Priya."]
    for n, text in enumerate(said):
        with clock.frozen(T0 + timedelta(minutes=n)):
            vault.remember(text)
    with clock.frozen(T0 + timedelta(hours=12)):
        vault.promote(force=True)
    priya = vault.ltm_root / "concrete/people/priya.md"
    assert [re.sub(r"^- \S+ — | \(\[.*$", "", f) for f in facts_of(priya)] == said[:2]
    assert (vault.ltm_root / "concrete/people/silva.md").is_file()   # "Dr Silva", as "Dr. Silva", is Silva
    assert "trophy" not in priya.read_text(encoding="utf-8") and "pleasure" not in priya.read_text(encoding="utf-8")
    from braniac.model.offline.promotion import is_claim
    assert not is_claim("") and not is_claim("   ")   # a blank sentence is none (and no error)


@pytest.mark.parametrize("said, expected", [
    # a role says a person ("my accountant Greg"), and so does what people do ("Greg agreed")
    (["Taxes are due April 15th and my accountant Greg is handling them.",
      "Greg agreed to file the extension for my taxes."], "concrete/people/greg.md"),
    # one person said in full, then by first name: one note, under the full name
    (["My manager is Priya Shah and she runs the platform group.", "Priya said the reorg is happening in April.",
      "I sent Priya the hiring plan for next quarter."], "concrete/people/priya-shah.md"),
    # a title's full stop ends no sentence: "Brown" after "Dr." is a name, though a word too
    (["Dr. Brown says my knee is healing well.", "Dr. Brown wants another scan in March."], "concrete/people/brown.md"),
    # a role said of two: both are people
    (["My in-laws Robert and Helen are staying with us for two weeks.", "Helen brought her famous lemon cake."],
     "concrete/people/helen.md"),
    # a thing moved in time is no person: "Standup moved to 10:00" (a name no dictionary has)
    (["Standup moved to 10:00 starting Monday for the whole team.",
      "Standup ran long again because of the release discussion."], "concrete/topics/standup.md"),
    # a title with or without its full stop: one person
    (["Dr. Silva said my blood tests look good.", "Dr Silva prescribed a lower dose of lisinopril."],
     "concrete/people/silva.md"),
    # a hyphenated name is found as written in its claims
    (["Jean-Luc is the new sommelier at the wine bar.", "Jean-Luc recommended a Douro red for the dinner."],
     "concrete/topics/jean-luc.md"),
])
def test_a_person_is_one_note_named_as_said(tmp_path, said, expected):
    vault, _ = Vault.init(tmp_path / "vault")
    for n, text in enumerate(said):
        with clock.frozen(T0 + timedelta(minutes=n)):
            vault.remember(text)
    with clock.frozen(T0 + timedelta(hours=12)):
        vault.promote(force=True)
    notes = sorted(rel(vault, p) for p in ltm_notes(vault))
    assert expected in notes, notes
    name = Path(expected).stem.split("-")[0]
    assert [n for n in notes if Path(n).stem.startswith(name)] == [expected], notes   # no second note of them
    assert len(facts_of(vault.ltm_root / expected)) == len(said)


STEPS = "Here is how:\n1. Install the SDK.\n2. Set the DSN in the environment.\n3. Deploy and check the dashboard."


def test_a_skill_is_titled_by_the_task_its_question_asks_not_the_rest_of_the_message(tmp_path):
    vault, _ = Vault.init(tmp_path / "vault")
    ids = fill(vault, [
        (0, "I'm adding error tracking to my portfolio site. How can I properly configure Sentry with Netlify "
            "Analytics, considering I've never used either of them and my deadline is April 1, 2024?", STEPS),
        (1, "How do I apply the SSS, SAS, and ASA criteria to prove triangle congruence - can you help me with that?",
         STEPS),
        (2, "How should I make sure that my indexes are being used correctly and that my queries are optimized "
            "for performance on the reports page?", STEPS),
        (3, "How can I ensure the `transactions` query always returns a list?\n```python\nrows = db.all()\n```", STEPS),
        (4, "Thanks, that worked. How do I fix it?", STEPS),            # names nothing: no skill note
        (5, "How can I make sure I'm doing it right?", STEPS),
        (6, "How do I fix `TypeError: cannot read property` in my React app?", STEPS),
        (7, "How can I convince my manager Dr. Smith to approve the budget?", STEPS)])
    promote(vault, OfflineModel(), load_config(vault.root), force=True)
    titles = sorted(frontmatter(p)["title"] for p in ltm_notes(vault, tiers=("skills",)))
    assert titles == ["How to apply the SSS, SAS, and ASA criteria to prove triangle congruence",
                      "How to convince my manager",
                      "How to ensure the `transactions` query always returns a list",
                      "How to fix `TypeError: cannot read property` in my React app",
                      "How to make sure that my indexes are being used correctly",
                      "How to properly configure Sentry with Netlify Analytics"], titles
    assert len(archived(vault)) == len(ids)   # the steps of "How do I fix it?" stay in its archived event


PLAN = """Here is a plan:

### 1. **Set Clear Time Limits**
- **Time Blocks**: Give the database 30 minutes a day. More than that eats writing time.
- **Timers**: Set a timer for each session.

### 2. **Prioritize Writing**
- **Writing First**: Write before you touch the database.

### Example Plan
1. **Set Clear Time Limits**:
   - Allocate time blocks.
2. **Prioritize Writing**:
   - Write first.
"""


def test_a_skill_reads_the_steps_once_and_a_second_answer_adds_its_own(tmp_path):
    """Steps that are headings ("### 1. **Set Clear Time Limits**") are steps, the "Example
    Plan" that repeats them is not read again, and the steps of a second answer
    to the same question are added beside the first: "Step 2" of one answer does not supersede
    "Step 5" of another, they are places in two lists; a step said again strengthens."""
    vault, _ = Vault.init(tmp_path / "vault")
    fill(vault, [(0, "How do I keep the Notion database from eating my writing time?", PLAN)])
    promote(vault, OfflineModel(), load_config(vault.root), force=True)
    skill = vault.ltm_root / "skills/how-to-keep-the-notion-database-from-eating-my-writing-time.md"
    steps = [re.sub(r"\s*\(\[.*$", "", l) for l in facts_of(skill)]
    assert steps == ["- Step 1: Set Clear Time Limits", "- Step 2: Prioritize Writing"], steps
    fill(vault, [(0, "How do I keep the Notion database from eating my writing time?",
                  "1. Track your time with a timer.\n2. Review the week on Sunday.\n3. Set clear time limits.\n"
                  "4. Keep the database simple.\n5. Set Strict Time Limits")],
         start=T0 + timedelta(days=1))
    promote(vault, OfflineModel(), load_config(vault.root), force=True)
    text = skill.read_text(encoding="utf-8")
    facts = facts_of(skill)
    # four new steps beside the first answer's two ("Set Strict Time Limits" is another step,
    # not a changed value of "Set Clear Time Limits"); "Set clear time limits." restates a step
    assert "superseded" not in text and len(facts) == 6, text
    assert facts[0].startswith("- Step 1: Set Clear Time Limits") and facts[0].count("2025-03-0") == 4, facts


def test_cli_promote_writes_the_same_vault(filled):
    vault, ids = filled
    result = run_cli("--vault", vault.root, "promote", "--force")
    assert result.returncode == 0, result.stderr
    assert re.match(rf"promoted {len(ids)} events: \d+ new notes", result.stdout), result.stdout
    check_scenario_promoted(vault, ids)
    doctor = run_cli("--vault", vault.root, "doctor")
    assert doctor.returncode == 0 and doctor.stdout.strip().endswith("healthy"), doctor.stdout
    again = run_cli("--vault", vault.root, "promote", "--force")
    assert again.returncode == 0 and again.stdout.startswith("promotion nothing"), again.stdout


def test_cli_and_library_promotions_write_identical_notes(tmp_path):
    """The engine is deterministic: the same events give the same notes, path for path."""
    bodies = []
    for name, how in (("a", "lib"), ("b", "cli")):
        vault, _ = Vault.init(tmp_path / name)
        fill(vault)
        if how == "lib":
            promote(vault, OfflineModel(), load_config(vault.root), force=True)
        else:
            assert run_cli("--vault", vault.root, "promote", "--force").returncode == 0
        bodies.append({rel(vault, p): p.read_text(encoding="utf-8").split("\n---\n", 1)[1]
                       for p in ltm_notes(vault, ("concrete", "skills", "events"))})
    assert canonical_uuids(bodies[0]) == canonical_uuids(bodies[1])


# ------------------------------------------------------------------------------ merging

def test_second_promotion_of_the_same_facts_only_adds_citations(filled):
    vault, first_ids = filled
    config = load_config(vault.root)
    promote(vault, OfflineModel(), config, force=True)
    notes_before = {rel(vault, p): facts_of(p) for p in ltm_notes(vault)}
    # the same things said again three days later
    second_ids = fill(vault, start=T0 + timedelta(days=3))
    report = promote(vault, OfflineModel(), config, force=True)
    assert report.status == "done" and report.notes_created == [], report.notes_created
    # "I finished the quarterly report for Maria today", said again three days later, is said of
    # another day: a claim of its own with that day; every other restatement adds a citation
    assert report.claims["added"] == 1 and report.claims["strengthened"] > 0, report.claims
    notes_after = {rel(vault, p): facts_of(p) for p in ltm_notes(vault)}
    assert set(notes_after) == set(notes_before)
    again = [line for lines in notes_after.values() for line in lines if "today (2025-03-06)" in line]
    assert len(again) == 1 and "quarterly report" in again[0] and second_ids[-1] in again[0], again
    notes_after = {path: [line for line in lines if line not in again] for path, lines in notes_after.items()}
    pairs = dict(zip(first_ids, second_ids))
    for path, lines in notes_after.items():
        assert len(lines) == len(notes_before[path]), path      # no new claim lines
        for old, new in zip(notes_before[path], lines):
            assert claim_text(old) == claim_text(new)
            old_ids = [i for i, _ in CITATION.findall(old)]
            new_ids = [i for i, _ in CITATION.findall(new)]
            assert new_ids[: len(old_ids)] == old_ids            # old citations kept, in order
            if "today (" not in new:
                assert set(new_ids) - set(old_ids) == {pairs[i] for i in old_ids}, (path, new)  # the restatement
    check_manifests(vault)
    check_citations(vault)
    check_no_duplicates(vault)
    assert sorted(archived(vault)) == sorted(first_ids + second_ids)
    check_healthy(vault)


@pytest.mark.parametrize("first, second", [
    ("My friend Tomas lives in Lisbon with his two cats.", "My friend Tomas lives in Porto now, near the river."),
    ("My friend Tomas lives in Lisbon with his two cats.", "Tomas lives in Porto now, near the river."),
])
def test_contradicting_fact_supersedes_and_keeps_the_old_claim_in_history(tmp_path, first, second):
    vault, _ = Vault.init(tmp_path / "vault")
    config = load_config(vault.root)
    reflector = Reflector(vault, OfflineModel())
    old = reflector.reflect_now(first, "Noted.", at=T0).id
    promote(vault, OfflineModel(), config, force=True)
    new = reflector.reflect_now(second, "Noted.", at=T0 + timedelta(days=3)).id
    report = promote(vault, OfflineModel(), config, force=True)
    assert report.claims["superseded"] == 1, report.claims
    note = vault.ltm_root / "concrete/people/tomas.md"
    text = note.read_text(encoding="utf-8")
    facts = facts_of(note)
    assert len(facts) == 1 and "Porto" in facts[0] and new in facts[0], facts
    history = [l for l in section(text, "History") if l.startswith("- ")]
    assert len(history) == 1, history
    assert "Lisbon" in history[0] and f"superseded on {new[:10]}" in history[0] and old[:10] in history[0]
    assert [i for i, _ in CITATION.findall(history[0])] == [old]
    assert set(frontmatter(note)["sources"]) == {old, new}
    check_citations(vault)
    check_healthy(vault)


def test_a_note_that_states_the_old_value_gets_the_new_one_and_keeps_the_old_as_history(tmp_path):
    """One promotion, two statements of the staging port: the old one goes into notes the new one
    is not about (PostgreSQL). No note keeps the old port as current."""
    vault, _ = Vault.init(tmp_path / "vault")
    config = load_config(vault.root)
    reflector = Reflector(vault, OfflineModel())
    old = reflector.reflect_now("The staging database for braniac runs PostgreSQL on port 5432.", "Noted.", at=T0).id
    new = reflector.reflect_now("The staging database moved: it now runs on port 5433.", "Noted.",
                                at=T0 + timedelta(minutes=20)).id
    promote(vault, OfflineModel(), config, force=True)
    holding = [p for p in (vault.ltm_root / "concrete").rglob("*.md") if p.name != "_index.md"
               and "5432" in p.read_text(encoding="utf-8")]
    assert len(holding) >= 2, holding          # the PostgreSQL note and the staging database's
    for note in holding:
        facts = facts_of(note)
        assert not [f for f in facts if "5432" in f], (note, facts)
        assert [f for f in facts if "5433" in f and new in f], (note, facts)
        history = [l for l in section(note.read_text(encoding="utf-8"), "History") if "5432" in l]
        assert len(history) == 1 and f"superseded on {new[:10]}" in history[0] and old in history[0], history
    check_citations(vault)
    check_healthy(vault)


@pytest.mark.parametrize("apart", [True, False], ids=["two promotions", "one promotion"])
def test_a_value_restated_in_other_words_as_changed_supersedes_and_another_things_value_does_not(tmp_path, apart):
    """What the real-model bench found both engines missing: the newer statement shares too few
    words with the old one for a restatement, but names the same thing by the same word before
    its value and says it changed. A note holding both keeps the old one as dated history, and
    the working memory brings the new one first and labels the old one, whichever notes hold
    them. Another team's room, stated once, stays a value of its own."""
    vault, _ = Vault.init(tmp_path / "vault")
    config = load_config(vault.root)
    reflector = Reflector(vault, OfflineModel())
    old = reflector.reflect_now("The staging database for braniac runs PostgreSQL on port 5432.", "Noted.", at=T0).id
    reflector.reflect_now("The design team of braniac meets in room 12 on Mondays.", "Noted.",
                          at=T0 + timedelta(minutes=1))
    if apart:
        promote(vault, OfflineModel(), config, force=True)
    new = reflector.reflect_now("The staging database of braniac moved: it now runs on port 5433.", "Noted.",
                                at=T0 + timedelta(days=2)).id
    reflector.reflect_now("The sales team of braniac now meets in room 14 on Mondays.", "Noted.",
                          at=T0 + timedelta(days=2, minutes=1))
    promote(vault, OfflineModel(), config, force=True)
    for path in ltm_notes(vault):     # no note states both ports as current
        assert not {"5432", "5433"} <= set(re.findall(r"\b543[23]\b", " ".join(facts_of(path)))), path.name
    if not apart:
        history = [line for p in ltm_notes(vault) for line in section(p.read_text(encoding="utf-8"), "History")]
        assert any("5432" in line and f"superseded on {new[:10]}" in line and old[:10] in line for line in history)
    with clock.frozen(T0 + timedelta(days=3)):
        port = vault.ask("Which port does the braniac staging database run on?")
        room = vault.ask("Which room does the design team of braniac meet in?")
    stating = [e.text for e in port.excerpts if re.search(r"\b543[23]\b", e.text)]
    assert stating and "5433" in stating[0] and "superseded" not in stating[0], stating
    assert all("superseded on" in t for t in stating if "5432" in t and "5433" not in t), stating
    assert any("room 12" in e.text and "superseded" not in e.text for e in room.excerpts), room.excerpts
    check_citations(vault)
    check_healthy(vault)


def test_rerun_after_a_kill_before_the_stm_reset_changes_nothing(tmp_path):
    """The worst instant to die: every note written, short_term.md not reset yet. The re-run
    merges the same claims again, including a contradiction settled within the first run, and
    must change no byte of long-term memory."""
    vault, _ = Vault.init(tmp_path / "vault")
    fill(vault, SCENARIO + [(60 * 30, "My friend Tomas lives in Lisbon with his two cats.", "Noted."),
                            (60 * 50, "My friend Tomas lives in Porto now, near the river.", "Noted.")])
    stm_before = vault.stm_path.read_bytes()
    config = load_config(vault.root)
    first = promote(vault, OfflineModel(), config, force=True)
    assert first.claims["superseded"] >= 1
    ltm_after, stm_after = tree_bytes(vault.ltm_root), vault.stm_path.read_bytes()
    tomas = vault.ltm_root / "concrete/people/tomas.md"
    assert len([l for l in section(tomas.read_text(encoding="utf-8"), "History") if l.startswith("- ")]) == 1

    vault.stm_path.write_bytes(stm_before)           # as if killed just before the STM reset
    again = promote(vault, OfflineModel(), config, force=True)
    assert again.status == "done" and again.notes_created == [] and again.notes_updated == []
    assert again.claims == {"added": 0, "strengthened": 0, "superseded": 0}
    assert tree_bytes(vault.ltm_root) == ltm_after
    assert vault.stm_path.read_bytes() == stm_after
    check_no_duplicates(vault)
    check_healthy(vault)


def manifest_line(index: Path, name: str) -> str:
    lines = [l for l in section(index.read_text(encoding="utf-8"), "Manifest") if f"]({name}" in l]
    assert len(lines) == 1, (index, name, lines)
    return lines[0]


def test_a_folder_a_killed_move_left_out_of_sight_does_not_stop_the_next_promotion(filled):
    """A move makes a new folder under a hidden temp name, then renames it into place; a run
    killed in between leaves that folder, which the next promotion clears like a temp file."""
    vault, ids = filled
    hidden = vault.ltm_root / "concrete" / ".places.0badc0de.braniac-tmp"
    hidden.mkdir(parents=True)
    (hidden / "_index.md").write_text("half made\n", encoding="utf-8")
    report = promote(vault, OfflineModel(), load_config(vault.root), force=True)
    assert report.status == "done" and sorted(report.events) == sorted(ids)
    assert not hidden.exists()
    check_healthy(vault)


def test_manifest_descriptions_follow_their_folders_and_keep_a_persons_words(filled):
    vault, _ = filled
    config = load_config(vault.root)
    promote(vault, OfflineModel(), config, force=True)
    people = vault.ltm_root / "concrete/people/_index.md"
    concrete = vault.ltm_root / "concrete/_index.md"
    assert "Rui" not in manifest_line(concrete, "people/_index.md")
    # a person describes Ana their way, in the manifest
    line = manifest_line(people, "ana.md")
    people.write_text(people.read_text(encoding="utf-8").replace(line, line.split(" — ")[0] + " — My oldest friend."),
                      encoding="utf-8")
    fill(vault, [(0, "My brother Rui works at a bakery in Braga and bakes at dawn.", "Noted."),
                 (10, "Ana: I got a job at a design studio near the river.", "Congratulations!")],
         start=T0 + timedelta(days=4))
    promote(vault, OfflineModel(), config, force=True)
    assert "Rui" in manifest_line(concrete, "people/_index.md")      # braniac's description follows the folder
    assert manifest_line(people, "ana.md").endswith(" — My oldest friend.")   # the person's is kept
    assert "Rui" in manifest_line(people, "rui.md")
    check_manifests(vault)
    check_healthy(vault)


# ------------------------------------------------------------------------------ concurrency with reflection

def test_events_appended_during_a_promotion_stay_in_short_term_memory(filled):
    vault, ids = filled
    appended = []

    def append_while_thinking(candidate, events, existing):
        """A person keeps talking while the model synthesizes."""
        stored = vault.append_event({"User": "Ana: I just booked a flight to Madeira for June.",
                                     "AI": "Have a good trip."}, tasks=["pack for Madeira"])
        appended.append(stored.id)
        return model.fallback.synthesize(candidate, events, existing)

    model = ScriptedModel().enqueue("synthesize", append_while_thinking)
    with clock.frozen(T0 + timedelta(days=10)):
        report = promote(vault, model, load_config(vault.root), force=True)
    assert report.status == "done" and len(appended) == 1
    late = appended[0]
    assert late not in report.events and sorted(report.events) == sorted(ids)
    doc = vault.read_stm()
    assert [e.id for e in doc.events] == [late] and stm_ids(vault) == [late]
    assert "Madeira" in doc.events[0].fields["User"]
    assert late not in archived(vault) and sorted(archived(vault)) == sorted(ids)
    assert not any(late in ids_ for ids_ in check_citations(vault).values())
    # the task stated with the late event is still open; the new summary mentions what is left
    assert ("pack for Madeira", False) in [(t.text, t.done) for t in doc.items(stm.TASKS)]
    assert "Madeira" in doc.summary
    check_healthy(vault)
    # the next promotion takes it
    with clock.frozen(T0 + timedelta(days=11)):
        report = promote(vault, OfflineModel(), load_config(vault.root), force=True)
    assert report.events == [late] and vault.read_stm().events == []
    assert sorted(archived(vault)) == sorted(ids + [late])


# ------------------------------------------------------------------------------ when a promotion runs

HOLD_LOCK = """
import sys
from braniac import Vault
from braniac.infra.fsio import locked
vault = Vault(sys.argv[1])
with locked(vault.lock_path("ltm"), timeout=5):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_a_second_promotion_skips_while_the_ltm_lock_is_held(filled):
    vault, ids = filled
    before = tree_bytes(vault.root)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(vault.root)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=REPO, env=clean_env())
    try:
        assert holder.stdout.readline().strip() == "held"
        result = run_cli("--vault", vault.root, "promote", "--force")
        as_json = run_cli("--vault", vault.root, "promote", "--force", "--json")
    finally:
        holder.stdin.close()
        holder.wait(10)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "promotion skipped: another promotion or organization is running"
    assert json.loads(as_json.stdout)["status"] == "skipped" and as_json.returncode == 0
    assert tree_bytes(vault.root) == before
    # with the lock free again, the promotion runs
    after = run_cli("--vault", vault.root, "promote", "--force")
    assert after.returncode == 0 and after.stdout.startswith(f"promoted {len(ids)} events"), after.stdout


def test_promotion_waits_until_short_term_memory_is_idle(filled, tmp_path):
    vault, ids = filled
    (vault.root / "braniac.toml").write_text("[idle]\npromote_after_minutes = 5\n", encoding="utf-8")
    config = load_config(vault.root)
    newest = max(clock.parse_iso(i) for i in ids)
    before = tree_bytes(vault.root)
    with clock.frozen(newest + timedelta(minutes=4, seconds=59)):
        report = promote(vault, OfflineModel(), config)
    assert report.status == "skipped" and "not idle yet" in report.reason and "299 s" in report.reason
    assert tree_bytes(vault.root) == before
    with clock.frozen(newest + timedelta(minutes=4)):
        forced = promote(vault, OfflineModel(), config, force=True, dry_run=True)
    assert forced.status == "dry-run"
    with clock.frozen(newest + timedelta(minutes=5)):
        report = promote(vault, OfflineModel(), config)
    assert report.status == "done" and sorted(report.events) == sorted(ids)


def test_cli_promote_without_force_skips_a_fresh_event_and_exits_0(tmp_path):
    vault, _ = Vault.init(tmp_path / "vault")
    assert run_cli("--vault", vault.root, "remember", "Ana: I moved to Lisbon last month.").returncode == 0
    before = tree_bytes(vault.root)
    result = run_cli("--vault", vault.root, "promote")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("promotion skipped: not idle yet") and "--force" in result.stdout
    assert tree_bytes(vault.root) == before
    empty, _ = Vault.init(tmp_path / "empty")
    nothing = run_cli("--vault", empty.root, "promote")
    assert nothing.returncode == 0 and nothing.stdout.startswith("promotion nothing")


# ------------------------------------------------------------------------------ --dry-run and --json

def test_dry_run_changes_no_file(filled):
    vault, ids = filled
    before = tree_bytes(vault.root)
    result = run_cli("--vault", vault.root, "promote", "--force", "--dry-run")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.match(rf"would promote {len(ids)} events into \d+ notes", lines[0]), lines
    assert any("memory/long_term/concrete/people/ana.md" in l for l in lines[1:]), lines
    as_json = run_cli("--vault", vault.root, "promote", "--force", "--dry-run", "--json")
    data = json.loads(as_json.stdout)
    assert set(data) == REPORT_KEYS and data["status"] == "dry-run" and data["files"] == []
    assert sorted(data["events"]) == sorted(ids)
    assert {"kind", "path", "title", "claims"} == set(data["plan"][0])
    assert {p["path"] for p in data["plan"]} >= {"memory/long_term/concrete/places/lisbon.md",
                                                 "memory/long_term/skills/how-to-train-a-neural-network-classifier.md"}
    assert tree_bytes(vault.root) == before                 # every byte of every file (derived .braniac/ aside)
    assert not (vault.state_dir / "promotion" / "pending.json").exists()


def test_json_report_keys_and_values(filled):
    vault, ids = filled
    before = tree_bytes(vault.root)
    result = run_cli("--vault", vault.root, "promote", "--force", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) == REPORT_KEYS
    assert data["status"] == "done" and data["reason"] == "" and data["commit"] is None and data["plan"] == []
    assert sorted(data["events"]) == sorted(ids)
    assert set(data["claims"]) == {"added", "strengthened", "superseded"} and data["claims"]["added"] > 0
    assert "memory/long_term/concrete/people/ana.md" in data["notes_created"]
    assert set(data["notes_created"]) | set(data["notes_updated"]) <= set(data["files"])
    # `files` is exactly what changed on disk
    assert set(data["files"]) == changed_files(before, tree_bytes(vault.root))


# ------------------------------------------------------------------------------ git

GIT_ID = ["-c", "user.name=Test Person", "-c", "user.email=test@example.com"]


def git(root: Path, *args: str) -> str:
    result = subprocess.run(["git", *GIT_ID, *args], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, (args, result.stderr)
    return result.stdout


def git_vault(tmp_path: Path) -> Vault:
    result = run_cli("init", "--git", tmp_path / "vault")
    assert result.returncode == 0, result.stderr
    vault = Vault(tmp_path / "vault")
    assert load_config(vault.root).git_autocommit
    return vault


def changed_files(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    return {p for p in set(before) | set(after) if before.get(p) != after.get(p)}


def test_git_each_promotion_is_one_commit_of_exactly_its_files(tmp_path):
    vault = git_vault(tmp_path)
    ids = fill(vault)
    git(vault.root, "-c", "user.name=p", "-c", "user.email=p@p", "commit", "-q", "-am", "person: conversation so far")   # the STM as a person saw it
    stm_before = vault.stm_path.read_bytes()
    # a person's unrelated, uncommitted work
    identity = vault.identity_path
    identity.write_text(identity.read_text(encoding="utf-8") + "\nA line the person is still writing.\n",
                        encoding="utf-8")
    (vault.root / "scratch.txt").write_text("untracked notes\n", encoding="utf-8")
    head = git(vault.root, "rev-parse", "HEAD").strip()
    before = tree_bytes(vault.root, skip=(".braniac", ".git"))

    result = run_cli("--vault", vault.root, "promote", "--force", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    after = tree_bytes(vault.root, skip=(".braniac", ".git"))
    assert git(vault.root, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    assert data["commit"] and git(vault.root, "rev-parse", "--short", "HEAD").strip() == data["commit"]
    committed = set(git(vault.root, "show", "--name-only", "--format=", "HEAD").split())
    assert committed == changed_files(before, after) == set(data["files"])
    message = git(vault.root, "log", "-1", "--format=%B")
    assert message.startswith(f"braniac: promote {len(ids)} events into long-term memory")
    assert "New notes:" in message and "ana" in message and "Claims:" in message
    status = git(vault.root, "status", "--porcelain").splitlines()
    assert sorted(status) == [" M system/core_identity.md", "?? scratch.txt"], status

    # `git revert` undoes it: every file as before (the person's edits included), healthy
    git(vault.root, "revert", "--no-edit", "HEAD")
    assert tree_bytes(vault.root, skip=(".braniac", ".git")) == before
    assert vault.stm_path.read_bytes() == stm_before
    assert ltm_notes(vault) == [] and archived(vault) == {}
    check_healthy(vault)
    assert run_cli("--vault", vault.root, "doctor").returncode == 0

    # promoted again, and then once more with new events: one promotion commit each time
    for round_ in range(2):
        if round_:
            fill(vault, SCENARIO[:2], start=T0 + timedelta(days=5))
        head = git(vault.root, "rev-parse", "HEAD").strip()
        before = tree_bytes(vault.root, skip=(".braniac", ".git"))
        result = run_cli("--vault", vault.root, "promote", "--force")
        assert result.returncode == 0, result.stderr
        subjects = git(vault.root, "log", "--format=%s", f"{head}..HEAD").splitlines()
        assert subjects[0].startswith("braniac: promote ") and len(subjects) == (1 if not round_ else 2), subjects
        if round_:  # the new events were uncommitted: a checkpoint of short-term memory alone comes first
            assert git(vault.root, "show", "--name-only", "--format=", "HEAD~1").split() == ["memory/short_term.md"]
        assert set(git(vault.root, "show", "--name-only", "--format=", "HEAD").split()) == \
            changed_files(before, tree_bytes(vault.root, skip=(".braniac", ".git")))
        assert sorted(git(vault.root, "status", "--porcelain").splitlines()) == \
            [" M system/core_identity.md", "?? scratch.txt"]
    check_healthy(vault)


def test_git_revert_of_a_promotion_restores_short_term_memory(tmp_path):
    """Reflection never commits, so the events a promotion consumes are usually uncommitted:
    `git revert` of the promotion must still bring them back (nothing is lost by undoing)."""
    vault = git_vault(tmp_path)
    ids = fill(vault)
    stm_before = vault.stm_path.read_bytes()
    ltm_before = tree_bytes(vault.ltm_root)
    identity = vault.identity_path
    identity.write_text(identity.read_text(encoding="utf-8") + "\nStill editing.\n", encoding="utf-8")
    head = git(vault.root, "rev-parse", "HEAD").strip()
    result = run_cli("--vault", vault.root, "promote", "--force", "--json")
    assert result.returncode == 0, result.stderr
    promotions = [c for c in git(vault.root, "log", "--format=%s", f"{head}..HEAD").splitlines()
                  if c.startswith("braniac: promote")]
    assert len(promotions) == 1
    assert git(vault.root, "log", "-1", "--format=%s") == f"braniac: promote {len(ids)} events into long-term memory\n"
    assert git(vault.root, "status", "--porcelain").splitlines() == [" M system/core_identity.md"]

    git(vault.root, "revert", "--no-edit", "HEAD")
    assert vault.stm_path.read_bytes() == stm_before
    assert tree_bytes(vault.ltm_root) == ltm_before
    assert ltm_notes(vault) == [] and archived(vault) == {}
    assert sorted(stm_ids(vault)) == sorted(ids)
    assert "Still editing." in identity.read_text(encoding="utf-8")
    check_healthy(vault)
    doctor = run_cli("--vault", vault.root, "doctor")
    assert doctor.returncode == 0, doctor.stdout
    # and the events can be promoted again
    again = run_cli("--vault", vault.root, "promote", "--force")
    assert again.returncode == 0 and again.stdout.startswith(f"promoted {len(ids)} events"), again.stdout
    check_scenario_promoted(vault, ids)
