"""`braniac sync` killed in the middle of a merge, and a note renamed differently on two machines.
Real git, a bare remote on disk; the killed sync is a real process that SIGKILLs itself."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from braniac import Vault
from braniac.infra import clock
from braniac.infra.fsio import TEMP_SUFFIX

from helpers import clean_env, run_cli

MARKERS = re.compile(r"^(<{7,}|={7,}|>{7,})( |$)", re.MULTILINE)   # (git nests: 8 and more)

# `braniac ARGS` that kills itself (SIGKILL, nothing cleaned up) right after the nth git call or
# file replacement in the vault, counted from the `git merge` on
KILLER = """
import os, signal, sys
from braniac.infra import git
what, nth, vault = sys.argv[1], int(sys.argv[2]), os.path.realpath(sys.argv[4])
seen = {"merged": False, "count": 0}

def step(name):
    if seen["merged"] and name == what:
        seen["count"] += 1
        if seen["count"] == nth:
            os.kill(os.getpid(), signal.SIGKILL)

def wrap(call):
    def run(root, *args, check=True):
        result = call(root, *args, check=check)
        seen["merged"] = seen["merged"] or ("merge" in args and "--no-commit" in args)
        step("merge" if "merge" in args else args[0])
        return result
    return run

git.run, git.run_quiet = wrap(git.run), wrap(git.run_quiet)
replace = os.replace
def replaced(src, dst, *rest, **options):
    replace(src, dst, *rest, **options)
    if os.path.realpath(dst).startswith(vault + os.sep):
        step("replace")
os.replace = replaced
from braniac.app.cli import main
sys.argv = ["braniac", *sys.argv[3:]]
main()
"""

FRONT = "---\nuuid: {uuid}\ncreated_at: 2025-03-01T10:00:00Z\nupdated_at: 2025-03-01T10:00:00Z\ntags: []\nemotion: neutral\n---\n"
ANA = "0b7a3c1e-5f00-4a11-9c3d-2e1f0a9b8c7d"
RUI_A, RUI_B = "1c8b4d2f-0000-4a11-9c3d-2e1f0a9b8c7d", "1c8b4d2f-1111-4a11-9c3d-2e1f0a9b8c7d"


def files_of(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*"))
            if p.is_file() and p.relative_to(root).parts[0] not in (".git", ".braniac")}


def _unstamped(files: dict[str, str]) -> dict[str, str]:
    return {rel: re.sub(r"(?m)^updated_at: .*$", "", text) if rel.endswith("_index.md") else text
            for rel, text in files.items()}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def _both_changed(a: Vault, b: Vault) -> None:
    """Short-term memory, a note's History and a note made on both machines (a uuid each),
    changed on A (pushed) and on B: each needs braniac's own merge."""
    note = a.root / "memory/long_term/concrete/ana.md"
    note.write_text(FRONT.format(uuid=ANA) + "# Ana\n\nAna.\n\n## History\n- 2025-03-01 — Ana lived in Braga.\n")
    assert a.sync().sent and b.sync().exit_code == 0
    for vault, side, rui in ((a, "A", RUI_A), (b, "B", RUI_B)):
        path = vault.root / "memory/long_term/concrete/ana.md"
        path.write_text(path.read_text() + f"- 2025-03-0{2 if side == 'A' else 3} — Ana said something to {side}.\n")
        (vault.root / "memory/long_term/concrete/rui.md").write_text(FRONT.format(uuid=rui) + f"# Rui\n\nRui, as {side} knew him.\n")
        vault.remember(f"Told to {side}: the ferry leaves at nine.")
    (a.root / "memory/long_term/concrete/lia.md").write_text(
        FRONT.format(uuid="2d9c5e3a-5f00-4a11-9c3d-2e1f0a9b8c7d")
        + f'# Lia\n\nFriend of [Rui](rui.md "uuid:{RUI_A}").\n')
    assert a.sync().sent


@pytest.mark.slow   # a few real syncs per kill point
@pytest.mark.parametrize("kill", [("merge", 1), ("replace", 1), ("add", 1), ("add", 2)],
                         ids=["after-git-merge", "after-first-write", "after-first-file", "after-second-file"])
