"""What a person writes into a note braniac also writes (in Obsidian, by hand) stays as written
when promotion adds to the note: their wikilinks and web links in Related Memories, a fact they
typed into Facts without a citation, a note saved with a byte-order mark, a `## Facts` heading
inside their code block."""
from __future__ import annotations

import os
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from braniac.infra import clock


def _at(y, m, d, h=10):
    return clock.frozen(datetime(y, m, d, h, tzinfo=timezone.utc))


def _said_and_promoted(vault, day: tuple[int, int, int], *said: str) -> None:
    for text in said:
        with _at(*day):
            vault.remember(text)
    with _at(*day, 23):
        vault.promote(force=True)


def _edited(path, change) -> str:
    text = change(path.read_text(encoding="utf-8"))
    path.write_text(text, encoding="utf-8")
    return text


PERSONS_RELATED = ("- [[Unbabel]] — where she works\n- [[people/Rui|her husband Rui]]\n- ![[ana-photo.png]]\n"
                   "- [her blog](https://ana.example.org/a_b?q=1#posts)\n- my thoughts about her, no link\n")


def test_a_persons_wikilinks_web_links_embeds_and_words_in_related_memories_stay_as_written(vault):
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.")
    ana = vault.ltm_root / "concrete/people/ana.md"
    _edited(ana, lambda t: t.replace("## Related Memories\n", "## Related Memories\n" + PERSONS_RELATED))
    _said_and_promoted(vault, (2025, 1, 8), "Ana works at Unbabel as a translator.")
    related = ana.read_text(encoding="utf-8").split("## Related Memories\n", 1)[1]
    assert related.startswith(PERSONS_RELATED), related
    assert "organizations/unbabel.md" in related   # braniac's own link is added after them


def test_a_fact_typed_without_a_citation_stays_and_a_later_change_goes_beside_it(vault):
    """A person's own "- Ana works at Unbabel as a translator." has no day: braniac cannot tell
    it from older or newer, so it neither supersedes it nor is stuck on it (promotion used to
    fail on it every run, leaving short-term memory unpromoted)."""
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.")
    ana = vault.ltm_root / "concrete/people/ana.md"
    _edited(ana, lambda t: t.replace("## Facts\n", "## Facts\n- Ana works at Unbabel as a translator.\n"))
    with _at(2025, 1, 8):
        vault.remember("Ana works at Google as an engineer now.")
    with _at(2025, 1, 8, 23):
        report = vault.promote(force=True)
    assert report.status == "done" and report.events, report
    facts = ana.read_text(encoding="utf-8").split("## Facts\n", 1)[1].split("\n## ", 1)[0]
    assert facts.startswith("- Ana works at Unbabel as a translator.\n"), facts
    assert "Ana works at Google as an engineer now." in facts and "## History" not in ana.read_text(encoding="utf-8")


def test_a_note_saved_with_a_byte_order_mark_is_added_to_not_given_a_second_frontmatter(vault):
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.")
    ana = vault.ltm_root / "concrete/people/ana.md"
    ana.write_bytes("\ufeff".encode() + ana.read_bytes().replace(b"emotion: neutral\n", b"emotion: neutral\naliases: [Aninha]\n"))
    _said_and_promoted(vault, (2025, 1, 8), "Ana works at Unbabel as a translator.")
    text = ana.read_bytes().decode("utf-8")
    assert text.startswith("\ufeff---\n") and text.count("---\n") == 2 and "\ufeff" not in text[1:], text[:300]
    assert "aliases: [Aninha]" in text and "Ana works at Unbabel" in text
    assert [f for f in vault.doctor() if f.severity == "problem"] == []


def test_a_facts_heading_in_a_persons_code_block_is_no_section(vault):
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.")
    ana = vault.ltm_root / "concrete/people/ana.md"
    example = "How a claim looks:\n```markdown\n## Facts\n- 2024-05-01 — an example claim\n```\n\n- [ ] my task: call Ana\n"
    _edited(ana, lambda t: t.replace("# Ana\n", "# Ana\n\n" + example, 1))
    _said_and_promoted(vault, (2025, 1, 8), "My sister Ana lives in Lisbon now.")
    text = ana.read_text(encoding="utf-8")
    assert example in text
    facts = text.rsplit("\n## Facts\n", 1)[1].split("\n## ", 1)[0]   # the real one, after the example
    assert "Lisbon now" in facts and "Porto" not in facts, facts
    assert "superseded on 2025-01-08" in text.split("## History\n", 1)[1]


