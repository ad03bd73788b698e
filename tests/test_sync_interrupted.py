"""`braniac sync` killed in the middle of a merge, and a note renamed differently on two machines.
Real git, a bare remote on disk; the killed sync is a real process that SIGKILLs itself."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from braniac import Vault

from helpers import clean_env, run_cli

MARKERS = re.compile(r"^(<{7}|={7}|>{7})( |$)", re.MULTILINE)

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
    (b.root / names[0]).unlink()    # the person keeps one of the two
    done = b.sync()
    assert done.exit_code == 0 and done.sent, done.describe()
    assert _with_uuid(b.root, GARDEN) == [names[1]]
    assert "Said on a: the plumber" in (b.root / "memory/short_term.md").read_text()
