"""The `braniac` command, run as a real process."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from braniac import Vault

from helpers import assert_clean_error, clean_env, run_cli, snapshot


def event_id(result) -> str:
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip().splitlines()[-1]
    assert line.startswith("remembered as event ")
    return line.split()[-1]


# ------------------------------------------------------------------------------ init

def test_init_creates_a_healthy_vault(tmp_path):
    result = run_cli("init", tmp_path / "v")
    assert result.returncode == 0, result.stderr
    assert "braniac vault ready at" in result.stdout and result.stderr == ""
    vault = Vault(tmp_path / "v")
    assert vault.doctor() == []
    doctor = run_cli("--vault", vault.root, "doctor")
    assert doctor.returncode == 0 and doctor.stdout.strip() == "healthy"


def test_init_refuses_a_non_empty_folder_without_force(tmp_path):
    root = tmp_path / "v"
    root.mkdir()
    (root / "notes.txt").write_text("mine")
    before = snapshot(root)
    result = run_cli("init", root)
    assert_clean_error(result, str(root), "not empty", "--force")
    assert snapshot(root) == before


def test_init_force_only_adds_missing_files_and_never_overwrites(tmp_path):
    root = tmp_path / "v"
    assert run_cli("init", root).returncode == 0
    identity = root / "system" / "core_identity.md"
    identity.write_text("my identity, edited\n")
    (root / "memory" / "long_term" / "skills" / "_index.md").unlink()
    (root / "mine.md").write_text("mine")
    kept = {k: v for k, v in snapshot(root).items()}
    result = run_cli("init", "--force", root)
    assert result.returncode == 0, result.stderr
    assert "(1 files created" in result.stdout
    after = snapshot(root)
    assert set(after) == set(kept) | {"memory/long_term/skills/_index.md"}
    for rel, (data, mtime) in kept.items():
        assert after[rel] == (data, mtime), rel
    assert identity.read_text() == "my identity, edited\n"
    # and once more: nothing left to add, nothing touched
    result = run_cli("init", "--force", root)
    assert "(0 files created" in result.stdout and snapshot(root) == after


def test_init_on_an_existing_vault_touches_nothing(tmp_path):
    root = tmp_path / "v"
    run_cli("init", root)
    (root / "system" / "core_identity.md").write_text("edited\n")
    before = snapshot(root)
    result = run_cli("init", root)            # re-running a set-up line is fine, and changes nothing
    assert result.returncode == 0, result.stderr
    assert "already a braniac vault" in result.stdout
    assert snapshot(root) == before


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_init_git_makes_one_commit(tmp_path):
    root = tmp_path / "v"
    result = run_cli("init", "--git", root)
    assert result.returncode == 0, result.stderr
    assert "git repository" in result.stdout

    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout

    assert git("rev-list", "--count", "HEAD").strip() == "1"
    assert git("status", "--porcelain") == ""
    tracked = set(git("ls-files").split())
    assert {"system/core_identity.md", "memory/short_term.md", "memory/long_term/_index.md", "braniac.toml"} <= tracked
    assert "autocommit = true" in (root / "braniac.toml").read_text()


def test_init_with_a_leading_dash_name(tmp_path):
    result = run_cli("init", "--", "-odd name ü", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    root = tmp_path / "-odd name ü"
    assert Vault(root).doctor() == []
    for args in (["--vault", "-odd name ü"], ["--vault=-odd name ü"]):
        stats = run_cli(*args, "stats", "--json", cwd=tmp_path)
        assert stats.returncode == 0, stats.stderr
        assert json.loads(stats.stdout)["vault"] == str(root)
    assert event_id(run_cli("--vault=-odd name ü", "remember", "--", "-starts with a dash", cwd=tmp_path))
    assert Vault(root).read_stm().events[0].fields["User"] == "-starts with a dash"


# ------------------------------------------------------------------------------ finding the vault

def test_vault_discovery_order(tmp_path):
    for name in ("a", "b", "c"):
        assert run_cli("init", tmp_path / name).returncode == 0
    sub = tmp_path / "c" / "memory" / "long_term" / "concrete"

    def which(*args, env=None):
        result = run_cli(*args, "stats", "--json", cwd=sub, env=env)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)["vault"]

    with_env = clean_env(BRANIAC_VAULT=str(tmp_path / "b"))
    assert which("--vault", tmp_path / "a", env=with_env) == str(tmp_path / "a")
    assert which(env=with_env) == str(tmp_path / "b")
    assert which() == str(tmp_path / "c")


def test_no_vault_anywhere_is_a_one_line_error(tmp_path):
    result = run_cli("remember", "x", cwd=tmp_path)
    assert_clean_error(result, str(tmp_path), "braniac init PATH", "--vault", "BRANIAC_VAULT")


@pytest.mark.parametrize("make", ["missing", "empty"])
def test_vault_that_does_not_exist_or_is_not_a_vault(tmp_path, make):
    path = tmp_path / "nope"
    if make == "empty":
        path.mkdir()
    for command in (["remember", "x"], ["doctor"], ["stats", "--json"]):
        result = run_cli("--vault", path, *command)
        assert_clean_error(result, str(path), "braniac init PATH")
        assert result.stdout == ""
    result = run_cli("remember", "x", env=clean_env(BRANIAC_VAULT=str(path)), cwd=tmp_path)
    assert_clean_error(result, str(path), "braniac init PATH")
    assert sorted(tmp_path.iterdir()) == ([path] if make == "empty" else [])


# ------------------------------------------------------------------------------ commands

def test_remember_prints_the_event_id_it_stored(vault):
    first = event_id(run_cli("--vault", vault.root, "remember", "The", "deploy key", "is in 1Password"))
    second = event_id(run_cli("remember", "-", cwd=vault.root / "memory", input="from stdin\nsecond line\n"))
    events = vault.read_stm().events
    assert [e.id for e in events] == [second, first]
    assert events[1].fields["User"] == "The deploy key is in 1Password"
    assert events[0].fields["User"] == "from stdin\nsecond line"
    assert first != second


def test_doctor_json_and_exit_codes(vault):
    result = run_cli("--vault", vault.root, "doctor", "--json")
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"vault": str(vault.root), "healthy": True, "problems": [], "warnings": []}

    (vault.ltm_root / "concrete" / "bad.md").write_text("---\nuuid: a\n---\nno other keys\n", encoding="utf-8")
    result = run_cli("--vault", vault.root, "doctor", "--json")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["healthy"] is False
    reasons = {(p["path"], p["reason"]) for p in data["problems"]}
    assert ("memory/long_term/concrete/bad.md", "missing required frontmatter key 'emotion'") in reasons
    assert {"path": "memory/long_term/concrete/_index.md", "reason": "'bad.md' is not in the manifest",
            "severity": "warning"} in data["warnings"]

    text = run_cli("--vault", vault.root, "doctor")
    assert text.returncode == 1
    assert "problem  memory/long_term/concrete/bad.md: missing required frontmatter key 'tags'" in text.stdout
    assert text.stderr.strip().endswith("problem(s) found")


def test_a_link_in_what_was_said_keeps_the_vault_healthy_once_archived(vault):
    """A person's message with a relative link ("[the setup guide](docs/setup.md)") or one out of
    the vault is archived word for word: doctor names it as a warning, never a problem nothing fixes."""
    vault.remember("The setup steps for the billing repo are in [the setup guide](docs/setup.md).")
    vault.remember("My old notes were at [home](/etc/passwd).")
    vault.promote(force=True)
    result = run_cli("--vault", vault.root, "doctor", "--json")
    assert result.returncode == 0, result.stdout
    data = json.loads(result.stdout)
    said = [w["reason"] for w in data["warnings"] if w["path"].startswith("memory/long_term/events/")]
    assert "link 'docs/setup.md' in what was said opens no note (kept as said)" in said, data
    assert "link '/etc/passwd' in what was said opens no note (kept as said)" in said, data
    # a link braniac wrote (the day's digest citing an event) that does not resolve is still a problem
    digest = next((vault.ltm_root / "events").rglob("digest.md"))
    digest.write_text(digest.read_text(encoding="utf-8").replace("Z.md)", "Z-gone.md)"), encoding="utf-8")
    assert run_cli("--vault", vault.root, "doctor").returncode == 1


def test_stats_json(vault):
    run_cli("--vault", vault.root, "remember", "one")
    run_cli("--vault", vault.root, "remember", "two")
    result = run_cli("--vault", vault.root, "stats", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["vault"] == str(vault.root)
    assert data["long_term"] == {"concrete": 0, "events": 0, "skills": 0, "other": 0, "indexes": 4}
    assert data["short_term"]["events"] == 2
    assert data["last_promotion"] is None
    plain = run_cli("--vault", vault.root, "stats")
    assert plain.returncode == 0 and "2 events" in plain.stdout


def test_debug_shows_the_traceback(tmp_path):
    quiet = run_cli("--vault", tmp_path / "missing", "stats")
    assert_clean_error(quiet, "no such folder")
    loud = run_cli("--vault", tmp_path / "missing", "stats", env=clean_env(BRANIAC_DEBUG="1"))
    assert loud.returncode == 2
    assert "Traceback (most recent call last)" in loud.stderr and "VaultNotFound" in loud.stderr
    assert loud.stderr.rstrip().splitlines()[-1] == quiet.stderr.strip()


def test_version_and_help():
    version = run_cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("braniac, version ")
    helped = run_cli("--help")
    assert helped.returncode == 0 and "init" in helped.stdout and "remember" in helped.stdout


def test_entry_point_script_works(tmp_path):
    exe = Path(sys.executable).parent / "braniac"   # the console script installed with the package
    assert exe.exists()
    result = subprocess.run([str(exe), "init", str(tmp_path / "v")], capture_output=True, text=True, env=clean_env())
    assert result.returncode == 0, result.stderr
    assert Vault(tmp_path / "v").doctor() == []
