"""`braniac sync`: one vault on several machines through a git remote (issue 14). Real git: a
bare remote on disk and clones in temp folders."""
from __future__ import annotations

import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from braniac import Vault
from braniac.infra import clock
from braniac.infra.errors import BraniacError
from braniac.processes.sync.stm_merge import merge_short_term
from braniac.vault import notes, stm
from braniac.vault.claims import FACTS, HISTORY, FactNote

from helpers import assert_clean_error, clean_env, run_cli

PERSON = ("-c", "user.name=person", "-c", "user.email=person@example.org")   # the person's own git identity

MARKERS = re.compile(r"^(<{7,}|={7,}|>{7,})( |$)", re.MULTILINE)   # (git nests: 8 and more)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def files_of(vault: Vault) -> dict[str, bytes]:
    return {p.relative_to(vault.root).as_posix(): p.read_bytes() for p in sorted(vault.root.rglob("*"))
            if p.is_file() and p.relative_to(vault.root).parts[0] not in (".git", ".braniac")}


def round_on(vault: Vault, side: str, n: int, said: list[str]) -> None:
    """remember -> promote -> organize -> ask, about the same person as the other machine."""
    topics = ["Ana works at Unbabel as a translator.", "Ana lives in Porto now.", "Ana prefers green tea."]
    at = datetime(2025, 3, 2 + n, 10, 0, 0, tzinfo=timezone.utc)   # the same second on both machines
    with clock.frozen(at):
        for text in (f"{topics[n]} Told to {side} in round {n}.", f"Ana called {side} about the meetup, round {n}."):
            vault.remember(text)
            said.append(text)
    with clock.frozen(at + timedelta(hours=1)):
        assert vault.promote(force=True).status == "done"
        vault.organize()
        if n < 2:   # the last round's question stays in short-term memory: both kinds of file merge
            vault.ask("Where does Ana work?")


@pytest.mark.slow   # about 15 s on an idle machine: three rounds of every process on two clones
def test_three_rounds_on_two_machines_converge(shared):
    _, a, b = shared
    said: list[str] = []
    for n in range(3):
        round_on(a, "laptop", n, said)
        round_on(b, "server", n, said)
        reports = [a.sync(), b.sync(), a.sync()]
        assert all(r.exit_code == 0 and not r.conflicts for r in reports), [r.describe() for r in reports]
        assert reports[1].renumbered, "both machines made the same event ids: B's are renumbered"
    assert git(a.root, "rev-parse", "HEAD") == git(b.root, "rev-parse", "HEAD")
    assert files_of(a) == files_of(b)
    everything = files_of(a)
    texts = {rel: data.decode() for rel, data in everything.items() if rel.endswith(".md")}
    for text in said:   # each remembered text once: in short-term memory or as one archived event
        holders = [rel for rel, body in texts.items() if text in body
                   and (rel == "memory/short_term.md" or re.search(r"/events/.*T.*Z\.md$", rel))]
        count = sum(body.count(f"> {text}") + body.count(f'"{text}"') for rel, body in texts.items() if rel in holders)
        assert count == 1, (text, holders)
    for rel in texts:
        if "/concrete/" in rel and not rel.endswith("_index.md"):
            note = FactNote.load(a.root / rel)
            for fact in note.facts(FACTS) + note.facts(HISTORY):
                assert fact.sources, (rel, fact)
                for event_id in fact.sources:   # each citation names an archived event holding that id
                    found = list((a.root / "memory/long_term/events").rglob(f"{event_id.replace(':', '-')}.md"))
                    assert found and f"### {event_id}" in found[0].read_text(), (rel, event_id)
    for vault in (a, b):
        assert [f for f in vault.doctor() if f.severity == "problem"] == []
        assert not any(MARKERS.search(body) for body in texts.values())
        assert git(vault.root, "status", "--porcelain") == ""
    assert "/" not in "".join(line.split(" | ")[2][:1] for line in
                              (a.root / "logs/access.log").read_text().splitlines() if " | READ | " in line)