def test_a_sync_killed_while_it_merges_is_finished_by_the_next(shared, tmp_path, kill):
    _, a, b = shared
    _both_changed(a, b)
    reference = tmp_path / "reference"   # the same merge, never interrupted (not pushed)
    shutil.copytree(b.root, reference, symlinks=True)
    assert Vault(reference).sync(push=False).exit_code == 0

    killed = subprocess.run([sys.executable, "-c", KILLER, kill[0], str(kill[1]), "--vault", str(b.root), "sync"],
                            env=clean_env(), capture_output=True, text=True, timeout=120)
    assert killed.returncode == -9, killed.stderr              # it died at that step, mid-merge
    assert (b.root / ".git/MERGE_HEAD").exists()

    again = run_cli("--vault", b.root, "sync")
    assert again.returncode == 0, again.stdout + again.stderr
    assert git(b.root, "status", "--porcelain") == "" and not (b.root / ".git/MERGE_HEAD").exists()
    # the same files, but for the second a folder's `_index.md` was rebuilt
    assert _unstamped(files_of(b.root)) == _unstamped(files_of(reference))
    texts = files_of(b.root)
    assert not [rel for rel, text in texts.items() if MARKERS.search(text)]
    assert not [rel for rel, text in texts.items() if RUI_A in text]   # links follow the Rui kept
    assert "Ana said something to A" in texts["memory/long_term/concrete/ana.md"]
    assert "Ana said something to B" in texts["memory/long_term/concrete/ana.md"]
    assert [f for f in Vault(b.root).doctor() if f.severity == "problem"] == []
    assert a.sync().exit_code == 0 and files_of(a.root) == files_of(b.root)


GARDEN = "5e0c7c9e-3c1a-4d55-8f0e-9a1b2c3d4e5f"


def _renamed_on_both(a: Vault, b: Vault, a_line: str, b_line: str) -> None:
    old = a.root / "memory/long_term/mine/garden.md"
    old.parent.mkdir(parents=True)
    old.write_text(FRONT.format(uuid=GARDEN) + "# Garden\n\nTomatoes go in the south bed.\n\nBasil next to them.\n")
    assert a.sync().sent and b.sync().exit_code == 0
    for vault, side, line in ((a, "a", a_line), (b, "b", b_line)):
        text = (vault.root / "memory/long_term/mine/garden.md").read_text()
        (vault.root / "memory/long_term/mine/garden.md").unlink()
        (vault.root / f"memory/long_term/mine/garden-{side}.md").write_text(text.replace(*line))
        vault.remember(f"Said on {side}: the plumber is Rui.")
    assert a.sync().sent


def _with_uuid(root: Path, uuid: str) -> list[str]:
    return sorted(rel for rel, text in files_of(root).items() if f"uuid: {uuid}" in text)


def test_a_note_renamed_differently_on_two_machines_stays_one_note_with_both_edits(shared):
    _, a, b = shared
    _renamed_on_both(a, b, ("south bed.", "south bed, in April."), ("next to them.", "next to them, and mint."))
    report = b.sync()
    assert report.exit_code == 0 and report.sent, report.describe()
    assert report.renamed_twice == ["memory/long_term/mine/garden-a.md -> memory/long_term/mine/garden-b.md"]
    assert "both renamed" in report.describe()
    assert _with_uuid(b.root, GARDEN) == ["memory/long_term/mine/garden-b.md"]   # this machine's name
    text = (b.root / "memory/long_term/mine/garden-b.md").read_text()
    assert "south bed, in April." in text and "next to them, and mint." in text and not MARKERS.search(text)
    assert a.sync().exit_code == 0 and files_of(a.root) == files_of(b.root)
    assert [f for f in b.doctor() if f.severity == "problem"] == []


