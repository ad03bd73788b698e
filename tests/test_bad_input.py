"""Bad input: a clear message (one line, no traceback, right exit code) and nothing modified."""
from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings, strategies as st

from braniac import Vault
from braniac.vault import folder_index, notes
from braniac.vault.folder_index import Entry

from helpers import assert_clean_error, run_cli, snapshot

VALID_FM = ("---\nuuid: {uuid}\ncreated_at: 2025-01-01T00:00:00Z\nupdated_at: 2025-01-01T00:00:00Z\n"
            "tags: [a]\nemotion: calm\n---\n")


def doctor(vault: Vault) -> tuple[int, dict]:
    result = run_cli("--vault", vault.root, "doctor", "--json")
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, json.loads(result.stdout)


def problem_set(data: dict) -> set[tuple[str, str]]:
    return {(p["path"], p["reason"]) for p in data["problems"]}


def unchanged_after(vault: Vault, *commands: list[str]) -> list:
    """Run each command; assert no file of the vault changed (bytes and mtime); return results."""
    before = snapshot(vault.root)
    results = [run_cli("--vault", vault.root, *command) for command in commands]
    assert snapshot(vault.root) == before
    return results


# ------------------------------------------------------------------------------ broken notes

def test_broken_yaml_frontmatter_is_named_with_file_and_line(vault):
    path = vault.ltm_root / "concrete" / "broken note.md"
    path.write_text("---\nuuid: abc\ntags: [python, web\nemotion: calm\n---\nbody\n", encoding="utf-8")
    (result,) = unchanged_after(vault, ["doctor"])
    assert result.returncode == 1 and result.stderr == "1 problem(s) found\n"
    line = next(l for l in result.stdout.splitlines() if "broken note.md" in l)
    assert line.startswith("problem  memory/long_term/concrete/broken note.md: line 4: broken YAML frontmatter")
    code, data = doctor(vault)
    assert code == 1 and not data["healthy"]
    assert any(p["path"] == "memory/long_term/concrete/broken note.md" and p["reason"].startswith("line 4: broken YAML")
               for p in data["problems"])


@pytest.mark.parametrize("frontmatter, line", [
    ("uuid: a\ncreated_at: 2025-02-30\n", 3),              # a date YAML accepts and Python does not
    ("uuid: a\n\tbad: tab\n", 3),
    ("uuid: a\nnot: [closed\n", None),
    ("uuid: a\n", None),                                  # fence never closed
])
def test_other_broken_frontmatter_never_crashes_doctor(vault, frontmatter, line):
    closing = "" if frontmatter == "uuid: a\n" else "---\n"
    (vault.ltm_root / "skills" / "x.md").write_text(f"---\n{frontmatter}{closing}body\n", encoding="utf-8")
    (result,) = unchanged_after(vault, ["doctor"])
    assert result.returncode == 1 and "Traceback" not in result.stderr
    reported = [l for l in result.stdout.splitlines() if l.startswith("problem  memory/long_term/skills/x.md: line ")]
    assert reported, result.stdout
    if line:
        assert reported[0].startswith(f"problem  memory/long_term/skills/x.md: line {line}: ")


def test_missing_required_keys_are_named(vault):
    (vault.ltm_root / "events" / "no keys.md").write_text("---\nuuid: abc\ntags: []\n---\nbody\n", encoding="utf-8")
    (vault.ltm_root / "events" / "no frontmatter.md").write_text("just text\n", encoding="utf-8")
    before = snapshot(vault.root)
    code, data = doctor(vault)
    assert snapshot(vault.root) == before
    assert code == 1
    found = problem_set(data)
    for key in ("created_at", "updated_at", "emotion"):
        assert ("memory/long_term/events/no keys.md", f"missing required frontmatter key '{key}'") in found
    assert ("memory/long_term/events/no keys.md", "missing required frontmatter key 'uuid'") not in found
    for key in ("uuid", "created_at", "updated_at", "tags", "emotion"):
        assert ("memory/long_term/events/no frontmatter.md", f"missing required frontmatter key '{key}'") in found