def test_a_persons_notes_under_a_claim_go_with_it_into_history_and_new_claims_come_after_them(vault):
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.", "Ana works at Unbabel as a translator.")
    ana = vault.ltm_root / "concrete/people/ana.md"
    address, task = "  - her address: Rua das Flores 12 ^addr1\n", "    - [ ] ask Ana whether Unbabel is hiring\n  > a quote\n"

    def annotate(text: str) -> str:
        lines = []
        for line in text.splitlines(True):
            lines.append(line)
            lines += [address] if "lives in Porto" in line else [task] if "Unbabel as a translator" in line else []
        return "".join(lines)
    _edited(ana, annotate)
    _said_and_promoted(vault, (2025, 1, 8), "My sister Ana lives in Lisbon now.")
    text = ana.read_text(encoding="utf-8")
    facts, history = text.split("## Facts\n", 1)[1].split("\n## ", 1)[0], text.split("## History\n", 1)[1]
    assert "Porto" not in facts and history.split("\n", 1)[1].startswith(address), history
    unbabel = facts.index("Unbabel as a translator")
    assert facts.index(task) > unbabel and facts.index("Lisbon now") > facts.index(task), facts


def test_undo_of_a_promotion_gives_back_a_crlf_note_as_the_person_saved_it(tmp_path):
    """git's text mode made every line of a CRLF note's older versions end in LF, and undo's
    line-by-line merge then moved the person's last line (no final newline) onto a heading."""
    import subprocess
    from braniac import Vault
    vault, _ = Vault.init(tmp_path / "vault", use_git=True)
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.")
    ana = vault.ltm_root / "concrete/people/ana.md"
    saved = (ana.read_text(encoding="utf-8") + "\n## Mine\nmy own text\nlast line").replace("\n", "\r\n").encode()
    ana.write_bytes(saved)
    subprocess.run(["git", "-C", str(vault.root), "-c", "user.name=p", "-c", "user.email=p@p", "commit", "-qam", "my edit"],
                   check=True)
    _said_and_promoted(vault, (2025, 1, 8), "My sister Ana lives in Lisbon now.")
    assert b"superseded" in ana.read_bytes()
    with _at(2025, 1, 9):
        vault.undo()
    assert ana.read_bytes() == saved


def test_a_note_a_person_named_as_obsidian_does_is_written_into_and_adopted_not_doubled(vault):
    """The person's own `people/Ana.md` (no frontmatter yet) is the note of "Ana": promotion
    writes into it, with the keys adoption gives it, not a second `ana.md` beside it."""
    folder = vault.ltm_root / "concrete/people"
    folder.mkdir(parents=True, exist_ok=True)
    own = folder / "Ana.md"
    mine = "# Ana\n\nMy sister, the one in Porto.\n\n## Related Memories\n- [[Porto]] is where she lives\n"
    own.write_text(mine, encoding="utf-8")
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.", "Ana works at Unbabel as a translator.")
    assert sorted(p.name for p in folder.glob("*.md") if p.name != "_index.md") == ["Ana.md"]
    text = own.read_text(encoding="utf-8")
    assert "My sister, the one in Porto.\n" in text and "- [[Porto]] is where she lives\n" in text
    assert "Ana works at Unbabel as a translator." in text
    assert [f for f in vault.doctor() if f.severity == "problem" and "Ana.md" in f.path] == []


def test_a_persons_lines_in_a_folders_manifest_stay_when_braniac_lists_a_new_note(vault):
    """`_index.md`'s Manifest is rebuilt from the folder whenever a note comes or goes; a
    person's words, comment, links and tasks there stay, and a line under an entry stays under it."""
    _said_and_promoted(vault, (2025, 1, 6), "My manager is Priya.", "Priya approved my vacation.")
    index = vault.ltm_root / "concrete/people/_index.md"
    mine_first = ("Note: these are my people.\n<!-- keep this comment -->\n- [[Inbox/todo]] — my todo list\n"
                  "- [Website](https://example.org) — Priya's site\n")
    under = "  - met her in 2019\n"
    _edited(index, lambda t: t.replace("## Manifest\n", "## Manifest\n" + mine_first))
    _edited(index, lambda t: "".join(line + (under if "](priya.md" in line and line.startswith("- ") else "")
                                     for line in t.splitlines(True)))
    _said_and_promoted(vault, (2025, 1, 8), "My colleague Tom is the new designer.", "Tom said the mockups are done.")
    manifest = index.read_text(encoding="utf-8").split("## Manifest\n", 1)[1].split("\n## ", 1)[0]
    assert manifest.startswith(mine_first), manifest
    assert "](tom.md" in manifest and "](priya.md" in manifest
    assert manifest.split("](priya.md", 1)[1].split("\n", 1)[1].startswith(under), manifest