def test_same_lines_edited_on_both_machines_is_a_visible_conflict(shared):
    _, a, b = shared
    note = "memory/long_term/concrete/tomas.md"
    (a.root / note).write_text("---\nuuid: 7d1c0a52-1111-4b7e-9a57-3c2d1e0f9a01\ncreated_at: 2025-03-01T10:00:00Z\n"
                               "updated_at: 2025-03-01T10:00:00Z\ntags: [people]\nemotion: neutral\n---\n"
                               "# Tomas\n\nTomas climbs on Sundays.\n")
    a.sync()
    b.sync()
    (a.root / note).write_text((a.root / note).read_text().replace("Sundays", "Saturdays"))
    (a.root / "memory/long_term/concrete/other.md").write_text(
        (a.root / note).read_text().replace("7d1c0a52-1111", "7d1c0a52-2222").replace("Tomas", "Rui"))
    assert a.sync().sent
    (b.root / note).write_text((b.root / note).read_text().replace("Sundays", "Mondays"))
    b.remember("Rui lends me his rope.")
    report = b.sync()
    assert report.conflicts == [note] and report.exit_code == 1 and not report.sent
    assert "Edit each" in report.describe() and note in report.describe()
    assert (b.root / "memory/long_term/concrete/other.md").exists()      # the rest of the merge is there
    text = (b.root / note).read_text()
    assert "Saturdays" in text and "Mondays" in text and MARKERS.search(text)
    assert any(f.path == note and "conflict" in f.reason for f in b.doctor())
    assert b.promote(force=True).status == "skipped" and b.organize().status == "skipped"
    b.remember("Rui climbs too.")                                         # short-term memory still works
    assert b.sync().conflicts == [note]                                   # still waiting, nothing pushed
    (b.root / note).write_text(re.sub(r"# Tomas\n[\s\S]*$", "# Tomas\n\nTomas climbs on Saturdays and Mondays.\n",
                                      text))
    done = b.sync()
    assert done.exit_code == 0 and done.sent, done.describe()
    assert a.sync().exit_code == 0
    assert files_of(a) == files_of(b)
    assert "Saturdays and Mondays" in (a.root / note).read_text()
    assert "Rui climbs too." in (a.root / "memory/short_term.md").read_text()


@pytest.mark.parametrize("rewritten", [False, True], ids=["rename-seen-by-git", "too-changed-for-git"])
def test_a_note_moved_on_one_machine_and_edited_on_the_other_keeps_the_edit(shared, rewritten):
    _, a, b = shared
    old, new = "memory/long_term/concrete/people/ana.md", "memory/long_term/concrete/ana.md"
    (a.root / old).parent.mkdir(parents=True)
    body = ("---\nuuid: 0b7a3c1e-5f00-4a11-9c3d-2e1f0a9b8c7d\ncreated_at: 2025-03-01T10:00:00Z\n"
            "updated_at: 2025-03-01T10:00:00Z\ntags: [people]\nemotion: neutral\n---\n# Ana\n\nAna.\n")
    (a.root / old).write_text(body)
    (a.root / "memory/long_term/concrete/rui.md").write_text(
        body.replace("0b7a3c1e", "1c8b4d2f").replace("# Ana\n\nAna.", "# Rui\n\nFriend of [Ana](people/ana.md "
                                                   '"uuid:0b7a3c1e-5f00-4a11-9c3d-2e1f0a9b8c7d").'))
    a.sync()
    b.sync()
    from braniac.vault.moves import Move, apply_moves
    apply_moves(a, [Move(a.root / old, a.root / new)], set())
    if rewritten:   # more changed than kept: git sees a removal and a new file, not a rename
        (a.root / new).write_text((a.root / new).read_text() + "\n## Related Memories\n" + "".join(
            f'- [Rui](rui.md "uuid:1c8b4d2f-5f00-4a11-9c3d-2e1f0a9b8c7d") — co-accessed, weight 0.{n}0\n'
            for n in range(1, 9)))
    assert a.sync().sent
    edited = (b.root / old).read_text().replace("# Ana\n\nAna.\n", "# Ana\n\nAna.\n\nAna speaks four languages.\n")
    (b.root / old).write_text(edited)
    (b.root / "memory/long_term/concrete/lia.md").write_text(
        body.replace("0b7a3c1e", "2d9c5e3a").replace("# Ana\n\nAna.", "# Lia\n\nSister of [Ana](people/ana.md "
                                                   '"uuid:0b7a3c1e-5f00-4a11-9c3d-2e1f0a9b8c7d").'))
    report = b.sync()
    assert report.exit_code == 0, report.describe()
    assert not (b.root / old).exists()
    assert "Ana speaks four languages." in (b.root / new).read_text()
    assert "(ana.md " in (b.root / "memory/long_term/concrete/lia.md").read_text()   # re-aimed by uuid
    assert [f for f in b.doctor() if f.severity == "problem"] == []


