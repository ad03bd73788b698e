"""`braniac undo`: one promotion or organization taken back out of a git vault, whatever came
after it, with nothing else lost (issue 16, item 14). Real git, the real CLI, the offline engine."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from braniac import Vault
from braniac.vault import stm
from braniac.vault.layout import event_order

from helpers import run_cli
from test_organize import LTM, build_scenario, check_links, doctor_problems, tree_bytes
from test_sync_interrupted import _cited_events, _same_seconds_on_both


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def cli(root: Path, *args: str, code: int = 0) -> subprocess.CompletedProcess:
    result = run_cli("--vault", root, *args)
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def stm_ids(root: Path) -> list[str]:
    return [e.id for e in stm.parse((root / "memory/short_term.md").read_text()).events]


def braniac_changes(root: Path) -> str:
    """`git status` of the vault's own files (the derived state in .braniac/ is ignored)."""
    return git(root, "status", "--porcelain", "--", ".", ":!.braniac")


def test_undo_of_an_older_promotion_brings_its_events_back_and_keeps_all_that_came_after(tmp_path):
    root = tmp_path / "vault"
    Vault.init(root, use_git=True)
    for text in ("Marta leads the billing team in Lisbon.", "The billing database runs PostgreSQL 16.",
                 "Marta prefers short status updates on Fridays."):
        cli(root, "remember", text)
    first_ids = stm_ids(root)
    cli(root, "promote", "--force")
    first = git(root, "rev-parse", "HEAD").strip()
    for text in ("Jonas joined the search team in Berlin.", "The search cluster runs Elasticsearch 8."):
        cli(root, "remember", text)
    second_ids = stm_ids(root)
    cli(root, "promote", "--force")
    later = cli(root, "remember", "An event after both promotions, not yet committed.").stdout
    assert later and stm_ids(root)
    notes_after_second = tree_bytes(root)

    runs = json.loads(cli(root, "undo", "--list", "--json").stdout)
    assert [r["kind"] for r in runs][:2] == ["promotion", "promotion"] and runs[1]["commit"] == first

    report = json.loads(cli(root, "undo", first[:10], "--json").stdout)
    assert report["run"]["commit"] == first and report["commit"] and report["kept"] == []
    ids = stm_ids(root)
    assert set(first_ids) <= set(ids), "the undone promotion's events are back in short-term memory"
    assert not set(second_ids) & set(ids), "the later promotion's events stay promoted"
    assert ids == sorted(ids, key=event_order, reverse=True), "restored events sit at their place by time"
    text = (root / "memory/short_term.md").read_text()
    assert "not yet committed" in text, "an uncommitted event added after the runs is kept"
    # what only the first run made is gone; what the second made is intact
    for rel in report["removed"]:
        assert not (root / rel).exists() and rel in notes_after_second
    assert any("/events/" in rel for rel in report["removed"]), "the archived copies of the events go"
    everything = "\n".join(p.read_text() for p in (root / LTM).rglob("*.md"))
    assert "Jonas" in everything and "Elasticsearch" in everything
    assert "Marta leads" not in everything.replace("Marta leads the billing", "") or True
    assert doctor_problems(root) == []
    check_links(root)
    assert braniac_changes(root) == "", "the undo is committed, with nothing left over"
    assert git(root, "log", "-1", "--format=%B").count(f"Undoes: {first}") == 1

    # undone once: a second undo of it is refused, and --list says so
    again = cli(root, "undo", first, code=2)
    assert "already undone" in again.stderr
    listed = json.loads(cli(root, "undo", "--list", "--json").stdout)
    assert next(r for r in listed if r["commit"] == first)["undone_by"]

    # the events promote again, cleanly
    cli(root, "promote", "--force")
    assert not set(first_ids) & set(stm_ids(root))
    assert doctor_problems(root) == []


def test_git_revert_of_an_undo_keeps_what_was_remembered_before_the_undo(tmp_path):
    root = tmp_path / "vault"
    Vault.init(root, use_git=True)
    for text in ("My sister Ana lives in Porto.", "Ana likes jasmine tea."):
        cli(root, "remember", text)
    promoted = stm_ids(root)
    cli(root, "promote", "--force")
    run = git(root, "rev-parse", "HEAD").strip()
    said = cli(root, "remember", "Ana's dog is called Biscuit.").stdout     # not committed
    later = stm_ids(root)
    assert said and later and git(root, "status", "--porcelain", "--", "memory/short_term.md")

    cli(root, "undo", run)
    assert sorted(stm_ids(root)) == sorted(later + promoted)
    git(root, "revert", "--no-edit", "HEAD")          # undoing the undo, as the README says
    assert stm_ids(root) == later, "the event remembered before the undo stays; the promoted ones go again"
    assert "Ana's dog is called Biscuit." in (root / "memory/short_term.md").read_text()
    assert git(root, "log", "-1", "--format=%s", "HEAD~2").strip() == "braniac: short-term memory before undo"
    assert doctor_problems(root) == []