def test_a_note_renamed_and_changed_in_the_same_line_on_two_machines_waits_for_the_person(shared):
    _, a, b = shared
    _renamed_on_both(a, b, ("south bed.", "south bed, in April."), ("south bed.", "north bed."))
    names = ["memory/long_term/mine/garden-a.md", "memory/long_term/mine/garden-b.md"]
    for _ in range(2):   # stopped, and again on a second run the person has not acted on
        result = run_cli("--vault", b.root, "sync")
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stdout + result.stderr
        said = [line for line in result.stderr.splitlines() if "search index" not in line]
        assert len(said) == 1 and all(name in said[0] for name in names), result.stderr
        assert (b.root / ".git/MERGE_HEAD").exists() and _with_uuid(b.root, GARDEN) == names
    (b.root / names[0]).unlink()    # the person keeps one of the two...
    kept = b.root / names[1]
    assert MARKERS.search(kept.read_text())    # (git's markers of 8 characters: a conflict in a rename)
    waits = b.sync()                           # ...and has not taken git's markers out of it yet
    assert waits.exit_code == 1 and waits.conflicts == [names[1]] and not waits.sent, waits.describe()
    assert (b.root / ".git/MERGE_HEAD").exists() and (b.root / names[0]).exists() is False
    assert names[1] in {f.path for f in b.doctor() if f.severity == "problem"}
    kept.write_text("".join(line for line in kept.read_text().splitlines(keepends=True)
                            if not MARKERS.match(line) and "in April" not in line))
    done = b.sync()
    assert done.exit_code == 0 and done.sent, done.describe()
    assert _with_uuid(b.root, GARDEN) == [names[1]]
    assert "north bed." in kept.read_text() and not MARKERS.search(kept.read_text())
    assert "Said on a: the plumber" in (b.root / "memory/short_term.md").read_text()
    assert a.sync().exit_code == 0 and files_of(a.root) == files_of(b.root)


# `braniac ARGS` that kills itself (SIGKILL) right after the nth step of what comes between its
# fetch and its merge (where it renumbers event ids): a git call, or a file linked, unlinked or
# replaced in the vault
RENUMBER_KILLER = """
import os, signal, sys
from braniac.infra import git
nth, vault = int(sys.argv[1]), os.path.realpath(sys.argv[3])
seen = {"on": False, "count": 0}

def step():
    if seen["on"]:
        seen["count"] += 1
        if seen["count"] == nth:
            os.kill(os.getpid(), signal.SIGKILL)

def wrap_git(call):
    def run(root, *args, check=True):
        seen["on"] = seen["on"] and "merge" not in args
        result = call(root, *args, check=check)
        step()
        seen["on"] = seen["on"] or "fetch" in args
        return result
    return run

git.run, git.run_quiet = wrap_git(git.run), wrap_git(git.run_quiet)

def wrap_os(name):
    call = getattr(os, name)
    def changed(first, *rest, **options):
        result = call(first, *rest, **options)
        path = os.path.realpath(rest[0] if rest else first)
        if path.startswith(vault + os.sep) and not path.startswith((vault + "/.git/", vault + "/.braniac/")):
            step()
        return result
    setattr(os, name, changed)

for name in ("replace", "link", "unlink"):
    wrap_os(name)
from braniac.app.cli import main
sys.argv = ["braniac", *sys.argv[2:]]
main()
"""


def _same_seconds_on_both(a: Vault, b: Vault) -> None:
    """Both machines remember two things in the same two moments (the same two event ids) and
    promote them; A's are pushed, so B's sync renumbers B's."""
    at = datetime(2025, 3, 4, 10, 0, 0, tzinfo=timezone.utc)
    for vault, side, drink, other in ((a, "A", "tea", "Rui sold his boat"), (b, "B", "coffee", "Lia plays the cello")):
        with clock.frozen(at):
            vault.remember(f"Ana likes {drink} (said on {side}).")
            vault.remember(f"{other} (told {side}).")
        with clock.frozen(at + timedelta(hours=1)):
            assert vault.promote(force=True).status == "done"
    assert a.sync().sent