def test_short_term_memory_merges_events_and_lists():
    base = stm.render_new(tasks=[stm.Item("call Ana", False)])
    doc = stm.parse(base)
    doc.add_event("2025-03-02T10:00:00Z", {"User": "shared event"})
    base = doc.render()
    ours = stm.parse(base)
    ours.add_event("2025-03-02T11:00:00Z", {"User": "from the laptop"})
    ours.add_item(stm.TASKS, "book the train")
    theirs = stm.parse(base)
    theirs.remove_events({"2025-03-02T10:00:00Z"})     # promoted on the server
    theirs.add_event("2025-03-02T10:30:00Z", {"User": "from the server"})
    theirs.set_item_done(stm.TASKS, "call Ana")
    merged = stm.parse(merge_short_term(base, ours.render(), theirs.render()))
    assert [e.id for e in merged.events] == ["2025-03-02T11:00:00Z", "2025-03-02T10:30:00Z"]
    assert {(i.text, i.done) for i in merged.items(stm.TASKS)} == {("call Ana", True), ("book the train", False)}
    changed_ours, changed_theirs = base.replace("shared event", "edited here"), base.replace("shared event", "edited there")
    assert merge_short_term(base, changed_ours, changed_theirs) is None   # one event edited twice: left to the person


def _sync_cli(root: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "braniac", "--vault", str(root), "sync"], env=clean_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow   # real processes racing: a few seconds each, more on a busy machine
def test_syncs_at_once_lose_no_commit(shared):
    remote, a, b = shared
    for i in range(3):
        a.remember(f"laptop note {i}")
        b.remember(f"server note {i}")
    git(a.root, "add", "-A"); git(a.root, *PERSON, "commit", "-qm", "laptop work")     # noqa: E702
    git(b.root, "add", "-A"); git(b.root, *PERSON, "commit", "-qm", "server work")     # noqa: E702
    mine, theirs = git(a.root, "rev-parse", "HEAD"), git(b.root, "rev-parse", "HEAD")
    runs = [_sync_cli(a.root), _sync_cli(a.root), _sync_cli(b.root), _sync_cli(b.root)]
    outs = [p.communicate(timeout=120) for p in runs]
    assert all(p.returncode == 0 for p in runs), outs
    for vault in (a, b):
        assert run_cli("--vault", vault.root, "sync").returncode == 0
    head = git(remote, "rev-parse", "HEAD")
    for commit in (mine, theirs):   # both machines' work is in the shared history
        subprocess.run(["git", "merge-base", "--is-ancestor", commit, head], cwd=remote, check=True)
    assert git(a.root, "rev-parse", "HEAD") == git(b.root, "rev-parse", "HEAD") == head
    text = (a.root / "memory/short_term.md").read_text()
    assert all(text.count(f"{who} note {i}") == 1 for who in ("laptop", "server") for i in range(3))
    for repo in (remote, a.root, b.root):
        subprocess.run(["git", "fsck", "--strict", "--no-progress"], cwd=repo, check=True, capture_output=True)


def test_two_machines_sync_with_no_git_identity_configured(tmp_path):
    """A fresh machine has no `user.name` or `user.email`: braniac's own commits and the merge
    of what two machines both changed still go through (as `braniac <braniac@localhost>`)."""
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(HOME=str(home), XDG_CONFIG_HOME=str(home), GIT_CONFIG_NOSYSTEM="1")
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        env.pop(name, None)
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True, env=env)
    laptop, desktop = tmp_path / "laptop", tmp_path / "desktop"
    for args in (("init", "--git", "--remote", remote, laptop), ("--vault", laptop, "sync"), ("clone", remote, desktop),
                 ("--vault", laptop, "remember", "Ana lives in Porto."), ("--vault", laptop, "sync"),
                 ("--vault", desktop, "remember", "Rui works at Unbabel."), ("--vault", desktop, "sync"),
                 ("--vault", laptop, "sync")):
        result = run_cli(*args, env=env)
        assert result.returncode == 0, (args, result.stdout, result.stderr)
    for machine in (laptop, desktop):
        stm_text = (machine / "memory/short_term.md").read_text(encoding="utf-8")
        assert "Ana lives in Porto." in stm_text and "Rui works at Unbabel." in stm_text


def test_sync_needs_a_remote_and_clone_needs_a_vault(tmp_path):
    run_cli("init", "--git", tmp_path / "v")
    assert_clean_error(run_cli("--vault", tmp_path / "v", "sync"), "no git remote 'origin'")
    empty = tmp_path / "empty.git"
    subprocess.run(["git", "init", "-q", "--bare", str(empty)], check=True)
    assert_clean_error(run_cli("clone", empty, tmp_path / "c"), "holds no braniac vault")
    assert not (tmp_path / "c").exists()