def test_binary_note(vault):
    (vault.ltm_root / "concrete" / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (result,) = unchanged_after(vault, ["doctor"])
    assert result.returncode == 1
    assert "problem  memory/long_term/concrete/image.md: binary file (contains NUL bytes), not a Markdown note" \
        in result.stdout
    assert all(p.name != "image.md" for p in vault.uuid_map().values())


def test_non_utf8_note_names_the_line(vault):
    (vault.ltm_root / "concrete" / "latin1.md").write_bytes(
        VALID_FM.format(uuid="u-latin").encode() + "caf\xe9\n".encode("latin-1"))
    code, data = doctor(vault)
    assert code == 1
    assert ("memory/long_term/concrete/latin1.md", "line 8: not valid UTF-8 (byte 0xe9)") in problem_set(data)


# ------------------------------------------------------------------------------ bad short_term.md

@pytest.mark.parametrize("kind, data, words", [
    ("binary", b"# Short-Term Memory Scratchpad\n\x00\x01\x02", "binary file"),
    ("not utf-8", b"# Short-Term Memory Scratchpad\n\n## Summary\nna\xefve\n", "not valid UTF-8"),
])
def test_unreadable_short_term_memory_is_refused_untouched(vault, kind, data, words):
    vault.stm_path.write_bytes(data)
    remember, stats = unchanged_after(vault, ["remember", "hello"], ["stats", "--json"])
    assert_clean_error(remember, "short_term.md", words)
    assert stats.returncode == 0 and json.loads(stats.stdout)["short_term"]["events"] is None
    code, report = doctor(vault)
    assert code == 1
    assert any(p["path"] == "memory/short_term.md" and words in p["reason"] for p in report["problems"])
    assert vault.stm_path.read_bytes() == data


def test_50_mb_short_term_memory_is_refused_untouched(vault):
    with open(vault.stm_path, "ab") as handle:
        chunk = b"### 2025-01-01T00:00:00Z\n**User:** \"" + b"x" * 1000 + b"\"\n\n"
        handle.write(chunk * (50 * 1024 * 1024 // len(chunk) + 1))
    assert vault.stm_path.stat().st_size > 50 * 1024 * 1024
    (remember,) = unchanged_after(vault, ["remember", "hello"])
    assert_clean_error(remember, "short_term.md", "too large", "limit is 20 MB")
    code, data = doctor(vault)
    assert code == 1 and any("too large" in p["reason"] for p in data["problems"])


def test_short_term_memory_as_a_folder(vault):
    vault.stm_path.unlink()
    vault.stm_path.mkdir()
    (remember,) = unchanged_after(vault, ["remember", "hello"])
    assert_clean_error(remember, "short_term.md")


def test_short_term_memory_symlinked_out_of_the_vault(vault, tmp_path):
    outside = tmp_path / "elsewhere.md"
    outside.write_bytes(vault.stm_path.read_bytes())
    vault.stm_path.unlink()
    vault.stm_path.symlink_to(outside)
    before = outside.read_bytes(), outside.stat().st_mtime_ns
    (remember,) = unchanged_after(vault, ["remember", "hello"])
    assert_clean_error(remember, "leaves the vault")
    assert (outside.read_bytes(), outside.stat().st_mtime_ns) == before


@pytest.mark.parametrize("stdin, words", [(b"a\x00b", "NUL"), (b"x" * 200_001, "too large"),
                                          (b"\xff\xfe broken", "UTF-8")])
def test_bad_remember_text_from_stdin(vault, stdin, words):
    before = snapshot(vault.root)
    result = run_cli("--vault", vault.root, "remember", "-", input=stdin)
    assert snapshot(vault.root) == before
    assert_clean_error(result, words)


def test_a_text_under_the_limit_is_remembered_whatever_its_words(vault):
    """The limit is the text's: 99,990 characters of one "word" were refused as a 200,013-character
    event, its reflection having named the word twice as a topic."""
    result = run_cli("--vault", vault.root, "remember", "-", input=b"a" * 99_990)
    assert result.returncode == 0, result.stderr
    assert len(vault.stm_path.read_text(encoding="utf-8")) < 110_000


def test_undecodable_argument_bytes(vault):
    before = snapshot(vault.root)
    result = run_cli("--vault", vault.root, "remember", os.fsdecode(b"caf\xe9"))
    assert snapshot(vault.root) == before
    assert_clean_error(result, "UTF-8")


# ------------------------------------------------------------------------------ symlinks

def test_symlinks_leaving_the_vault_are_reported_and_not_followed(vault, tmp_path):
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    # if braniac followed these links, doctor would report the broken YAML and duplicate uuids
    (outside / "secret.md").write_text("---\nuuid: [broken\n---\nsecret\n", encoding="utf-8")
    own_uuid = notes.read(vault.identity_path).uuid
    (outside / "folder" / "dup.md").write_text(VALID_FM.format(uuid=own_uuid), encoding="utf-8")
    (outside / "folder" / "_index.md").write_text(VALID_FM.format(uuid="outside-index"), encoding="utf-8")
    concrete = vault.ltm_root / "concrete"
    (concrete / "secret.md").symlink_to(outside / "secret.md")
    (concrete / "linked folder").symlink_to(outside / "folder", target_is_directory=True)
    before = snapshot(outside)

    code, data = doctor(vault)
    assert code == 1
    assert problem_set(data) == {
        ("memory/long_term/concrete/secret.md", "symlink leaves the vault; braniac does not follow it"),
        ("memory/long_term/concrete/linked folder", "symlinked folder leaves the vault; braniac does not follow it"),
    }
    assert data["warnings"] == []       # no "not in the manifest" noise about what it did not follow
    assert vault.uuid_map()[own_uuid] == vault.identity_path
    assert all(outside not in p.parents for p in vault.uuid_map().values())
    stats = run_cli("--vault", vault.root, "stats", "--json")
    assert json.loads(stats.stdout)["long_term"]["concrete"] == 0
    assert snapshot(outside) == before


# ------------------------------------------------------------------------------ odd file names

ODD_NAMES = ["my note.md", "ünïcödé ノート.md", "-leading-dash.md", "--help.md", "C# & (notes) 100%.md", " spaced .md"]


def test_odd_note_file_names_work_everywhere(vault):
    concrete = vault.ltm_root / "concrete"
    entries = []
    for name in ODD_NAMES:
        note = notes.Note.new(title=name.removesuffix(".md"), body=f"about {name}\n")
        path = notes.write(note, concrete / name)
        entries.append(Entry(note.title, path, note.uuid))
    index = folder_index.read(concrete / "_index.md")
    index.set_manifest(entries)
    (concrete / "_index.md").write_text(index.render(), encoding="utf-8")
    assert [e.path for e in folder_index.read(concrete / "_index.md").manifest] == [concrete / n for n in ODD_NAMES]

    code, data = doctor(vault)
    assert (code, data["problems"], data["warnings"]) == (0, [], [])
    mapping = vault.uuid_map()
    assert {mapping[e.uuid] for e in entries} == {concrete / n for n in ODD_NAMES}
    stats = json.loads(run_cli("--vault", vault.root, "stats", "--json").stdout)
    assert stats["long_term"]["concrete"] == len(ODD_NAMES)

    # and a broken one is named exactly
    (concrete / "-broken ü.md").write_text("---\nuuid: [x\n---\n", encoding="utf-8")
    result = run_cli("--vault", vault.root, "doctor")
    assert result.returncode == 1
    assert any(l.startswith("problem  memory/long_term/concrete/-broken ü.md: line ")
               for l in result.stdout.splitlines())


def test_vault_with_an_odd_path(tmp_path):
    root = tmp_path / "-my vault ü"
    assert run_cli("init", "--", root.name, cwd=tmp_path).returncode == 0
    result = run_cli("--vault", root, "remember", "odd path works")
    assert result.returncode == 0, result.stderr
    assert run_cli("doctor", cwd=root / "memory").returncode == 0


# ------------------------------------------------------------------------------ not a vault

@pytest.mark.parametrize("make", ["missing", "empty folder", "a file", "half a vault"])
def test_not_a_vault_names_how_to_create_one(tmp_path, make):
    path = tmp_path / "target"
    if make == "empty folder":
        path.mkdir()
    elif make == "a file":
        path.write_text("x")
    elif make == "half a vault":
        (path / "memory").mkdir(parents=True)
    for command in (["doctor"], ["remember", "x"], ["stats"]):
        result = run_cli("--vault", path, *command)
        line = assert_clean_error(result, str(path), "braniac init PATH")
        assert len(line) < 300
    assert not (path / "system").exists()


# ------------------------------------------------------------------------------ broken structure

def test_short_term_memory_structure_problems_are_named(vault):
    text = vault.stm_path.read_text(encoding="utf-8")
    text = text.replace("### Tasks\n", "").replace("## Event Log", "## Events (renamed by hand)")
    text += "\n## Event Log\n### 2025-03-06T09:00:00Z\n**User:** \"a\"\n\n### 2025-03-06T09:00:00Z\n**User:** \"b\"\n"
    vault.stm_path.write_text(text, encoding="utf-8")
    before = snapshot(vault.root)
    code, data = doctor(vault)
    assert snapshot(vault.root) == before
    assert code == 1
    assert problem_set(data) == {
        ("memory/short_term.md", "section 'Structured Data / Tasks' is missing (vault-format.md §5)"),
        ("memory/short_term.md", "event id 2025-03-06T09:00:00Z appears twice"),
    }


@settings(max_examples=60)
@given(st.binary(max_size=300), st.sampled_from(["concrete/x.md", "_index.md", "skills/deep/_index.md"]))
def test_doctor_never_crashes_on_arbitrary_bytes(vault, data, rel):
    path = vault.ltm_root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"---\n" + data if data[:1] != b"-" else data)
    findings = vault.doctor()                 # a list of findings, never an exception
    assert all(f.path and f.reason and "\n" not in f.reason for f in findings)
    assert path.read_bytes()[:4] in (b"---\n", data[:4])