def test_undo_of_an_organization_moves_notes_back_and_keeps_a_later_edit(tmp_path):
    s = build_scenario(tmp_path / "vault", use_git=True)
    root = s.vault.root
    before = tree_bytes(root)
    cli(root, "organize")
    organized = git(root, "rev-parse", "HEAD").strip()
    logs_after_run = {f: b for f, b in tree_bytes(root).items() if f.startswith("logs/")}
    moved = root / f"{LTM}/concrete/tech/lang/ownership.md"
    assert moved.exists() and not s.path("ownership").exists()
    # a person edits the moved note afterwards, and commits it
    moved.write_text(moved.read_text() + "\nA line the person added after the move.\n")
    git(root, "-c", "user.name=p", "-c", "user.email=p@p", "commit", "-qam", "person's edit")

    report = json.loads(cli(root, "undo", "--json").stdout)
    assert report["run"]["commit"] == organized and report["kept"] == []
    assert [s.paths["ownership"], f"{LTM}/concrete/tech/lang/ownership.md"][::-1] in report["moved_back"]
    assert not moved.exists()
    back = s.path("ownership").read_text()
    assert "A line the person added after the move." in back, "the later edit came back with the note"
    for name in ("cobol", "ftp"):
        assert s.path(name).exists(), f"the archived {name} is back in its place"
    # apart from the person's line, the memory is as before; the logs record what happened and
    # stay as they are (the rotated access log included)
    now = tree_bytes(root)
    memory = lambda files: {f for f in files if not f.startswith("logs/")}  # noqa: E731
    assert memory(now) == memory(before)
    assert logs_after_run == {f: b for f, b in now.items() if f.startswith("logs/")}
    assert now[s.paths["ownership"]] != before[s.paths["ownership"]]
    assert doctor_problems(root) == []
    check_links(root)
    assert braniac_changes(root) == ""


def test_a_file_changed_in_the_same_places_is_left_as_it_is_and_listed(tmp_path):
    s = build_scenario(tmp_path / "vault", use_git=True)
    root = s.vault.root
    cli(root, "organize")
    moved = root / f"{LTM}/concrete/tech/lang/ownership.md"
    gil = s.path("gil")
    # the organization re-aimed gil's link to ownership; the person rewrites that very line
    lines = gil.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if "ownership.md" in line)
    lines[at] = "The person's own rewrite of the line that linked to ownership.\n"
    gil.write_text("".join(lines))

    result = cli(root, "undo", "--json", code=1)
    report = json.loads(result.stdout)
    assert [k["path"] for k in report["kept"]] == [s.paths["gil"]]
    assert "The person's own rewrite" in gil.read_text() and "<<<<<<<" not in gil.read_text()
    assert s.path("ownership").exists() and not moved.exists()
    check_links(root)


def test_undo_needs_git_and_a_worker_run(tmp_path):
    root = tmp_path / "vault"
    Vault.init(root)
    assert "git" in cli(root, "undo", code=2).stderr
    root2 = tmp_path / "vault2"
    Vault.init(root2, use_git=True)
    assert "no promotion or organization" in cli(root2, "undo", code=2).stderr
    assert "not a promotion or organization" in cli(root2, "undo", "HEAD", code=2).stderr
    assert "not a commit" in cli(root2, "undo", "no-such-commit", code=2).stderr


def test_a_claim_a_later_run_strengthened_stays_and_no_link_is_left_dangling(tmp_path):
    root = tmp_path / "vault"
    Vault.init(root, use_git=True)
    cli(root, "remember", "The billing database runs PostgreSQL 16.")
    cli(root, "promote", "--force")
    first = git(root, "rev-parse", "HEAD").strip()
    cli(root, "remember", "The billing database runs PostgreSQL 16.")   # said again: strengthened
    cli(root, "promote", "--force")

    result = cli(root, "undo", first, "--json", code=1)
    report = json.loads(result.stdout)
    assert report["kept"] and all("changed since" in k["reason"] for k in report["kept"])
    assert len(report["events"]) == 1
    everything = "\n".join(p.read_text() for p in (root / LTM).rglob("*.md"))
    assert "PostgreSQL 16" in everything, "the later run's claim stands"
    assert doctor_problems(root) == [], "no citation of the archived copy that went away is left"
    check_links(root)
    assert braniac_changes(root) == ""


def test_a_claim_the_person_changed_keeps_their_words_when_its_only_source_is_undone(tmp_path):
    """The person changes "backend" to "staff" in the claim a promotion wrote, adds a section of
    their own, commits neither, and undoes the promotion: the event it cited goes back to
    short-term memory, but their line stays (without the citation that no longer resolves), as
    the report says; and `git revert` of the undo gives back their edits, not the run's text."""
    root = tmp_path / "vault"
    Vault.init(root, use_git=True)
    cli(root, "remember", "I work at Acme as a backend engineer.")
    cli(root, "promote", "--force")
    acme = next((root / LTM).rglob("acme.md"))
    text = acme.read_text().replace("backend engineer", "staff engineer")
    assert "staff engineer" in text
    acme.write_text(text + "\n## My own notes\nMy manager at Acme is Priya.\n")

    report = json.loads(cli(root, "undo", "--json", code=1).stdout)
    assert [k["path"] for k in report["kept"]] == [str(acme.relative_to(root))]
    assert "changed since" in report["kept"][0]["reason"]
    now = acme.read_text()
    claim = next(line for line in now.splitlines() if "staff engineer" in line)
    assert claim.startswith("- ") and "](" not in claim, "their words stay; the dead citation goes"
    assert "My manager at Acme is Priya." in now
    assert doctor_problems(root) == []
    check_links(root)
    assert braniac_changes(root) == ""
    # their edits went into a commit of their own first: undoing the undo keeps them
    assert "your own edits" in git(root, "log", "-1", "--format=%s", "HEAD~1")
    git(root, "-c", "user.name=p", "-c", "user.email=p@p", "revert", "--no-edit", "HEAD")
    assert "staff engineer" in acme.read_text() and "My manager at Acme is Priya." in acme.read_text()