def test_sync_skips_while_a_worker_holds_the_vault(shared):
    _, a, _ = shared
    from braniac.infra.fsio import locked
    with locked(a.lock_path("ltm")):
        result = run_cli("--vault", a.root, "sync")
    assert result.returncode == 0 and result.stdout.strip().startswith("sync skipped:"), result
    assert len(result.stdout.strip().splitlines()) == 1


def test_a_note_promoted_into_on_both_machines_keeps_every_claim_and_citation(tmp_path):
    from braniac.processes.sync.note_merge import merge_note
    vault, _ = Vault.init(tmp_path / "v")
    path = vault.ltm_root / "concrete" / "ana.md"

    def cite(*ids: str) -> str:
        return "(" + ", ".join(f"[{i}](../events/{i[:4]}/{i[5:7]}/{i[8:10]}/{i.replace(':', '-')}.md)" for i in ids) + ")"

    def note(facts: list[str], related: list[str], updated: str) -> str:
        return ("---\nuuid: 5e0c7c9e-3c1a-4d55-8f0e-9a1b2c3d4e5f\ntitle: Ana\ncreated_at: 2025-03-01T10:00:00Z\n"
                f"updated_at: {updated}\ntags: [people]\nemotion: neutral\nsources: []\n---\n# Ana\n\n## Facts\n"
                + "".join(f"- {f}\n" for f in facts) + "\n## Related Memories\n" + "".join(f"- {r}\n" for r in related))
    e0, e1, e2, e3 = "2025-03-01T10:00:00Z", "2025-03-02T10:00:00Z", "2025-03-02T10:00:00.001Z", "2025-03-03T10:00:00Z"
    porto = '[Porto](places/porto.md "uuid:9f1e2d3c-0000-4000-8000-000000000001")'
    base = note([f"2025-03-01 — Ana works at Unbabel. {cite(e0)}"], [], "2025-03-01T10:00:00Z")
    ours = note([f"2025-03-01 — Ana works at Unbabel. {cite(e0, e1)}"], [porto], "2025-03-02T11:00:00Z")
    theirs = note([f"2025-03-01 — Ana works at Unbabel. {cite(e0, e2)}", f"2025-03-03 — Ana plays the cello. {cite(e3)}"],
                  [porto + " — co-accessed, weight 0.40 (renewed 2025-03-03)"], "2025-03-03T11:00:00Z")
    merged = FactNote(notes.parse(
        merge_note(vault, path, base, ours, theirs), path=path), path)
    facts = merged.facts(FACTS)
    assert [f.text for f in facts] == ["2025-03-01 — Ana works at Unbabel.", "2025-03-03 — Ana plays the cello."]
    assert set(facts[0].sources) == {e0, e1, e2} and facts[1].sources == [e3]
    assert len(merged.related) == 1 and merged.note.text("updated_at") == "2025-03-03T11:00:00Z"
    assert set(merged.note.meta["sources"]) == {e0, e1, e2, e3}


@pytest.mark.parametrize("width", [7, 8], ids=["plain", "nested"])
def test_git_markers_left_in_memory_are_seen_whatever_their_length(tmp_path, width):
    # git writes 8-character markers for a line both machines changed in a note each renamed
    vault, _ = Vault.init(tmp_path / "v")
    vault = Vault(vault.root)
    conflict = (f"{'<' * width} HEAD:memory/long_term/mine/garden-b.md\nBasil (B).\n{'=' * width}\nBasil (A).\n"
                f"{'>' * width} 2eb404ba:memory/long_term/mine/garden-a.md\n")
    note = vault.root / "memory/long_term/concrete/garden.md"
    note.write_text("---\nuuid: 7d1c0a52-3333-4b7e-9a57-3c2d1e0f9a01\ncreated_at: 2025-03-01T10:00:00Z\n"
                    "updated_at: 2025-03-01T10:00:00Z\ntags: []\nemotion: neutral\n---\n# Garden\n\n" + conflict)
    stm_path = vault.root / "memory/short_term.md"
    stm_path.write_text(stm_path.read_text().replace("## Event Log\n", "## Event Log\n\n" + conflict, 1))
    with pytest.raises(BraniacError, match="git conflict"):
        vault.remember("Said while the markers were there.")
    assert "Said while" not in stm_path.read_text()
    found = {f.path for f in vault.doctor() if f.severity == "problem" and "conflict" in f.reason}
    assert found == {"memory/long_term/concrete/garden.md", "memory/short_term.md"}