def test_doctor_fix_repairs_the_citations_of_a_note_a_person_moved_by_hand(vault):
    """A person moves `people/` into `team/` in their file manager: the notes' citations
    (links to archived events, which carry no uuid) lead nowhere; the event id each one names
    finds its event again."""
    _said_and_promoted(vault, (2025, 1, 6), "My manager is Priya.", "Priya approved my vacation.")
    (vault.ltm_root / "concrete/team").mkdir()
    (vault.ltm_root / "concrete/people").rename(vault.ltm_root / "concrete/team/people")
    priya = vault.ltm_root / "concrete/team/people/priya.md"
    assert any("does not resolve" in f.reason and f.path.endswith("priya.md") for f in vault.doctor())
    plan = vault.repair(dry_run=True)
    assert any("citations in memory/long_term/concrete/team/people/priya.md" in d for d in plan.done), plan.done
    vault.repair()
    assert "](../../../events/2025/01/06/" in priya.read_text(encoding="utf-8")
    assert not [f for f in vault.doctor() if "does not resolve" in f.reason and f.path.endswith("priya.md")]


def test_a_persons_own_index_without_frontmatter_gets_all_the_keys_braniac_needs(vault):
    folder = vault.ltm_root / "projects"
    folder.mkdir()
    mine = "# Projects\n\nMy overview of projects.\n\n## Ideas\n- a pond\n"
    (folder / "_index.md").write_text(mine, encoding="utf-8")
    (folder / "garden.md").write_text("# Garden\n\nPlant tomatoes.\n", encoding="utf-8")
    for path in (folder / "_index.md", folder / "garden.md", folder):
        os.utime(path, (1.7e9, 1.7e9))   # saved a while ago: adoption waits for quiet files
    vault.adopt()
    text = (folder / "_index.md").read_text(encoding="utf-8")
    assert mine.split("## Ideas")[0] in text and "## Ideas\n- a pond\n" in text and "](garden.md" in text
    assert [f for f in vault.doctor() if f.severity == "problem" and f.path.startswith("memory/long_term/projects")] == []


def test_a_note_whose_frontmatter_is_one_json_object_is_adopted_and_written_into_without_breaking_it(vault):
    """`{"title": …}` is YAML too (a flow mapping): the keys braniac adds go inside the braces,
    as JSON, so the frontmatter still reads, as JSON and as YAML, and the person's keys stay."""
    import json
    folder = vault.ltm_root / "concrete/people"
    folder.mkdir(parents=True, exist_ok=True)
    own = folder / "Ana.md"
    mine = '{\n  "title": "Ana",\n  "aliases": ["Ana Sousa"]\n}\n'
    own.write_text("---\n" + mine + "---\n# Ana\n\nMy sister.\n", encoding="utf-8")
    os.utime(own, (1.7e9, 1.7e9))   # saved a while ago: adoption waits for quiet files
    vault.adopt()
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.", "Ana works at Unbabel as a translator.")
    text = own.read_text(encoding="utf-8")
    frontmatter = text.split("---\n")[1]
    assert frontmatter.startswith('{\n  "title": "Ana",\n  "aliases": ["Ana Sousa"],\n'), frontmatter
    meta = json.loads(frontmatter)
    assert meta["aliases"] == ["Ana Sousa"] and meta["uuid"] and meta["emotion"] == "neutral"
    assert "Ana works at Unbabel as a translator." in text and "My sister.\n" in text
    assert [f for f in vault.doctor() if f.severity == "problem" and "Ana.md" in f.path] == []


def test_the_blank_lines_a_person_left_after_a_section_braniac_rewrites_stay_as_they_were(vault):
    """Two blank lines before their own heading, none at the end of the file: a promotion that
    adds a link and a claim keeps that layout, so undo and `git diff` show only braniac's lines."""
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.", "Ana works at Unbabel as a translator.")
    ana = vault.ltm_root / "concrete/people/ana.md"
    _edited(ana, lambda t: t.rstrip("\n") + "\n\n\n## Mine\nmy own text")
    mine = ana.read_text(encoding="utf-8")
    _said_and_promoted(vault, (2025, 1, 8), "Ana likes climbing in Sintra on weekends.", "Ana climbs in Sintra with Rui.")
    text = ana.read_text(encoding="utf-8")
    assert text != mine and "\n\n\n## Mine\nmy own text" in text and text.endswith("my own text")
    related = text.split("## Related Memories\n", 1)[1].split("\n\n\n## Mine", 1)[0]
    assert "](../places/sintra.md" in related and "\n\n" not in related, related