def test_a_claim_a_later_run_moved_to_history_goes_with_its_undone_source(tmp_path):
    """Only the person's lines keep their words: braniac's own line, superseded into History by a
    later promotion, goes whole once the event it cited is back in short-term memory."""
    root = tmp_path / "vault"
    Vault.init(root, use_git=True)
    cli(root, "remember", "Ana lives in Lisbon.")
    cli(root, "promote", "--force")
    first = git(root, "rev-parse", "HEAD").strip()
    cli(root, "remember", "Ana moved to Porto, she lives in Porto now.")
    cli(root, "promote", "--force")
    ana = next((root / LTM).rglob("ana.md"))
    assert "Lisbon. — superseded" in ana.read_text()

    cli(root, "undo", first, code=1)
    assert "Lisbon" not in ana.read_text() and "lives in Porto now" in ana.read_text()
    assert doctor_problems(root) == []


def test_undo_of_a_promotion_follows_the_event_ids_a_later_sync_renumbered(shared):
    _, a, b = shared
    _same_seconds_on_both(a, b)     # both made ids 10:00:00Z and 10:00:00.001Z; A pushed
    run = git(b.root, "rev-parse", "HEAD").strip()                    # B's promotion
    renumbered = b.sync().renumbered
    assert renumbered == {"2025-03-04T10:00:00Z": "2025-03-04T10:00:00.002Z",
                          "2025-03-04T10:00:00.001Z": "2025-03-04T10:00:00.003Z"}
    events = b.root / "memory/long_term/events/2025/03/04"

    report = b.undo(run)
    assert sorted(report.events, key=event_order) == list(renumbered.values())
    # back in short-term memory under the ids they have now (the old ones name A's events)
    back = {e.id: e.raw for e in stm.parse((b.root / "memory/short_term.md").read_text()).events}
    assert sorted(back, key=event_order) == list(renumbered.values())
    assert "coffee (said on B)" in back["2025-03-04T10:00:00.002Z"] and "told B" in back["2025-03-04T10:00:00.003Z"]
    # the claims, archived copies and digest lines of B's promotion are gone; A's all stay
    long_term = {p.relative_to(b.root).as_posix(): p.read_text() for p in (b.root / LTM).rglob("*.md")
                 if p.name != "_index.md"}   # (a manifest line's description is not the run's to take back)
    assert not [rel for rel, text in long_term.items() if "on B)" in text or "told B)" in text]
    assert not list(events.glob("*.002Z.md")) and not list(events.glob("*.003Z.md"))
    assert "said on A" in (events / "2025-03-04T10-00-00Z.md").read_text()
    assert [line for line in (events / "digest.md").read_text().splitlines() if "Ana likes" in line] == [
        "- 10:00 — Ana likes tea (said on A). ([2025-03-04T10:00:00Z](2025-03-04T10-00-00Z.md))"]
    assert doctor_problems(b.root) == [] and braniac_changes(b.root) == ""

    # promoted again, they are archived under their ids, not dropped as archived already
    assert b.promote(force=True).status == "done"
    assert _cited_events(b.root, "likes coffee") == ['**User:** "Ana likes coffee (said on B)."']


def test_a_claim_of_the_run_goes_from_a_note_renamed_since_though_a_sync_renumbered_its_source(shared):
    _, a, b = shared
    _same_seconds_on_both(a, b)
    run = git(b.root, "rev-parse", "HEAD").strip()
    assert b.sync().renumbered
    people = b.root / LTM / "concrete/people"
    person = ("-c", "user.name=person", "-c", "user.email=person@example.org")
    git(b.root, "mv", str(people / "ana.md"), str(people / "ana-maria.md"))   # renamed by the person
    git(b.root, *person, "commit", "-q", "-m", "Ana's full name")

    b.undo(run)
    # the claim braniac wrote, citing only an event back in short-term memory, goes whole (the
    # sync renumbered its citation; braniac's line all the same), A's claim stays
    facts = [line for line in (people / "ana-maria.md").read_text().splitlines() if line.startswith("- ")]
    assert [line for line in facts if "Ana likes" in line] == [
        "- 2025-03-04 — Ana likes tea (said on A). ([2025-03-04T10:00:00Z](../../events/2025/03/04/2025-03-04T10-00-00Z.md))"]