def _cited_events(root: Path, text: str) -> list[str]:
    """What the archived events cited by the claim holding `text` say (their `**User:**` lines)."""
    note = next(p for p in (root / "memory/long_term").rglob("*.md") if "/events/" not in p.as_posix()
                and text in p.read_text() and "## Facts" in p.read_text())
    line = next(line for line in note.read_text().splitlines() if text in line)
    said = []
    for target in re.findall(r"\]\(([^)\s]+\.md)", line):
        event = (note.parent / target).resolve()
        said.append(next(x for x in event.read_text().splitlines() if x.startswith("**User:**")) if event.exists() else "")
    return said


@pytest.mark.slow   # a real killed sync per step of renumbering
def test_a_sync_killed_while_it_renumbers_event_ids_is_finished_by_the_next(shared, tmp_path):
    _, a, b = shared
    _same_seconds_on_both(a, b)
    reference = tmp_path / "reference"   # the same sync, never interrupted (not pushed)
    shutil.copytree(b.root, reference, symlinks=True)
    done = Vault(reference).sync(push=False)
    assert sorted(done.renumbered.values()) == ["2025-03-04T10:00:00.002Z", "2025-03-04T10:00:00.003Z"]
    assert _cited_events(reference, "likes coffee") == ['**User:** "Ana likes coffee (said on B)."']
    before = git(b.root, "rev-parse", "HEAD")
    subjects = git(reference, "log", "--format=%s", f"{before}..HEAD")
    assert "renumber events" in subjects and "changes made on this machine" not in subjects
    step = 0
    while True:
        step += 1
        assert step < 80, "the renumbering never ran to its end"
        killed_vault = tmp_path / f"killed-{step}"
        shutil.copytree(b.root, killed_vault, symlinks=True)
        killed = subprocess.run([sys.executable, "-c", RENUMBER_KILLER, str(step), "--vault", str(killed_vault),
                                 "sync", "--no-push"], env=clean_env(), capture_output=True, text=True, timeout=120)
        if killed.returncode == 0:
            break          # past the merge: every step before it was a kill point
        assert killed.returncode == -9, killed.stderr
        again = Vault(killed_vault).sync(push=False)
        assert again.exit_code == 0, (step, again.describe())
        # the same files and commits as the sync that was never killed: no half-renumbered
        # citation was committed as "changes made on this machine", none points at A's event
        # (but for the temp file a writer killed between its link and its unlink leaves: git-ignored)
        left = {rel: text for rel, text in files_of(killed_vault).items() if not rel.endswith(TEMP_SUFFIX)}
        assert _unstamped(left) == _unstamped(files_of(reference)), step
        assert git(killed_vault, "log", "--format=%s", f"{before}..HEAD") == subjects, step
        assert _cited_events(killed_vault, "likes coffee") == ['**User:** "Ana likes coffee (said on B)."'], step
        assert git(killed_vault, "status", "--porcelain") == ""
        assert not (killed_vault / ".braniac/sync/renumber.json").exists()
    assert step > 10   # (each file moved and rewritten, the commit)


@pytest.mark.parametrize("journal", ["onto-another-event", "onto-itself", "not-a-commit"])
def test_a_renumbering_record_that_does_not_fit_the_vault_changes_nothing(shared, journal):
    _, a, _ = shared
    at = datetime(2025, 3, 4, 10, 0, 0, tzinfo=timezone.utc)
    with clock.frozen(at):
        first, second = a.remember("Ana likes tea.").id, a.remember("Rui sold his boat.").id
    with clock.frozen(at + timedelta(hours=1)):
        assert a.promote(force=True).status == "done"
    assert a.sync().sent and first != second
    before = files_of(a.root)
    renamed, theirs = {"onto-another-event": ({first: second}, "0" * 40), "onto-itself": ({first: first}, "0" * 40),
                       "not-a-commit": ({first: "2025-03-04T10:00:00.009Z"}, "--all")}[journal]
    record = a.root / ".braniac/sync/renumber.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"renamed": renamed, "theirs": theirs}))
    result = run_cli("--vault", a.root, "sync")
    assert result.returncode == 0, result.stdout + result.stderr
    assert files_of(a.root) == before and not record.exists()
    assert "does not fit this vault" in result.stderr      # set aside, and said so
    assert "renumber" not in git(a.root, "log", "-1", "--format=%s")
    assert [f for f in a.doctor() if f.severity == "problem"] == []