def test_a_manifest_brought_up_to_date_after_a_rename_keeps_what_the_person_wrote_there(vault):
    """Their description of the renamed note (found by its uuid), a second line for one note, a
    line to another folder's note and a code block stay; an image added to the folder changes
    nothing; a read-only manifest is not reported as brought up to date."""
    from braniac.infra.config import load
    from braniac.processes.adoption import Adopter
    _said_and_promoted(vault, (2025, 1, 6), "My manager is Priya.", "Priya approved my vacation.",
                       "My colleague Tom is the new designer.", "Tom said the mockups are done.")
    folder = vault.ltm_root / "concrete/people"
    index = folder / "_index.md"
    mine = ("- [Priya, the budget part](priya.md#budget) — her budget notes\n- [Porto](../places/porto.md) — where she lives\n"
            "```\n- [Example](example.md)\n```\n")
    _edited(index, lambda t: t.replace(" — Priya approved my vacation.", " — my manager, since 2024")
            .replace("## Manifest\n", "## Manifest\n" + mine))
    adopter = Adopter(vault, load(vault.root), quiet_seconds=0)
    adopter.run()
    (folder / "photo.png").write_bytes(b"\x89PNG")   # the folder changes; no note did
    assert adopter.run().manifests == [] and all(line in index.read_text(encoding="utf-8") for line in mine.splitlines())
    (folder / "priya.md").rename(folder / "priya-shah.md")
    report = adopter.run()
    text = index.read_text(encoding="utf-8")
    assert report.manifests == ["memory/long_term/concrete/people"], report
    assert "](priya-shah.md" in text and "— my manager, since 2024" in text and "](priya.md \"uuid" not in text, text
    assert all(line in text for line in mine.splitlines()), text
    (folder / "tom.md").rename(folder / "tom-silva.md")
    os.chmod(index, 0o444)
    try:
        assert adopter.run().manifests == []   # nothing was written: nothing is said to be
    finally:
        os.chmod(index, 0o644)


def test_a_persons_own_manifest_lines_survive_every_refresh_and_braniacs_never_pile_up(vault):
    """Lines to a photo, a PDF, the index itself, a note not written yet, a part of a note, a copy
    of braniac's line above it, and a CRLF file's code block: all kept as written, through a
    rename by hand and repeated refreshes, and braniac's own entries are never doubled."""
    from braniac.infra.config import load
    from braniac.processes.adoption import Adopter
    _said_and_promoted(vault, (2025, 1, 6), "My manager is Priya.", "Priya approved my vacation.")
    folder = vault.ltm_root / "concrete/people"
    index = folder / "_index.md"
    priya_line = next(line for line in index.read_text(encoding="utf-8").splitlines() if "](priya.md" in line)
    mine = ["- [Family photo](photo.png) — Christmas 2024", "- [Budget](budget.pdf)", "- [This page](_index.md) — start here",
            "- [Bob (to write)](bob.md) — planned", "- [Priya, the budget part](priya.md#budget) — her notes",
            priya_line.replace("[Priya]", "[Priya Shah, my manager]"), "```", "- [Example](example.md)", "```"]
    _edited(index, lambda t: t.replace("## Manifest\n", "## Manifest\n" + "\n".join(mine) + "\n").replace("\n", "\r\n"))
    adopter = Adopter(vault, load(vault.root), quiet_seconds=0)
    for name in ("Zoe", "Yara"):
        (folder / f"{name.lower()}.md").write_text(f"# {name}\n\n{name} is my cousin.\n", encoding="utf-8")
        os.utime(folder / f"{name.lower()}.md", (1.7e9, 1.7e9))
        adopter.run()
        _said_and_promoted(vault, (2025, 1, 8), f"Priya met {name} at the office party.")
    (folder / "zoe.md").rename(folder / "zoe-costa.md")
    adopter.run()
    adopter.run()
    text = index.read_bytes().decode("utf-8")
    assert all(line + "\r\n" in text for line in mine), text
    assert text.count("## Related Memories") == 1 and text.count("## Manifest") == 1, text
    entries = [line for line in text.splitlines() if line.startswith("- [") and '"uuid:' in line]
    assert len([e for e in entries if e.startswith("- [Priya](priya.md")]) == 1 and any("](zoe-costa.md" in e for e in entries), text
    before = index.read_bytes()
    _said_and_promoted(vault, (2025, 1, 9), "Priya booked the quarterly review.")
    assert index.read_bytes().count(b"](priya.md") == before.count(b"](priya.md")   # no churn, no pile-up


