"""States braniac must never leave behind, and data it must never drop (issue 15: "stuck forever",
"data lost"; issue 16 item 3). Each test builds the state a kill, a full disk or an odd file
leaves, with real files, real git and real processes killed at a chosen point (a child that
SIGKILLs itself at a hook: deterministic, not a race), then checks that the next run completes
and that nothing was lost or left uncommitted.
"""
from __future__ import annotations

import errno
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from braniac import ScriptedModel, Vault
from braniac.infra.config import load as load_config
from braniac.model.offline import OfflineModel
from braniac.model.organization_types import OrganizationPlan
from braniac.processes.promotion import promote
from braniac.vault import notes

import forked
from fake_llm import Raw, configure_vault
from helpers import check_healthy, clean_env, scratch_dir
from test_organize import build_scenario

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


def killed_at(root: Path, hook: str, args: list[str], *, when: str = "True") -> int:
    """Run `braniac ARGS` in a real process that SIGKILLs itself when `hook` (module:attribute)
    is called with arguments for which `when` (an expression over `args`) holds."""
    proc = start_hooked(root, hook, args, when=when, action="os.kill(os.getpid(), signal.SIGKILL)")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, f"the hook {hook} was never reached: {err}"
    return proc.returncode


def disk_full_at(root: Path, hook: str, args: list[str], *, when: str = "True") -> subprocess.CompletedProcess:
    """Run `braniac ARGS` in a real process whose disk is full (ENOSPC) from the moment `hook` is
    called with arguments for which `when` holds: that call and every later write fail."""
    proc = start_hooked(root, hook, args, when=when, action="disk_full(args)", setup=DISK_FULL)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


# the child's disk fills up when disk_full() is called: os.write and every open for writing fail
DISK_FULL = """
import builtins, io
full = []
real_write, real_io_open = os.write, io.open
def disk_full(args):
    full.append(1)
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(args[0]) if args else None)
def write(fd, data):
    if full:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return real_write(fd, data)
def io_open(file, mode="r", *a, **k):
    if full and any(c in mode for c in "wax+"):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(file))
    return real_io_open(file, mode, *a, **k)
os.write = write
builtins.open = io.open = io_open
"""


# a person's process, not root's (a read-only folder stops only them): as root, the child gives
# itself the uid of `nobody`, which owns the vault (see owned_by_person)
AS_PERSON = """
import pwd
import encodings.latin_1   # what the person's process imports later, while it still can read it
if os.getuid() == 0:
    person = pwd.getpwnam("nobody")
    os.setgroups([])
    os.setgid(person.pw_gid)
    os.setuid(person.pw_uid)
"""


def owned_by_person(root: Path) -> None:
    """The vault belongs to the user AS_PERSON runs as."""
    if os.getuid() != 0:
        return
    import pwd
    person = pwd.getpwnam("nobody")
    for here, dirs, files in os.walk(root):
        for name in [here, *(os.path.join(here, n) for n in dirs + files)]:
            os.lchown(name, person.pw_uid, person.pw_gid)
    for folder in [root, *root.parents]:   # every folder above it must let them through
        if folder.stat().st_mode & 0o005 != 0o005:
            os.chmod(folder, folder.stat().st_mode | 0o005)


def start_hooked(root: Path, hook: str, args: list[str], *, when: str, action: str, setup: str = "") -> forked.Forked:
    """`braniac ARGS` in a real process where `hook` (module:attribute) runs `action` (a statement
    over `args`) when it is called with arguments for which `when` holds."""
    module, name = hook.split(":")
    code = "\n".join([
        "import errno, os, signal, sys, importlib",
        setup,
        f"target = importlib.import_module({module!r})",
        f"original = getattr(target, {name!r})",
        "def hooked(*args, **kwargs):",
        f"    if {when}:",
        f"        {action}",
        "    return original(*args, **kwargs)",
        f"setattr(target, {name!r}, hooked)",
        "from braniac.app.cli import main",
        f"sys.argv = ['braniac', '--vault', {str(root)!r}, *{args!r}]",
        "main()",
    ])
    return forked.start(code=code, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)


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


# ------------------------------------------------------------------------------ 18, 16.3: every change committed

def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def uncommitted(root: Path) -> list[str]:
    """What `git status` shows (staged, changed, deleted or new), braniac's derived state aside."""
    return git(root, "status", "--porcelain", "--untracked-files=all").splitlines()


MOVED_FROM = "memory/long_term/concrete/tech/lang/rust/ownership.md"   # organize moves it up


@pytest.mark.parametrize("hook, when", [
    # links repaired, the old copy still there (in the vault: the gate's staging copy moves first)
    ("braniac.vault.moves:_remove", "'/.braniac/' not in str(args[1])"),
    ("braniac.processes.organization.run:rotate", "True"),             # every move done, nothing committed
    ("braniac.infra.git:run", "'commit' in args"),                     # git add done, git commit not
], ids=["after-link-repairs", "before-the-commit", "between-add-and-commit"])
@pytest.mark.parametrize("next_run", ["organize", "promote"])
def test_a_killed_organize_run_has_every_change_committed_by_the_next_run(tmp_path, hook, when, next_run):
    scenario = build_scenario(tmp_path / "v", use_git=True)
    root = scenario.vault.root
    assert uncommitted(root) == []
    killed_at(root, hook, ["organize"], when=when)
    assert uncommitted(root), "the kill left nothing to commit: the hook came too late"
    assert cli(root, next_run, *(["--force"] if next_run == "promote" else [])).returncode == 0
    if next_run == "promote":   # the moves a killed run left in its journal are organize's to finish
        assert cli(root, "organize").returncode == 0
    assert uncommitted(root) == []
    assert MOVED_FROM not in git(root, "ls-files").splitlines()
    assert "braniac: finish an interrupted organize run" in git(root, "log", "--format=%s").splitlines()


def test_a_promotion_that_brings_an_archived_note_back_commits_the_archive_copys_removal(tmp_path):
    vault, _ = Vault.init(tmp_path / "v", use_git=True)
    vault.remember("My friend Tomas lives in Lisbon with his two cats.")
    created = promote(vault, OfflineModel(), load_config(vault.root), force=True).notes_created
    tomas = vault.root / next(p for p in created if p.endswith("tomas.md"))
    archived = vault.ltm_root / "archive" / tomas.relative_to(vault.ltm_root)
    from braniac.vault.moves import Move, apply_moves
    apply_moves(vault, [Move(tomas, archived, "archived")], set())   # as organization archives it
    git(vault.root, "add", "-A")
    git(vault.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "archived")
    vault.remember("My friend Tomas adopted a third cat called Pixel.")
    report = promote(vault, OfflineModel(), load_config(vault.root), force=True)
    assert tomas.exists() and not archived.exists() and report.commit
    assert uncommitted(vault.root) == []
    assert vault.relative(tomas) in git(vault.root, "ls-files").splitlines()


def test_what_a_worker_logs_as_refused_is_in_its_commit_too(tmp_path):
    """logs/promotion.log and logs/organize.log are braniac's changes like any other: never
    left for the person's own `git commit` to sweep in."""
    from braniac.model.types import Candidate
    vault, _ = Vault.init(tmp_path / "v", use_git=True)
    event = vault.remember("My friend Tomas lives in Lisbon with his two cats.")
    model = ScriptedModel().enqueue("analyze", [Candidate("concrete", ["../../outside"], "Tomas", [event.id])])
    report = vault.promote(force=True, model=model)
    assert report.rejected and (vault.logs_dir / "promotion.log").exists()
    assert uncommitted(vault.root) == []
    plan = ScriptedModel().enqueue("propose_organization", OrganizationPlan([{"op": "delete", "path": "x.md"}]))
    assert vault.organize(model=plan).rejected
    assert uncommitted(vault.root) == []


# ------------------------------------------------------------------------------ 11: git's index.lock

def stale_lock(root: Path) -> Path:
    """The index.lock a git process killed mid-command leaves (empty, and old by now)."""
    lock = root / ".git" / "index.lock"
    lock.write_bytes(b"")
    os.utime(lock, (time.time() - 600, time.time() - 600))
    return lock


def test_an_index_lock_left_by_a_killed_git_is_removed_and_the_promotion_commits(tmp_path):
    vault, _ = Vault.init(tmp_path / "v", use_git=True)
    vault.remember("The staging database password rotates every Monday.")
    lock = stale_lock(vault.root)
    result = cli(vault.root, "promote", "--force")
    assert result.returncode == 0, result.stderr
    assert "index.lock" in result.stderr and not lock.exists()
    assert uncommitted(vault.root) == []
    assert "promote 1 events" in git(vault.root, "log", "-1", "--format=%s")


def test_the_index_lock_of_a_git_still_running_is_left_alone(tmp_path):
    """A person's `git commit -a` waiting for its message editor holds the lock for as long as
    the editor is open: never braniac's to remove, however old."""
    vault, _ = Vault.init(tmp_path / "v", use_git=True)
    (vault.root / "system" / "core_identity.md").write_text("edited by the person\n", encoding="utf-8")
    person = subprocess.Popen(["git", "-c", "user.name=p", "-c", "user.email=p@p", "commit", "-a", "-q"],
                              cwd=vault.root, env={**clean_env(), "GIT_EDITOR": "sleep 60; true"},
                              start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        lock = vault.root / ".git" / "index.lock"
        deadline = time.time() + 10
        while not lock.exists() and time.time() < deadline:
            time.sleep(0.02)
        assert lock.exists(), "git commit -a did not take its index lock"
        os.utime(lock, (time.time() - 600, time.time() - 600))
        vault.remember("The office moves to the fifth floor in March.")
        result = cli(vault.root, "promote", "--force")
        assert lock.exists()
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip().splitlines()[-1].startswith("braniac: git is busy in this vault")
        assert len(stm_event_ids(vault)) == 1   # refused before writing anything
    finally:
        os.killpg(person.pid, signal.SIGKILL)
        person.wait()


# ------------------------------------------------------------------------------ 10: half-made folders

def temps(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.braniac-tmp"))


def test_a_folder_a_killed_organize_run_was_making_is_cleared_by_the_next_run(tmp_path):
    scenario = build_scenario(tmp_path / "v", use_git=True)
    root = scenario.vault.root
    killed_at(root, "braniac.vault.folders:publish_directory", ["organize"], when="'/.braniac/' not in str(args[1])")
    assert temps(root), "the kill came before the hidden folder was made"
    assert cli(root, "organize").returncode == 0
    assert temps(root) == []
    assert not [f for f in scenario.vault.doctor() if "temp" in f.reason]
    assert uncommitted(root) == []


def test_a_full_disk_while_making_a_folder_fails_cleanly_and_leaves_nothing_behind(tmp_path):
    scenario = build_scenario(tmp_path / "v", use_git=True)
    root = scenario.vault.root
    result = disk_full_at(root, "braniac.vault.folders:write_new_index",
                          ["organize"], when="'/.braniac/' not in str(args[2]) and '.braniac-tmp' in str(args[2])")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("braniac: No space left on device")
    assert temps(root) == []
    assert cli(root, "organize").returncode == 0      # the disk has room again
    assert temps(root) == [] and uncommitted(root) == []
    check_healthy(scenario.vault)


# ------------------------------------------------------------------------------ 12: a read-only folder

def test_a_read_only_folder_is_named_up_front_and_never_leaves_organize_stuck():
    base = scratch_dir("braniac-read-only-")
    try:
        scenario = build_scenario(base / "v")
        root = scenario.vault.root
        misc = root / "memory/long_term/concrete/misc"    # cobol.md, to be archived, lives here
        owned_by_person(root)
        os.chmod(misc, 0o555)
        for _run in range(2):
            proc = start_hooked(root, "braniac.app.cli:main", ["organize"], when="False", action="pass",
                                setup=AS_PERSON)
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            assert "Traceback" not in err
            rejected = [line for line in err.splitlines() if "rejected:" in line]
            assert rejected and all("memory/long_term/concrete/misc/ is read-only" in line for line in rejected), err
            assert not list((root / ".braniac" / "organize").glob("staging*"))
        assert (misc / "cobol.md").exists()
        assert not (root / MOVED_FROM).exists()     # the rest of the plan landed
    finally:
        for here, dirs, _files in os.walk(base):
            for name in dirs:
                os.chmod(os.path.join(here, name), 0o755)
        shutil.rmtree(base, ignore_errors=True)


# ------------------------------------------------------------------------------ 13: the index copied under its lock

PROBE_INDEX_LOCK = """
import subprocess
probed = []
def probe_index_lock(args):
    if probed or '/.braniac/index' not in os.fspath(args[0]):
        return
    probed.append(1)
    code = ("import sys\\n"
            "from braniac.infra.errors import LockBusy\\n"
            "from braniac.infra.fsio import locked\\n"
            "from braniac.vault.store import VaultStore\\n"
            "vault = VaultStore(sys.argv[1])\\n"
            "try:\\n"
            "    with locked(vault.lock_path('index'), timeout=0):\\n"
            "        print('free')\\n"
            "except LockBusy:\\n"
            "    print('busy')\\n")
    said = subprocess.run([sys.executable, "-c", code, VAULT], capture_output=True, text=True)
    print("index lock while copied:", said.stdout.strip(), said.stderr.strip(), file=sys.stderr)
"""


def test_organize_copies_the_search_index_under_its_lock(tmp_path):
    """While the gate copies the live index, any other process that would change it waits."""
    scenario = build_scenario(tmp_path / "v")
    root = scenario.vault.root
    assert cli(root, "reindex").returncode == 0
    proc = start_hooked(root, "shutil:copy2", ["organize"], when="True", action="probe_index_lock(args)",
                        setup=f"VAULT = {str(root)!r}\n" + PROBE_INDEX_LOCK)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "index lock while copied: busy" in err


def test_a_file_that_goes_away_while_a_folder_is_copied_is_left_out(tmp_path):
    """A writer's temp file renamed into place, a note a person deleted: not an error."""
    from braniac.infra import fsio_folders as fsio
    source = tmp_path / "src"
    source.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (source / name).write_text(name, encoding="utf-8")
    real = shutil.copy2

    def copy_while_b_goes(src, dst, **kwargs):
        (source / "b.md").unlink(missing_ok=True)
        return real(src, dst, **kwargs)

    shutil.copy2 = copy_while_b_goes
    try:
        fsio.copy_tree(source, tmp_path / "copy")
    finally:
        shutil.copy2 = real
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == ["a.md", "c.md"]


def test_a_copy_that_fails_says_why_in_one_oserror(tmp_path, monkeypatch):
    from braniac.infra import fsio_folders as fsio
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.md").write_text("a", encoding="utf-8")

    def full(src, dst, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), dst)

    monkeypatch.setattr(shutil, "copy2", full)
    with pytest.raises(OSError) as caught:
        fsio.copy_tree(source, tmp_path / "copy")
    assert type(caught.value) is OSError and caught.value.errno == errno.ENOSPC


# ------------------------------------------------------------------------------ 16: deeply nested JSON from a model

NESTED = Raw("[" * 100_000 + "]" * 100_000)          # past Python's recursion limit
DEEP_OBJECT = Raw('{"queries": ' + "[" * 500 + '"x"' + "]" * 500 + "}")   # parses, then nests too deep


@pytest.fixture
def model_vault(tmp_path, fake_llm, net_guard, monkeypatch):
    base_url, server = fake_llm
    for name in [k for k in os.environ if k.startswith("BRANIAC_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("FAKE_LLM_KEY", "test")
    vault, _ = Vault.init(tmp_path / "vault")
    configure_vault(vault.root, base_url, timeout=5)
    vault.remember("My sister Alice lives in Bordeaux and teaches chemistry.")
    return vault, server


def test_deeply_nested_json_from_the_model_is_a_bad_reply_in_ask_and_the_prompt_is_kept(model_vault):
    vault, server = model_vault
    server.queries.extend([NESTED, DEEP_OBJECT])          # the reply, and the retry's
    server.reflections.extend([NESTED, NESTED])
    turn = vault.ask("Where does Alice live now?")
    assert turn.answer
    assert any("Where does Alice live now?" in (e.fields.get("User") or "") for e in vault.read_stm().events)


def test_deeply_nested_json_from_the_model_falls_back_in_promote_and_organize(model_vault):
    vault, server = model_vault
    server.always = NESTED
    report = vault.promote(force=True)
    assert report.status == "done" and vault.read_stm().events == []
    assert vault.organize().status in ("done", "gated")


def test_a_turn_that_fails_with_any_error_still_keeps_the_prompt(vault):
    class Broken(ScriptedModel):
        def search_queries(self, wm):
            raise RuntimeError("a bug of ours, or of a model object")

    with pytest.raises(RuntimeError):
        vault.ask("Remind me what the plumber said about the boiler.", model=Broken())
    users = [e.fields.get("User") for e in vault.read_stm().events]
    assert "Remind me what the plumber said about the boiler." in users


# ------------------------------------------------------------------------------ 17: a full disk in the chat, a huge line

def test_a_full_disk_in_the_chats_reflection_is_a_notice_and_the_chat_goes_on(vault, monkeypatch):
    import io
    import threading

    from braniac.app.repl import Chat
    from braniac.vault.store import VaultStore

    died = []
    monkeypatch.setattr(threading, "excepthook", lambda args: died.append(args.exc_value))

    def disk_full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.stm_path))

    monkeypatch.setattr(VaultStore, "append_event", disk_full)
    out, err = io.StringIO(), io.StringIO()
    chat = Chat(vault, out=out, err=err)
    try:
        assert chat.handle("The spare key is under the blue flowerpot.")
        chat.ready_session().reflector.flush()
        assert chat.handle("What colour is the flowerpot?")
        chat.ready_session().reflector.flush()
    finally:
        chat.close()
    assert died == [], died
    assert "Traceback" not in err.getvalue()
    assert "No space left on device" in err.getvalue() and "journaled" in err.getvalue()
    assert len(out.getvalue().strip().splitlines()) >= 2          # both turns were answered
    monkeypatch.undo()                                            # room on the disk again
    Vault(vault.root).ask("Anything else?")                       # the next session replays the journal
    said = [e.fields.get("User") for e in vault.read_stm().events]
    assert "The spare key is under the blue flowerpot." in said and "What colour is the flowerpot?" in said


HUGE_LINES = {"sentences": "Ana met Bob in Lisbon today. " * 14_000,     # ~400 KB, one line
              "full stops": "A. " * 140_000,
              "capitals": "Ab " * 140_000}


@pytest.mark.parametrize("line", HUGE_LINES.values(), ids=HUGE_LINES.keys())
def test_one_huge_line_in_short_term_memory_keeps_ask_and_promote_quick(vault, line):
    vault.remember("Ana likes green tea in the morning.")
    text = vault.stm_path.read_text(encoding="utf-8")
    start = text.index("### 20")
    vault.stm_path.write_text(text[:start] + f'### 2025-01-01T10:00:00Z\n**User:** "{line}"\n\n' + text[start:],
                              encoding="utf-8")
    for args in (["ask", "What did Ana do?"], ["promote", "--force"]):
        started = time.monotonic()
        result = forked.run(["--vault", str(vault.root), *args], env=clean_env(), timeout=30)
        assert result.returncode == 0, result.stderr
        assert time.monotonic() - started < 15, f"{args[0]} took {time.monotonic() - started:.0f} s"
    archived = [p for p in (vault.root / EVENTS).rglob("2025-01-01T10-00-00Z.md")]
    assert archived and line.strip() in archived[0].read_text(encoding="utf-8")   # kept whole


# ------------------------------------------------------------------------------ 19: init and the search index on a full disk

def template_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts and ".braniac" not in p.parts)


def test_init_on_a_full_disk_leaves_no_empty_file_and_init_force_completes_it(tmp_path):
    root = tmp_path / "v"
    code = ("import errno, os, sys\n" + DISK_FULL +
            "real_link = os.link\n"
            "def link(src, dst, *a, **k):\n"
            "    if str(dst).endswith('short_term.md'):\n"
            "        disk_full([dst])\n"          # the disk fills up while init creates its files
            "    return real_link(src, dst, *a, **k)\n"
            "os.link = link\n"
            "from braniac.app.cli import main\n"
            f"sys.argv = ['braniac', 'init', {str(root)!r}]\n"
            "main()\n")
    proc = forked.start(code=code, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("braniac: No space left on device")
    assert not (root / "memory" / "short_term.md").exists()        # whole or not at all
    assert [p.name for p in template_files(root) if p.name.endswith(".braniac-tmp")] == []
    result = cli(root, "init", "--force", str(root))
    assert result.returncode == 0, result.stderr
    vault = Vault(root)
    assert vault.read_stm().missing_sections() == []
    check_healthy(vault)


def test_init_force_completes_the_empty_files_an_earlier_init_left(tmp_path):
    vault, _ = Vault.init(tmp_path / "v")
    index = vault.ltm_root / "concrete" / "_index.md"
    for path in (vault.stm_path, index):
        path.write_bytes(b"")
    kept = vault.identity_path.read_text(encoding="utf-8") + "A line of the person's own.\n"
    vault.identity_path.write_text(kept, encoding="utf-8")
    _, created = Vault.init(vault.root, force=True)
    assert sorted(created) == sorted([vault.stm_path, index])
    assert vault.read_stm().missing_sections() == [] and notes.read(index).uuid
    assert vault.identity_path.read_text(encoding="utf-8") == kept
    check_healthy(vault)


def index_files(vault: Vault) -> dict[str, int]:
    folder = vault.state_dir / "index"
    return {p.name: p.stat().st_size for p in folder.iterdir()}


def test_a_full_disk_while_the_search_index_is_written_is_said_as_such_and_changes_nothing(vault):
    assert cli(vault.root, "search", "anything").returncode == 0          # the index is built
    before = index_files(vault)
    (vault.ltm_root / "concrete" / "kayak.md").write_text(
        notes.Note.new(title="Kayak", body="The red kayak is in the garage.\n").render(), encoding="utf-8")
    result = disk_full_at(vault.root, "braniac.search.segments:commit", ["search", "kayak"])
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "No space left on device" in result.stderr
    assert "damaged" not in result.stderr and "rebuilding" not in result.stderr
    assert index_files(vault) == before
    found = cli(vault.root, "search", "kayak")                              # room again: it catches up
    assert found.returncode == 0 and "kayak.md" in found.stdout
