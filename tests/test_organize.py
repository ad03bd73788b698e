"""Organization (vault-format.md §10.5, §9): the nightly pass that learns from the access log.

Real vaults in tmp dirs, notes written with braniac's own Note/ensure_folder/refresh_indexes,
a synthetic access log (QUERY + READ turns, paths of a vault that used to live elsewhere), and
the real CLI in a subprocess. Every check reads the files themselves: every link of every
Markdown file is parsed and resolved, uuids are counted, bytes are compared.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml

from braniac import ScriptedModel, Vault
from braniac.infra import clock
from braniac.vault import folder_index, notes
from braniac.infra.config import load as load_config
from braniac.infra.fsio import atomic_write, locked
from braniac.vault.links import find_links, make_link
from braniac.vault.folders import ensure_folder, refresh_indexes
from braniac.vault.notes import Note
from braniac.model.organization_types import OrganizationPlan
from braniac.processes.organization import MAX_OPERATIONS, organize

from fake_llm import Raw, guard_env
from helpers import clean_env, run_cli

NOW = clock.now()
OLD_PLACE = "/home/someone/an-old-place/vault"   # the log was written where the vault used to be
LTM = "memory/long_term"
RUST = f"{LTM}/concrete/tech/lang/rust"
REPORT_KEYS = {"status", "reason", "operations", "rejected", "gate", "files", "commit", "log_lines",
               "malformed_log_lines", "adopted"}


# ------------------------------------------------------------------------------ building vaults

def add_note(vault: Vault, rel: str, title: str, body: str, tags: list[str], *, days_ago: float = 1.0,
             extra: dict | None = None) -> Path:
    """A note written as braniac writes one, created (and last updated) `days_ago` days ago."""
    path = vault.root / rel
    written: set[Path] = set()
    ensure_folder(vault, path.parent, written)
    with clock.frozen(NOW - timedelta(days=days_ago)):
        note = Note.new(title=title, body=f"# {title}\n\n{body.strip()}\n", tags=tags, extra=extra)
    atomic_write(path, note.render())
    refresh_indexes(vault, {path.parent}, written)
    return path


def uuid_of(path: Path) -> str:
    return notes.read(path).uuid


def link_to(vault: Vault, from_rel: str, to_rel: str) -> str:
    target = vault.root / to_rel
    return make_link(notes.read(target).title, vault.root / from_rel, target, uuid_of(target))


def append_body(vault: Vault, rel: str, text: str) -> None:
    path = vault.root / rel
    note = notes.read(path)
    note.body = note.body.rstrip("\n") + "\n\n" + text.strip() + "\n"
    atomic_write(path, note.render())


def log_line(at: datetime, action: str, what: str) -> str:
    return f"{clock.iso(at)} | {action} | {what}"


def turn(at: datetime, query: str, rels: list[str], root: str = OLD_PLACE) -> list[str]:
    return [log_line(at, "QUERY", query)] + [log_line(at, "READ", f"{root}/{rel}") for rel in rels]


@dataclass
class Scenario:
    vault: Vault
    paths: dict[str, str] = field(default_factory=dict)     # name -> vault-relative path
    uuids: dict[str, str] = field(default_factory=dict)     # name -> uuid
    log: list[str] = field(default_factory=list)            # the access.log lines written

    def path(self, name: str) -> Path:
        return self.vault.root / self.paths[name]


def build_scenario(root: Path, *, use_git: bool = False) -> Scenario:
    """A small memory with every kind of pending work:

    - `ownership`, deep under concrete/tech/lang/rust/, read in 10 turns (the hot note; created
      400 days ago, so only its reads keep it out of the archive), 6 of them with `lifetimes`;
    - `gil` and `asyncio` read together in 3 turns;
    - `cobol` (concrete) and `ftp` (skills), created 400 days ago and never read: to archive;
    - an event from 2024, never read: events are never archived;
    - links a person wrote: gil -> ownership, asyncio -> cobol, ownership -> cargo, and the
      Related Memories of concrete/tech/_index.md -> ownership.
    """
    vault, _ = Vault.init(root, use_git=use_git)
    s = Scenario(vault)
    specs = {
        "ownership": (f"{RUST}/ownership.md", "Rust ownership",
                      "Every value in Rust has exactly one owner; the borrow checker enforces borrowing rules "
                      "for references.", ["rust", "ownership"], 400),
        "lifetimes": (f"{RUST}/lifetimes.md", "Rust lifetimes",
                      "Lifetimes annotate how long a reference stays valid.", ["rust", "lifetimes"], 30),
        "cargo": (f"{RUST}/cargo.md", "Cargo", "Cargo builds crates and resolves dependencies.", ["rust"], 10),
        "macros": (f"{RUST}/macros.md", "Rust macros", "Declarative macros match token trees.", ["rust"], 10),
        "gil": (f"{LTM}/concrete/tech/lang/python/gil.md", "Python GIL",
                "The global interpreter lock lets one thread run Python bytecode at a time.", ["python"], 20),
        "asyncio": (f"{LTM}/concrete/tech/lang/python/asyncio.md", "Python asyncio",
                    "asyncio runs coroutines on one event loop thread.", ["python"], 20),
        "cobol": (f"{LTM}/concrete/misc/cobol.md", "COBOL copybooks",
                  "Copybooks describe mainframe record layouts.", ["cobol"], 400),
        "ftp": (f"{LTM}/skills/deploy/ftp.md", "Deploying over FTP",
                "1. Open the FTP client. 2. Upload the build folder.", ["deploy"], 400),
        "event": (f"{LTM}/events/2024/01/01/2024-01-01T10-00-00Z.md", "2024-01-01T10:00:00Z",
                  "**User:** Happy new year.", ["event"], 700),
    }
    for name, (rel, title, body, tags, days) in specs.items():
        add_note(vault, rel, title, body, tags, days_ago=days)
        s.paths[name], s.uuids[name] = rel, uuid_of(vault.root / rel)
    append_body(vault, s.paths["gil"], f"Compare with {link_to(vault, s.paths['gil'], s.paths['ownership'])}.")
    append_body(vault, s.paths["asyncio"], f"Older: {link_to(vault, s.paths['asyncio'], s.paths['cobol'])}.")
    append_body(vault, s.paths["ownership"], f"Builds: {link_to(vault, s.paths['ownership'], s.paths['cargo'])}.")
    tech_index = vault.ltm_root / "concrete/tech/_index.md"
    index = folder_index.read(tech_index)
    index.set_related([folder_index.Entry("Rust ownership", s.path("ownership"), s.uuids["ownership"], "the basics")])
    atomic_write(tech_index, index.render())

    at = NOW - timedelta(days=3)
    for n in range(10):
        at += timedelta(minutes=7)
        reads = [s.paths["ownership"]] + ([s.paths["lifetimes"]] if n < 6 else [])
        s.log += turn(at, "how does rust ownership and the borrow checker work", reads)
    for _ in range(3):
        at += timedelta(minutes=7)
        s.log += turn(at, "python global interpreter lock and asyncio threads", [s.paths["gil"], s.paths["asyncio"]])
    at += timedelta(minutes=7)
    s.log += turn(at, "cargo dependencies", [s.paths["cargo"]])
    s.log.insert(5, "this line is not an access-log line")
    s.log.insert(9, "not-a-time | READ | /x/memory/long_term/concrete/x.md")
    vault.access_log_path.write_text("\n".join(s.log) + "\n", encoding="utf-8")
    if use_git:
        git(vault.root, "add", "-A")
        git(vault.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "scenario")
    return s


# ------------------------------------------------------------------------------ checking vaults

def markdown_files(root: Path) -> list[Path]:
    """Every Markdown file of the vault a person would see (tool folders and dot files left out)."""
    return sorted(p for p in root.rglob("*.md")
                  if not any(part.startswith(".") for part in p.relative_to(root).parts))


def check_links(root: Path) -> int:
    """Every link in every Markdown file resolves; a uuid-carrying link reaches that uuid."""
    bad, count = [], 0
    for path in markdown_files(root):
        text = path.read_text(encoding="utf-8")
        for link in find_links(text):
            if link.is_external or not link.target:
                continue
            count += 1
            target = link.resolve(path)
            if not target.is_file():
                bad.append(f"{path.relative_to(root)}: {link.target} does not resolve")
            elif link.uuid and notes.read(target).uuid != link.uuid:
                bad.append(f"{path.relative_to(root)}: {link.target} carries uuid {link.uuid} "
                           f"but the file there is {notes.read(target).uuid}")
    assert not bad, "\n".join(bad)
    return count


def uuid_places(root: Path) -> dict[str, list[str]]:
    places: dict[str, list[str]] = {}
    for path in markdown_files(root):
        try:
            uid = notes.read(path).uuid
        except Exception:  # noqa: BLE001 - an unreadable file has no uuid to count
            continue
        if uid:
            places.setdefault(uid, []).append(path.relative_to(root).as_posix())
    return places


def check_no_note_lost(root: Path, uuids) -> None:
    places = uuid_places(root)
    missing = [u for u in uuids if u not in places]
    twice = {u: p for u, p in places.items() if len(p) > 1}
    assert not missing, f"notes lost: {missing}"
    assert not twice, f"uuids in more than one file: {twice}"


def frontmatter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n", 2)[1])


def related_lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    match = re.search(r"^## Related Memories\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return [l for l in (match.group(1).splitlines() if match else []) if l.startswith("- ")]


def co_link(path: Path, other_uuid: str) -> str | None:
    for line in related_lines(path):
        if f'"uuid:{other_uuid}"' in line and "co-accessed" in line:
            return line
    return None


def tree_bytes(root: Path, skip=(".braniac", ".git")) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.relative_to(root).parts[0] not in skip}


def doctor_problems(root: Path) -> list[dict]:
    result = run_cli("--vault", root, "doctor", "--json")
    data = json.loads(result.stdout)
    assert result.returncode == (0 if data["healthy"] else 1), result.stderr
    return data["problems"]


def run_organize(root: Path, *args: str, env=None) -> tuple[dict, subprocess.CompletedProcess]:
    result = run_cli("--vault", root, "organize", "--json", *args, env=env)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    return json.loads(result.stdout), result


def ops(report: dict, kind: str) -> list[dict]:
    return [op for op in report["operations"] if op["op"] == kind]


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def scenario(tmp_path) -> Scenario:
    return build_scenario(tmp_path / "vault")


# ------------------------------------------------------------------------------ the offline pass, end to end

def test_organize_links_moves_and_archives_and_every_link_still_resolves(scenario):
    s, root = scenario, scenario.vault.root
    links_before = check_links(root)
    report, _ = run_organize(root)
    assert set(report) == REPORT_KEYS
    assert report["status"] == "done", report

    # strengthen relations: read together -> linked both ways, by uuid, marked co-accessed
    moved_to = {op["path"]: op["to"] for op in ops(report, "move")}
    for a, b in (("ownership", "lifetimes"), ("gil", "asyncio")):
        pa, pb = root / moved_to.get(s.paths[a], s.paths[a]), root / moved_to.get(s.paths[b], s.paths[b])
        assert co_link(pa, s.uuids[b]), (a, b, related_lines(pa))
        assert co_link(pb, s.uuids[a]), (b, a, related_lines(pb))
    # links nobody read together are not made
    assert not co_link(root / s.paths["cargo"], s.uuids["ownership"])

    # restructure: the hot note moved one level up, with its uuid and its words
    new_place = f"{LTM}/concrete/tech/lang/ownership.md"
    assert {"op": "move", "path": s.paths["ownership"], "to": new_place} in report["operations"]
    assert not s.path("ownership").exists()
    assert uuid_of(root / new_place) == s.uuids["ownership"]
    assert "borrow checker" in (root / new_place).read_text()
    # the person's links to it (a note elsewhere, an _index.md) followed it, by uuid
    assert f'(ownership.md "uuid:{s.uuids["ownership"]}")' not in s.path("gil").read_text()
    assert f'../ownership.md "uuid:{s.uuids["ownership"]}"' in s.path("gil").read_text()
    tech_index = folder_index.read(root / f"{LTM}/concrete/tech/_index.md")
    assert [e.path for e in tech_index.related] == [root / new_place]
    # ...and its own relative link to cargo was re-aimed from the new place
    assert f'(rust/cargo.md "uuid:{s.uuids["cargo"]}")' in (root / new_place).read_text()
    lang_index = folder_index.read(root / f"{LTM}/concrete/tech/lang/_index.md")
    assert root / new_place in [e.path for e in lang_index.manifest]

    # archive: moved, never deleted, status archived; events stay where they are
    for name in ("cobol", "ftp"):
        archived = root / s.paths[name].replace(f"{LTM}/", f"{LTM}/archive/", 1)
        assert {"op": "archive", "path": s.paths[name], "to": archived.relative_to(root).as_posix()} in report["operations"]
        assert not s.path(name).exists() and archived.is_file()
        meta = frontmatter(archived)
        assert meta["status"] == "archived" and meta["uuid"] == s.uuids[name]
    assert s.path("event").exists()
    assert not [op for op in report["operations"] if op.get("path") in (s.paths["event"], s.paths["macros"])]

    # nothing lost, every link resolves (the person's link to cobol now reaches the archive)
    assert check_links(root) >= links_before
    check_no_note_lost(root, s.uuids.values())
    assert doctor_problems(root) == []
    assert report["gate"]["probes"] == 14 and report["gate"]["landed"] is True
    assert report["gate"]["after"]["recall"] >= report["gate"]["before"]["recall"]


def test_archived_notes_are_found_only_with_archived(scenario):
    run_organize(scenario.vault.root)
    root = scenario.vault.root

    def search(*extra):
        result = run_cli("--vault", root, "search", "copybooks", "mainframe", "--json", *extra)
        assert result.returncode == 0, result.stderr
        return [hit["path"] for hit in json.loads(result.stdout)]
    archived = f"{LTM}/archive/concrete/misc/cobol.md"
    assert archived not in search()
    assert archived in search("--archived")


def test_access_log_rotates_and_no_line_is_lost(scenario):
    root = scenario.vault.root
    before = scenario.vault.access_log_path.read_text().splitlines()
    report, _ = run_organize(root)
    assert scenario.vault.access_log_path.read_bytes() == b""
    rotated = root / "logs" / f"access-{clock.now():%Y-%m}.log"
    lines = rotated.read_text().splitlines()
    # every line of access.log, in order, then what organization itself noted (the moves)
    assert lines[:len(before)] == before
    assert report["log_lines"] == len(before) - 2 and report["malformed_log_lines"] == 2
    assert "logs/access.log" in report["files"] and rotated.relative_to(root).as_posix() in report["files"]
    # later reads start a fresh access.log; a run then rotates them onto the same archive
    extra = turn(clock.now(), "cargo dependencies", [scenario.paths["cargo"]])
    scenario.vault.access_log_path.write_text("\n".join(extra) + "\n")
    run_organize(root)
    assert rotated.read_text().splitlines() == lines + extra
    assert scenario.vault.access_log_path.read_bytes() == b""


def test_a_second_run_without_new_use_changes_nothing(scenario):
    root = scenario.vault.root
    run_organize(root)
    before = tree_bytes(root)
    report, _ = run_organize(root)
    assert report["operations"] == [] and report["rejected"] == [], report
    assert report["files"] == [] and report["status"] == "done"
    assert tree_bytes(root) == before
    # the hot note keeps its reads across its move: it is not archived as "never read" (it was
    # created 400 days ago) and does not lose its place among the most read
    assert (root / f"{LTM}/concrete/tech/lang/ownership.md").exists()
    stats = json.loads(run_cli("--vault", root, "stats", "--json").stdout)
    assert stats["hubs"]["most_read"][0] == {"path": f"{LTM}/concrete/tech/lang/ownership.md", "reads": 10}


def test_dry_run_changes_nothing_and_prints_the_plan(scenario):
    root = scenario.vault.root
    before = tree_bytes(root)
    report, _ = run_organize(root, "--dry-run")
    assert report["status"] == "dry-run"
    assert {op["op"] for op in report["operations"]} == {"link", "move", "archive"}
    assert tree_bytes(root) == before
    text = run_cli("--vault", root, "organize", "--dry-run")
    assert text.returncode == 0 and text.stdout.startswith("organize would apply: ")
    assert f"op=move path={scenario.paths['ownership']}" in text.stdout
    assert tree_bytes(root) == before


def test_malformed_lines_are_tolerated_and_counted(scenario):
    with open(scenario.vault.access_log_path, "ab") as handle:
        handle.write(b"\xff\xfe binary junk\n| | |\n2025-01-01T00:00:00Z | READ\n")
    report, result = run_organize(scenario.vault.root)
    assert report["status"] == "done" and report["malformed_log_lines"] == 5
    assert ops(report, "move") and ops(report, "link")


def test_stats_shows_hubs_stale_memories_and_the_last_organization(tmp_path):
    s = build_scenario(tmp_path / "vault")
    root = s.vault.root
    # a note read a lot, but 90 days ago: stale
    old = NOW - timedelta(days=90)
    lines = []
    for n in range(4):
        lines += turn(old + timedelta(minutes=5 * n), "copybooks", [s.paths["macros"]])
    (root / "logs/access-2020-01.log").write_text("\n".join(lines) + "\n")
    for name in ("gil", "asyncio", "lifetimes"):   # three notes link to cargo: most linked
        append_body(s.vault, s.paths[name], f"See {link_to(s.vault, s.paths[name], s.paths['cargo'])}.")
    before = json.loads(run_cli("--vault", root, "stats", "--json").stdout)
    assert before["last_organization"] is None
    assert before["hubs"]["most_read"][0] == {"path": s.paths["ownership"], "reads": 10}
    # (its folder's manifest links to it too: 1 + 3 + 1)
    assert before["hubs"]["most_linked"][0] == {"path": s.paths["cargo"], "links_in": 5}
    assert [x["path"] for x in before["stale"]] == [s.paths["macros"]]
    assert before["stale"][0]["reads"] == 4
    run_organize(root)
    after = json.loads(run_cli("--vault", root, "stats", "--json").stdout)
    assert after["last_organization"] and abs(clock.parse_iso(after["last_organization"]) - clock.now()) < timedelta(minutes=5)
    assert set(after["hubs"]) == {"most_linked", "most_read"}
    assert after["hubs"]["most_read"][0]["path"] == f"{LTM}/concrete/tech/lang/ownership.md"
    text = run_cli("--vault", root, "stats")
    assert "most read       ownership.md (10)" in text.stdout and "last organize   20" in text.stdout


def test_co_access_links_decay_and_a_persons_links_stay(tmp_path):
    s = build_scenario(tmp_path / "vault")
    root = s.vault.root
    run_organize(root)
    lifetimes, ownership = s.path("lifetimes"), root / f"{LTM}/concrete/tech/lang/ownership.md"
    assert co_link(lifetimes, s.uuids["ownership"])
    # a person's own Related Memories line to the same note is never touched
    text = lifetimes.read_text().replace(
        "## Related Memories\n", f"## Related Memories\n- {link_to(s.vault, s.paths['lifetimes'], s.paths['cargo'])} — mine\n")
    lifetimes.write_text(text)
    # a year later, with no new use, the co-access links have decayed away; the person's stays
    with clock.frozen(NOW + timedelta(days=365)):
        report = organize(s.vault, load_config(root), archive_after_days=10_000)
    unlinked = {frozenset((op["a"], op["b"])) for op in report.operations if op["op"] == "unlink"}
    assert unlinked == {frozenset((f"{LTM}/concrete/tech/lang/ownership.md", s.paths["lifetimes"])),
                        frozenset((s.paths["asyncio"], s.paths["gil"]))}, report.operations
    assert not co_link(lifetimes, s.uuids["ownership"]) and not co_link(ownership, s.uuids["lifetimes"])
    assert any("— mine" in line for line in related_lines(lifetimes))
    check_links(root)


def test_a_crowded_folder_splits_by_tag_and_a_lone_note_merges_up(tmp_path):
    vault, _ = Vault.init(tmp_path / "vault")
    crowd = f"{LTM}/concrete/recipes"
    uuids = []
    for n in range(45):
        tag = ["soup", "bread", "cake"][n % 3] if n < 30 else f"misc{n}"
        uuids.append(uuid_of(add_note(vault, f"{crowd}/recipe-{n:02d}.md", f"Recipe {n}", f"A {tag} recipe with saffron{n}.",
                                      ["recipes", tag])))
    lone = add_note(vault, f"{LTM}/concrete/places/portugal/lisbon.md", "Lisbon", "Trams.", ["places"])
    uuids.append(uuid_of(lone))
    append_body(vault, f"{crowd}/recipe-00.md", f"With {link_to(vault, f'{crowd}/recipe-00.md', f'{crowd}/recipe-03.md')}")
    # some use (structure changes wait for probes to check them against)
    lines = []
    for n in range(4):
        lines += turn(NOW - timedelta(hours=n + 1), f"saffron{3 * n}", [f"{crowd}/recipe-{3 * n:02d}.md"])
    vault.access_log_path.write_text("\n".join(lines) + "\n")
    report, _ = run_organize(vault.root)
    assert report["gate"]["landed"] is True, report["gate"]
    moved = {op["path"]: op["to"] for op in ops(report, "move")}
    assert moved[f"{crowd}/recipe-00.md"] == f"{crowd}/soup/recipe-00.md"
    assert moved[f"{crowd}/recipe-01.md"] == f"{crowd}/bread/recipe-01.md"
    assert f"{crowd}/recipe-40.md" not in moved      # a tag with too few notes stays
    assert moved[f"{LTM}/concrete/places/portugal/lisbon.md"] == f"{LTM}/concrete/places/lisbon.md"
    assert not (vault.ltm_root / "concrete/places/portugal").exists()
    assert (vault.ltm_root / "archive/merged-folders/concrete/places/portugal/_index.md").exists()
    check_links(vault.root)
    check_no_note_lost(vault.root, uuids)
    assert doctor_problems(vault.root) == []
    # the folder made again later (a promotion writing there, say) gets its braniac-made
    # _index.md, whose stable uuid the archived one no longer carries
    again = add_note(vault, f"{LTM}/concrete/places/portugal/porto.md", "Porto", "Port wine.", ["places"])
    assert again.parent.joinpath("_index.md").exists()
    assert doctor_problems(vault.root) == []
    check_links(vault.root)


# ------------------------------------------------------------------------------ lock, git

def test_organize_skips_and_exits_0_while_another_process_holds_the_lock(scenario):
    root = scenario.vault.root
    before = tree_bytes(root)
    with locked(scenario.vault.lock_path("ltm"), timeout=5):
        result = run_cli("--vault", root, "organize")
        as_json = run_cli("--vault", root, "organize", "--json")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "organize skipped: another organization or promotion is running"
    assert json.loads(as_json.stdout)["status"] == "skipped" and as_json.returncode == 0
    assert tree_bytes(root) == before


def test_git_one_commit_per_run_and_revert_undoes_it(tmp_path):
    s = build_scenario(tmp_path / "vault", use_git=True)
    root = s.vault.root
    head = git(root, "rev-parse", "HEAD").strip()
    before = tree_bytes(root, skip=(".braniac", ".git"))
    report, _ = run_organize(root)
    assert report["commit"]
    assert git(root, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    message = git(root, "log", "-1", "--format=%B")
    assert message.startswith("braniac: organize long-term memory")
    assert f"move {s.paths['ownership']} -> {LTM}/concrete/tech/lang/ownership.md" in message
    assert f"archive {s.paths['cobol']}" in message and f"archive {s.paths['ftp']}" in message
    assert re.search(rf"link {re.escape(s.paths['asyncio'])} <-> {re.escape(s.paths['gil'])} \(1\.00\)", message)
    assert git(root, "status", "--porcelain") == ""          # everything the run changed is committed
    # a second run with nothing new makes no commit
    report2, _ = run_organize(root)
    assert report2["commit"] is None
    assert git(root, "rev-list", "--count", f"{head}..HEAD").strip() == "1"

    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "revert", "--no-edit", "HEAD")
    assert tree_bytes(root, skip=(".braniac", ".git")) == before
    assert doctor_problems(root) == []
    check_links(root)


# ------------------------------------------------------------------------------ the retrieval gate

def test_the_gate_stops_a_plan_that_would_hurt_retrieval(scenario):
    s, root = scenario, scenario.vault.root
    # a model whose plan archives the note every probe found and read
    model = ScriptedModel().enqueue("propose_organization", OrganizationPlan([
        {"op": "archive", "path": s.paths["ownership"]},
        {"op": "archive", "path": s.paths["macros"]},
        {"op": "link", "a": s.paths["cargo"], "b": s.paths["macros"], "weight": 0.5}]))
    report = organize(s.vault, load_config(root), model=model)
    statistics = model.calls("propose_organization")[0].args["request"].statistics
    assert list(statistics["most_read"][0]) == [s.paths["ownership"], 10]
    gate = report.gate
    assert gate["probes"] == 14 and gate["landed"] is True
    assert gate["after"]["recall"] < gate["before"]["recall"]
    assert gate["after_without_used_notes"]["recall"] >= gate["before"]["recall"]
    assert report.status == "gated" and "recall" in report.reason
    landed = [(op["op"], op.get("path")) for op in report.operations]
    assert ("archive", s.paths["ownership"]) not in landed
    assert ("archive", s.paths["macros"]) in landed                 # nobody used it: it may go
    assert s.path("ownership").exists() and frontmatter(s.path("ownership")).get("status") is None
    assert co_link(s.path("cargo"), s.uuids["macros"])              # links are not the gate's business
    check_links(root)
    check_no_note_lost(root, s.uuids.values())


def test_without_probes_only_links_land(scenario):
    s, root = scenario, scenario.vault.root
    lines = [l for l in s.log if " | QUERY | " not in l]
    s.vault.access_log_path.write_text("\n".join(lines) + "\n")
    report = organize(s.vault, load_config(root))
    assert report.gate["probes"] == 0
    assert {op["op"] for op in report.operations} == {"link"}
    assert s.path("ownership").exists() and s.path("cobol").exists()


# ------------------------------------------------------------------------------ hostile plans from a model

HOSTILE = {
    "traversal": {"op": "move", "path": "../../etc/passwd", "to": "memory/long_term/concrete"},
    "traversal-target": {"op": "move", "path": f"{RUST}/cargo.md", "to": "memory/long_term/../../system"},
    "into-system": {"op": "archive", "path": "memory/long_term/../../system/core_identity.md"},
    "absolute": {"op": "archive", "path": "/etc/passwd"},
    "delete": {"op": "delete", "path": f"{RUST}/cargo.md"},
    "system": {"op": "move", "path": "system/core_identity.md", "to": "memory/long_term/concrete"},
    "overwrite": {"op": "move", "path": f"{RUST}/cargo.md", "to": "memory/long_term/concrete/tech/lang/python",
                  "_then": "cargo.md exists there"},
    # Cargo.md in go/: the same file as cargo.md on macOS and Windows, where a clone would lose one
    "overwrite-in-another-case": {"op": "move", "path": f"{RUST}/cargo.md", "to": "memory/long_term/concrete/tech/lang/go"},
    "link-out": {"op": "link", "a": f"{RUST}/cargo.md", "b": "../outside.md", "weight": 0.5},
    "bad-weight": {"op": "link", "a": f"{RUST}/cargo.md", "b": f"{RUST}/macros.md", "weight": 7},
    "not-a-dict": "archive everything",
    "events": {"op": "archive", "path": f"{LTM}/events/2024/01/01/2024-01-01T10-00-00Z.md"},
    "index": {"op": "archive", "path": f"{LTM}/concrete/_index.md"},
    "missing": {"op": "archive", "path": f"{RUST}/no-such-note.md"},
    "hidden-folder": {"op": "move", "path": f"{RUST}/cargo.md", "to": f"{LTM}/concrete/.hidden"},
    "ignored-folder": {"op": "move", "path": f"{RUST}/cargo.md", "to": f"{LTM}/concrete/node_modules"},
    "file-as-folder": {"op": "move", "path": f"{RUST}/cargo.md", "to": f"{RUST}/macros.md"},
    "long-name": {"op": "move", "path": f"{RUST}/cargo.md", "to": f"{LTM}/concrete/" + "x" * 300},
    "symlink-out": {"op": "move", "path": f"{RUST}/cargo.md", "to": f"{LTM}/concrete/escape"},
    "symlink-out-link": {"op": "link", "a": f"{RUST}/cargo.md", "b": f"{LTM}/concrete/escape/outside.md"},
}


def outside_snapshot(tmp_path: Path) -> dict[str, bytes]:
    return {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in sorted(tmp_path.rglob("*"))
            if p.is_file() and p.relative_to(tmp_path).parts[0] != "vault"}


@pytest.fixture
def llm_vault(tmp_path, fake_llm, net_guard, monkeypatch):
    base_url, server = fake_llm
    s = build_scenario(tmp_path / "vault")
    (tmp_path / "outside.md").write_text("a file next to the vault\n")
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/passwd").write_text("root:x:0:0\n")
    # a folder a person symlinked out of the vault (doctor names it; organize must not write there)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere/outside.md").write_text("---\nuuid: x\ntitle: Outside\n---\nnot the vault's\n")
    os.symlink(tmp_path / "elsewhere", s.vault.ltm_root / "concrete/escape")
    (s.vault.root / "braniac.toml").write_text("[model]\nretries = 0\ntimeout = 5\n")
    monkeypatch.setenv("BRANIAC_MODEL", "openai/fake")
    monkeypatch.setenv("BRANIAC_API_BASE", base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    # cargo.md, then, exists in python/ too: a move of rust/cargo.md there would overwrite it
    add_note(s.vault, f"{LTM}/concrete/tech/lang/python/cargo.md", "Cargo cult", "Not the Rust one.", ["python"])
    s.uuids["cargo-cult"] = uuid_of(s.vault.root / f"{LTM}/concrete/tech/lang/python/cargo.md")
    add_note(s.vault, f"{LTM}/concrete/tech/lang/go/Cargo.md", "Cargo", "A person's note on cargo bikes.", ["go"])
    return s, server, tmp_path


def run_model_organize(s: Scenario):
    from braniac.model import get_model
    cfg = load_config(s.vault.root)
    assert cfg.model.name == "openai/fake" and cfg.model.retries == 0
    return organize(s.vault, cfg, model=get_model(cfg, s.vault.root))


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_hostile_operation_is_rejected_and_logged(llm_vault, name):
    s, server, tmp_path = llm_vault
    op = {k: v for k, v in HOSTILE[name].items() if not k.startswith("_")} if isinstance(HOSTILE[name], dict) else HOSTILE[name]
    outside, system = outside_snapshot(tmp_path), tree_bytes(s.vault.root / "system")
    server.other.append({"operations": [op]})
    report = run_model_organize(s)
    assert len(report.rejected) == 1, report.rejected
    assert report.operations == [], report.operations
    log = (s.vault.root / "logs/organize.log").read_text()
    assert log.count("| REJECTED |") == 1 and report.rejected[0] in log
    assert outside_snapshot(tmp_path) == outside and tree_bytes(s.vault.root / "system") == system
    check_no_note_lost(s.vault.root, s.uuids.values())
    check_links(s.vault.root)


def test_a_hostile_plan_lands_only_its_valid_operations(llm_vault):
    s, server, tmp_path = llm_vault
    outside, system = outside_snapshot(tmp_path), tree_bytes(s.vault.root / "system")
    good = [{"op": "link", "a": s.paths["cargo"], "b": s.paths["macros"], "weight": 0.4},
            {"op": "archive", "path": s.paths["cobol"]}]
    hostile = [{k: v for k, v in op.items() if not k.startswith("_")} if isinstance(op, dict) else op
               for op in HOSTILE.values()]
    flood = [{"op": "link", "a": s.paths["cargo"], "b": s.paths["macros"], "weight": 0.4}] * (5000 - len(good) - len(hostile))
    server.other.append({"operations": good + hostile + flood})
    report = run_model_organize(s)
    assert len(server.calls("other")) == 1
    landed = [(op["op"], op.get("path") or op.get("a")) for op in report.operations]
    assert landed == [("link", s.paths["cargo"]), ("archive", s.paths["cobol"])], report.operations
    # every hostile operation named in the report and in logs/organize.log, and the flood cut
    assert len(report.rejected) == len(hostile) + 1
    assert any(f"{5000 - MAX_OPERATIONS} operations beyond the limit" in r for r in report.rejected)
    log = (s.vault.root / "logs/organize.log").read_text().splitlines()
    assert len(log) == len(report.rejected) and all(" | REJECTED | " in line for line in log)
    assert outside_snapshot(tmp_path) == outside and tree_bytes(s.vault.root / "system") == system
    assert co_link(s.path("macros"), s.uuids["cargo"])
    assert (s.vault.ltm_root / "archive/concrete/misc/cobol.md").exists()
    check_no_note_lost(s.vault.root, s.uuids.values())
    check_links(s.vault.root)


def test_a_model_replying_garbage_twice_falls_back_to_the_offline_plan(llm_vault, notices):
    s, server, tmp_path = llm_vault
    outside = outside_snapshot(tmp_path)
    server.other.extend([Raw("{not json"), Raw('{"operations": "all of them"}')])
    from braniac.model import get_model
    cfg = load_config(s.vault.root)
    report = organize(s.vault, cfg, model=get_model(cfg, s.vault.root))
    assert len(server.calls("other")) == 2
    assert any("could not propose a plan" in n for n in notices), notices
    assert report.status == "done"
    assert ("move", s.paths["ownership"]) in [(op["op"], op.get("path")) for op in report.operations]
    assert outside_snapshot(tmp_path) == outside
    check_no_note_lost(s.vault.root, s.uuids.values())
    check_links(s.vault.root)


def test_cli_with_a_model_rejects_a_hostile_plan(tmp_path, fake_llm):
    base_url, server = fake_llm
    s = build_scenario(tmp_path / "vault")
    (s.vault.root / "braniac.toml").write_text("[model]\nretries = 0\ntimeout = 5\n")
    env, netlog = guard_env(tmp_path / "guard", clean_env(BRANIAC_MODEL="openai/fake", BRANIAC_API_BASE=base_url,
                                                          OPENAI_API_KEY="test"))
    outside = outside_snapshot(tmp_path)
    system = tree_bytes(s.vault.root / "system")
    server.other.append({"operations": [HOSTILE["traversal"], HOSTILE["delete"], HOSTILE["system"],
                                        {"op": "move", "path": s.paths["ownership"], "to": f"{LTM}/concrete"}]})
    result = run_cli("--vault", s.vault.root, "organize", env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("organized: 1 move"), result.stdout
    assert result.stderr.count("rejected: ") == 3, result.stderr
    assert (s.vault.ltm_root / "concrete/ownership.md").exists()
    assert len((s.vault.root / "logs/organize.log").read_text().splitlines()) == 3
    assert outside_snapshot(tmp_path) == outside and tree_bytes(s.vault.root / "system") == system
    assert not netlog.exists(), netlog.read_text()      # nothing but the loopback server was reached
    check_links(s.vault.root)
    check_no_note_lost(s.vault.root, s.uuids.values())


def test_notes_read_together_that_link_each_other_already_get_no_co_access_link(tmp_path):
    """Promotion linked Ana and Porto both ways: reading them together changes neither note, so
    organize plans no link for them (before, it reported one and wrote nothing); Ana and a
    note she does not link yet do get one."""
    vault, _ = Vault.init(tmp_path / "vault")
    with clock.frozen(NOW - timedelta(days=2)):
        vault.remember("My sister Ana lives in Porto.")
        vault.promote(force=True)
    ana, porto = f"{LTM}/concrete/people/ana.md", f"{LTM}/concrete/places/porto.md"
    assert "](../places/porto.md" in (vault.root / ana).read_text() and "](../people/ana.md" in (vault.root / porto).read_text()
    garden = add_note(vault, f"{LTM}/concrete/topics/garden.md", "Garden", "Tomatoes and basil.", ["garden"])
    lines = []
    for n in range(3):
        at = NOW - timedelta(hours=n + 1)
        lines += [log_line(at, "QUERY", "Ana in Porto, and the garden"), log_line(at, "READ", ana),
                  log_line(at, "READ", porto), log_line(at, "READ", vault.relative(garden))]
    vault.access_log_path.write_text("\n".join(lines) + "\n")
    with clock.frozen(NOW):
        report = vault.organize()
    linked = {frozenset((op["a"], op["b"])) for op in report.operations if op["op"] == "link"}
    assert frozenset((ana, porto)) not in linked, report.operations
    assert frozenset((ana, vault.relative(garden))) in linked, report.operations