def test_a_crlf_note_with_a_code_block_keeps_one_of_each_section_through_promotions(vault):
    """A Windows editor's note with the person's code block: its closing fence ends in '\\r', and
    was taken for no fence, so every promotion added another Related Memories."""
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.", "Ana works at Unbabel as a translator.")
    ana = vault.ltm_root / "concrete/people/ana.md"
    text = ana.read_text(encoding="utf-8").replace("\n## Related Memories", "\n## My notes\n```\nphone: 555-1234\n```\n\n## Related Memories")
    ana.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    for day in (8, 9, 10):
        _said_and_promoted(vault, (2025, 1, day), f"Ana and Rui went to Sintra, trip {day}.")
    headings = [line for line in ana.read_bytes().decode("utf-8").split("\r\n") if line.startswith("## ")]
    assert sorted(headings) == sorted(set(headings)), headings
    assert "```\r\nphone: 555-1234\r\n```\r\n" in ana.read_bytes().decode("utf-8")


def test_a_note_a_person_renamed_is_written_into_not_made_again_beside_it(vault):
    """people/ana.md renamed by hand to ana-silva.md (still titled "Ana"): the next promotion
    about Ana writes into it, not a new ana.md beside it."""
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.", "Ana works at Unbabel as a translator.")
    folder = vault.ltm_root / "concrete/people"
    (folder / "ana.md").rename(folder / "ana-silva.md")
    _said_and_promoted(vault, (2025, 1, 8), "Ana started learning the cello.", "Ana plays the cello every evening.")
    assert not (folder / "ana.md").exists()
    assert "cello" in (folder / "ana-silva.md").read_text(encoding="utf-8")


def test_undoing_a_promotion_keeps_what_the_person_had_not_committed_in_the_notes_it_wrote(tmp_path):
    """The person adds a line to ana.md and a note of their own, commits neither; a promotion
    writes into both; undo takes back what braniac wrote and leaves theirs (README: "your own
    uncommitted work is left alone")."""
    from braniac import Vault
    vault, _ = Vault.init(tmp_path / "vault", use_git=True)
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.", "Ana works at Unbabel as a translator.")
    ana = vault.ltm_root / "concrete/people/ana.md"
    _edited(ana, lambda t: t + "\nMy own line about Ana.\n")
    rui = vault.ltm_root / "concrete/people/Rui.md"
    rui.write_text("# Rui\n\nMy cousin, the one in Braga.\n", encoding="utf-8")
    _said_and_promoted(vault, (2025, 1, 8), "Ana started learning the cello.", "Rui moved to Braga last year.")
    assert "cello" in ana.read_text(encoding="utf-8")
    with _at(2025, 1, 9):
        vault.undo()
    assert "My own line about Ana." in ana.read_text(encoding="utf-8") and "cello" not in ana.read_text(encoding="utf-8")
    assert rui.exists() and "My cousin, the one in Braga." in rui.read_text(encoding="utf-8")


@pytest.mark.parametrize("rename", ["by hand", "git mv"])
def test_a_note_the_person_renamed_is_committed_as_a_whole_rename_before_promotion(tmp_path, rename):
    """ana.md renamed to ana-silva.md and not committed; the next promotion writes into it. The
    commit of the person's own edits holds the rename whole (ana.md's removal too): half of it
    would leave two notes with one uuid in every later commit, and a clone failing doctor."""
    from braniac import Vault
    vault, _ = Vault.init(tmp_path / "vault", use_git=True)
    _said_and_promoted(vault, (2025, 1, 6), "My sister Ana lives in Porto.")
    folder = vault.ltm_root / "concrete/people"
    if rename == "git mv":
        _git(vault.root, "mv", str(folder / "ana.md"), str(folder / "ana-silva.md"))
    else:
        (folder / "ana.md").rename(folder / "ana-silva.md")
    _said_and_promoted(vault, (2025, 1, 8), "Ana started learning the cello.")
    assert "cello" in (folder / "ana-silva.md").read_text(encoding="utf-8")
    in_head = _git(vault.root, "ls-tree", "-r", "--name-only", "HEAD", "--", str(folder)).split()
    assert [Path(p).name for p in in_head if p.endswith(".md")] == ["_index.md", "ana-silva.md"]
    theirs = _git(vault.root, "log", "--format=%H", "--grep", "your own edits").split()
    assert len(theirs) == 1
    changed = _git(vault.root, "show", "--name-status", "--format=", "-M", theirs[0])
    assert changed.startswith("R") and "people/ana.md" in changed, changed
    assert _git(vault.root, "status", "--porcelain", "--", "memory") == ""


def _git(root, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout
