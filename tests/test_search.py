"""Search: a Whoosh index that mirrors the vault and never drifts from the files.

- a note added, edited in place, replaced by an atomic rename, renamed, moved to another folder
  (alone or with its folder) or deleted with plain file operations is reflected by the next
  `braniac search` (the real CLI, in a process of its own) and by the Python API, with a fresh
  SearchIndex and with one kept open;
- two processes indexing at once while a third edits never error and end consistent;
- a deleted index folder, a truncated segment or a garbled file list is rebuilt with a
  one-line notice and search still answers correctly;
- odd queries never crash; `--json` and `--kind` work;
- binary, huge and non-UTF-8 files never stop the rest from being indexed;
- ranking: title/tags above body; more inbound links, more reads, shallower depth rank higher;
- only Markdown under system/ and memory/ is indexed, never tool folders.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from braniac.vault import notes
from braniac.search.index import SearchIndex
from braniac.vault.links import make_link
from braniac import Vault

import forked
from helpers import clean_env, write_note


# ---------------------------------------------------------------------- helpers

def cli(vault: Vault, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """`braniac --vault V ARGS`, forked from a server with braniac imported (tests/forked.py): a
    real process, started without the interpreter's start and braniac's imports."""
    proc = forked.run(["--vault", str(vault.root), *args], env=clean_env(), timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def cli_paths(vault: Vault, query: str, *options: str) -> list[str]:
    proc = cli(vault, "search", "--json", *options, "--", query)
    return [hit["path"] for hit in json.loads(proc.stdout)]


def notices(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


class Finder:
    """Search through one of three doors: the CLI, a fresh SearchIndex, or one kept open."""

    def __init__(self, vault: Vault, via: str):
        self.vault, self.via = vault, via
        self.kept = SearchIndex(vault) if via == "api-kept-open" else None

    def __call__(self, query: str, kind: str | None = None) -> list[str]:
        if self.via == "cli":
            return cli_paths(self.vault, query, *(["--kind", kind] if kind else []))
        index = self.kept or SearchIndex(self.vault)
        return [h.path for h in index.search(query, kind=kind)]


# ---------------------------------------------------------------------- edits with plain file operations

@pytest.mark.parametrize("via", ["cli", "api-fresh", "api-kept-open"])
def test_plain_file_operations_are_reflected_by_the_next_search(vault, via):
    find = Finder(vault, via)
    a = "memory/long_term/concrete/fruit/apple.md"
    other = "memory/long_term/concrete/fruit/pear.md"
    write_note(vault, a, "Orchard notes", "The quokkafruit grows here.")
    write_note(vault, other, "Pear notes", "The pearwordx grows too.")
    assert find("quokkafruit") == [a]                                   # added

    path = vault.root / a
    with open(path, "w", encoding="utf-8") as handle:                    # edited in place
        handle.write(notes.Note.new(title="Orchard notes", body="Now the wallabyfruit grows here.").render())
    assert find("wallabyfruit") == [a]
    assert find("quokkafruit") == []

    temp = path.with_name(".apple.md.swp")                              # editor's atomic save
    temp.write_text(notes.Note.new(title="Orchard notes", body="Finally the numbatfruit.").render(), encoding="utf-8")
    os.replace(temp, path)
    assert find("numbatfruit") == [a]
    assert find("wallabyfruit") == []

    b = "memory/long_term/concrete/fruit/renamed.md"                    # renamed in its folder
    os.rename(path, vault.root / b)
    assert find("numbatfruit") == [b]

    c = "memory/long_term/skills/renamed.md"                            # moved to another folder
    os.rename(vault.root / b, vault.root / c)
    assert find("numbatfruit") == [c]
    assert find("numbatfruit", kind="skills") == [c]
    assert find("numbatfruit", kind="concrete") == []

    os.rename(vault.root / "memory/long_term/concrete/fruit",          # a whole folder moved
              vault.root / "memory/long_term/concrete/produce")
    assert find("pearwordx") == ["memory/long_term/concrete/produce/pear.md"]

    os.remove(vault.root / c)                                          # deleted
    assert find("numbatfruit") == []

    os.makedirs(vault.root / "memory/long_term/concrete/new/deeper/still")   # new nested folder
    d = "memory/long_term/concrete/new/deeper/still/fresh.md"
    write_note(vault, d, "Fresh", "A dibblerword appears.")
    assert find("dibblerword") == [d]


def test_same_size_edit_with_an_unchanged_mtime_is_seen(vault):
    """Coarse timestamps (HFS+, FAT, ext4 on older kernels) or tools that keep mtimes can give
    a changed file the same size and mtime as the version indexed: it must still be seen."""
    index = SearchIndex(vault)
    path = write_note(vault, "memory/long_term/concrete/same.md", "Same", "The alphaword123 is here.")
    assert [h.path for h in index.search("alphaword123")] == ["memory/long_term/concrete/same.md"]
    before = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace("alphaword123", "bravoword456"), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert [h.path for h in index.search("bravoword456")] == ["memory/long_term/concrete/same.md"]
    assert index.search("alphaword123") == []
    assert [h.path for h in SearchIndex(vault).search("bravoword456")] == ["memory/long_term/concrete/same.md"]


def test_a_kept_open_index_sees_another_process_rebuild(vault):
    """A long-lived SearchIndex (watch, the REPL) must not keep serving a replaced index, even
    when the new one happens to have the same generation number."""
    write_note(vault, "memory/long_term/concrete/n.md", "Note", "The charlieword is here.")
    kept = SearchIndex(vault)
    kept.rebuild()
    assert [h.path for h in kept.search("charlieword", sync=False)] == ["memory/long_term/concrete/n.md"]
    write_note(vault, "memory/long_term/concrete/n.md", "Note", "The deltaword is here.")
    SearchIndex(vault).rebuild()
    assert [h.path for h in kept.search("deltaword", sync=False)] == ["memory/long_term/concrete/n.md"]
    assert kept.search("charlieword") == []


def test_a_kept_open_index_after_a_merge_has_no_duplicates(vault):
    """Whoosh's Searcher.refresh() re-added the segments a merge had removed: every hit twice."""
    kept = SearchIndex(vault)
    kept.sync()
    for n in range(3):
        write_note(vault, f"memory/long_term/concrete/m{n}.md", "M", f"The mergeword number{n}.")
        kept.sync()
        assert len(kept.search("mergeword", sync=False)) == n + 1
    kept.optimize()
    assert sorted(h.path for h in kept.search("mergeword", sync=False)) == [
        f"memory/long_term/concrete/m{n}.md" for n in range(3)]
    assert kept.doc_count() == len(list(kept.walk()))


def _segments(index: SearchIndex) -> dict[str, int]:
    return {leaf.segment().segment_id(): leaf.doc_count() for leaf, _ in index.searcher().reader().leaf_readers()}


def test_small_commits_keep_the_segment_count_bounded(vault):
    """Each edit commits a small segment; segments of one size class are folded together once
    FOLD_WIDTH of them exist, a note edited over and over leaves no trail of emptied segments,
    a big segment is never rewritten, and the quiet-time fold leaves two segments."""
    from braniac.search.segments import FOLD_WIDTH
    index = SearchIndex(vault)
    for n in range(70):
        write_note(vault, f"memory/long_term/concrete/big/b{n}.md", "B", f"The bulkword number{n}.")
    index.sync()                                     # 70 notes: one commit, one big segment
    (big,) = [seg for seg, count in _segments(index).items() if count >= 64]
    rels = []
    for n in range(40):
        rels.append(write_note(vault, f"memory/long_term/concrete/s{n}.md", "S", f"The smallword count{n}.")
                    .relative_to(vault.root).as_posix())
        index.sync([vault.root / rels[-1]])
        segments = _segments(index)
        assert len(segments) <= 1 + 3 * (FOLD_WIDTH - 1), (n, segments)
        assert big in segments
    before = len(_segments(index))
    for n in range(30):                              # short_term.md after every turn, say
        write_note(vault, "memory/long_term/concrete/s0.md", "S", f"The smallword count0 again{n}.")
        index.sync([vault.root / "memory/long_term/concrete/s0.md"])
        assert len(_segments(index)) <= before + 1, n
    assert sorted(h.path for h in index.search("smallword", limit=50, sync=False)) == sorted(rels)
    assert [h.path for h in index.search("again29", sync=False)] == ["memory/long_term/concrete/s0.md"]
    index.fold_small_segments()
    segments = _segments(index)
    assert big in segments and len(segments) == 2
    assert sorted(h.path for h in index.search("smallword", limit=50, sync=False)) == sorted(rels)
    assert len(index.search("bulkword", limit=100, sync=False)) == 70
    assert index.doc_count() == len(list(index.walk()))
    assert index.sync().changed == 0                 # the file list agrees with what was folded


def test_a_fold_takes_the_files_as_they_are_now(vault):
    """Folding re-reads the files: one deleted or edited since the last sync ends up as the
    next sync would leave it, and the file list agrees."""
    index = SearchIndex(vault)
    index.sync()
    rels = [write_note(vault, f"memory/long_term/concrete/f{n}.md", "F", f"The foldword item{n}.")
            .relative_to(vault.root).as_posix() for n in range(6)]
    for rel in rels:
        index.sync([vault.root / rel])
    (vault.root / rels[0]).unlink()
    write_note(vault, rels[1], "F", "The foldword changed meanwhile, now with zuluword.")
    index.fold_small_segments()
    assert sorted(h.path for h in index.search("foldword", limit=50, sync=False)) == sorted(rels[1:])
    assert [h.path for h in index.search("zuluword", sync=False)] == [rels[1]]
    assert index.sync().changed == 0
    assert index.doc_count() == len(list(index.walk()))


def test_a_fold_keeps_notes_whose_mtime_alone_changed(vault):
    """A note whose mtime moved but whose content did not (a touch, or a fresh note synced
    again once its mtime can be trusted) is only re-stamped in the file list; when its
    segment is folded in the same commit, it must still be indexed afterwards."""
    index = SearchIndex(vault)
    index.sync()
    old = time.time_ns() - 100 * 10**9
    paths = []
    for n in range(4):
        path = write_note(vault, f"memory/long_term/concrete/t{n}.md", "T", f"The zebraword{n} here.")
        os.utime(path, ns=(old, old))
        index.sync([path])
        paths.append(path)
    for path in paths:
        os.utime(path, ns=(old + 10**9, old + 10**9))     # same content, new mtime
    write_note(vault, "memory/long_term/concrete/t9.md", "T", "Another note.")
    index.sync()
    for n in range(4):
        assert [h.path for h in index.search(f"zebraword{n}", sync=False)] == [f"memory/long_term/concrete/t{n}.md"]
    assert index.doc_count() == len(list(index.walk()))


def test_sync_of_given_paths_handles_folders_and_never_takes_ignored_ones(vault):
    """`sync(paths)` (what `watch` calls) with a moved folder's old and new paths updates every
    note inside; a path in a hidden or tool folder is never indexed."""
    index = SearchIndex(vault)
    old = vault.root / "memory/long_term/concrete/topic"
    write_note(vault, "memory/long_term/concrete/topic/inner/x.md", "X", "An echoword lives here.")
    index.sync()
    new = vault.root / "memory/long_term/skills/topic"
    os.rename(old, new)
    index.sync([old, new])
    assert [h.path for h in index.search("echoword", sync=False)] == ["memory/long_term/skills/topic/inner/x.md"]
    inner = write_note(vault, "memory/long_term/skills/topic/inner/y.md", "Y", "A second echoword.")
    index.sync([new, inner, new / "inner"])        # a folder and files inside it: each indexed once
    assert sorted(h.path for h in index.search("echoword", sync=False)) == [
        "memory/long_term/skills/topic/inner/x.md", "memory/long_term/skills/topic/inner/y.md"]
    assert index.doc_count() == len(list(index.walk()))
    hidden = write_note(vault, "memory/long_term/.obsidian/h.md", "H", "A foxtrotword hides here.")
    trash = write_note(vault, "memory/long_term/node_modules/t.md", "T", "A foxtrotword hides here.")
    index.sync([hidden, trash])
    assert index.search("foxtrotword", sync=False) == []


def test_index_lost_between_commit_and_file_list_has_no_duplicates(vault, monkeypatch):
    """A process killed after committing documents but before saving the file list must not
    leave duplicates behind: the next sync replaces, it does not add twice."""
    index = SearchIndex(vault)
    index.sync()
    write_note(vault, "memory/long_term/concrete/dup.md", "Dup", "A golfword here.")
    from braniac.search import filelist
    real = filelist.FileList.append

    def crash(self, changes):
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(filelist.FileList, "append", crash)
    with pytest.raises(KeyboardInterrupt):
        index.sync()
    monkeypatch.setattr(filelist.FileList, "append", real)
    fresh = SearchIndex(vault)
    assert [h.path for h in fresh.search("golfword")] == ["memory/long_term/concrete/dup.md"]
    assert fresh.doc_count() == len(list(fresh.walk()))


def test_file_list_journal_is_shared_compacted_and_survives_a_torn_line(vault, monkeypatch):
    """One index's edits reach another's file list through the journal (no re-indexing), a
    compaction folds it in, and a line torn by a crash only makes that file be read again."""
    from braniac.search import filelist
    monkeypatch.setattr(filelist, "COMPACT_AT", 5)
    a = SearchIndex(vault)
    b = SearchIndex(vault)
    a.sync()
    journal = vault.state_dir / "index" / filelist.JOURNAL
    for n in range(12):
        write_note(vault, f"memory/long_term/concrete/j{n}.md", "J", f"The julietword{n} here.")
        assert b.sync().added == 1
        assert a.sync().changed == 0                  # a learnt of b's change from the journal
        assert [h.path for h in a.search(f"julietword{n}", sync=False)] == [f"memory/long_term/concrete/j{n}.md"]
    assert not journal.exists() or len(journal.read_text().splitlines()) <= 6  # compacted along the way
    write_note(vault, "memory/long_term/concrete/j12.md", "J", "The julietword12 here.")
    b.sync()
    assert journal.exists()
    a.fold_small_segments()
    assert not journal.exists()
    write_note(vault, "memory/long_term/concrete/j0.md", "J", "The kiloword now.")
    b.sync()
    with open(journal, "ab") as handle:
        handle.write(b'{"p": "memory/long_term/concrete/j1.md", "r": {"h"')   # killed mid-append
    write_note(vault, "memory/long_term/concrete/j2.md", "J", "The limaword now.")
    b.sync()
    fresh = SearchIndex(vault)
    assert fresh.sync().changed == 0
    for word, rel in (("kiloword", "j0"), ("limaword", "j2"), ("julietword1", "j1")):
        assert [h.path for h in fresh.search(word)] == [f"memory/long_term/concrete/{rel}.md"]
    assert fresh.doc_count() == len(list(fresh.walk()))
    assert set(fresh.files()) == {rel for rel, _ in fresh.walk()}


# ---------------------------------------------------------------------- concurrency

WORKER = textwrap.dedent("""
    import random, sys, time
    from braniac.search.index import SearchIndex
    from braniac import Vault
    root, mode, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    rng = random.Random(mode)
    kept = SearchIndex(Vault(root))
    end = time.monotonic() + seconds
    rounds = 0
    while time.monotonic() < end:
        rounds += 1
        if mode == "rebuild" and rounds % 3 == 1:
            SearchIndex(Vault(root)).rebuild()
        elif mode == "sync" and rounds % 2:
            SearchIndex(Vault(root)).sync()
        else:
            kept.sync()
        word = "tok%03d" % rng.randrange(40)
        hits = kept.search(word) + SearchIndex(Vault(root)).search(word, sync=False)
        assert isinstance(hits, list)
        if rounds % 7 == 0:
            kept.optimize() if rounds % 14 == 0 else kept.fold_small_segments()
    print(rounds)
""")


def test_two_processes_indexing_while_a_third_edits_end_consistent(vault, tmp_path):
    expected: dict[str, str] = {}            # vault-relative path -> the one token it holds
    for i in range(40):
        rel = f"memory/long_term/concrete/t{i % 4}/n{i}.md"
        write_note(vault, rel, f"Note {i}", f"Body of tok{i:03d} and common words.")
        expected[rel] = f"tok{i:03d}"
    SearchIndex(vault).rebuild()
    script = tmp_path / "worker.py"
    script.write_text(WORKER, encoding="utf-8")
    workers = [subprocess.Popen([sys.executable, str(script), str(vault.root), mode, "6"], env=clean_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for mode in ("rebuild", "sync")]
    rng = random.Random(3)
    counter = 100
    end = time.monotonic() + 5
    while time.monotonic() < end:        # the third process: this one, editing like a person
        rel = rng.choice(sorted(expected))
        path = vault.root / rel
        action = rng.choice(["edit", "replace", "delete", "rename", "create"])
        counter += 1
        token = f"tok{counter:03d}"
        if action == "edit":
            path.write_text(notes.Note.new(title="Edited", body=f"Now {token} here.").render(), encoding="utf-8")
            expected[rel] = token
        elif action == "replace":
            temp = path.with_name(f".{path.name}.tmp")
            temp.write_text(notes.Note.new(title="Replaced", body=f"Now {token} here.").render(), encoding="utf-8")
            os.replace(temp, path)
            expected[rel] = token
        elif action == "delete" and len(expected) > 10:
            path.unlink()
            del expected[rel]
        elif action == "rename":
            new_rel = f"memory/long_term/concrete/t{rng.randrange(6)}/r{counter}.md"
            (vault.root / new_rel).parent.mkdir(parents=True, exist_ok=True)
            os.rename(path, vault.root / new_rel)
            expected[new_rel] = expected.pop(rel)
        else:
            new_rel = f"memory/long_term/concrete/t{rng.randrange(6)}/c{counter}.md"
            write_note(vault, new_rel, "Created", f"Fresh {token} here.")
            expected[new_rel] = token
        time.sleep(rng.uniform(0, 0.03))
    for proc in workers:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert "Traceback" not in err, err
        assert int(out.strip()) > 3, "the worker barely ran"
    index = SearchIndex(vault)
    index.sync()
    on_disk = {rel for rel, _ in index.walk()}
    assert set(index.files()) == on_disk
    assert index.doc_count() == len(on_disk)
    for rel, token in expected.items():
        assert [h.path for h in index.search(token, sync=False)] == [rel], (rel, token)
    stale = [f"tok{i:03d}" for i in range(counter + 1) if f"tok{i:03d}" not in expected.values()]
    for token in stale[:60]:
        assert index.search(token, sync=False) == [], token
    assert not list(vault.state_dir.glob("index.*-*")), "a staging folder was left behind"


# ---------------------------------------------------------------------- damage is repaired

def _damage_missing(vault: Vault) -> None:
    shutil.rmtree(vault.state_dir / "index")


SEGMENT_FILES = (".seg", ".trm", ".pst", ".col")   # a compound segment, or Whoosh's plain segment files


def _truncate(path: Path) -> None:
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size // 2)


def _damage_truncated_segment(vault: Vault) -> None:
    segments = [p for p in (vault.state_dir / "index").iterdir() if p.suffix in SEGMENT_FILES]
    assert segments
    for seg in segments:
        _truncate(seg)




def _damage_file_list(vault: Vault) -> None:
    (vault.state_dir / "index" / "braniac-files.json").write_text("{not json", encoding="utf-8")


def _damage_toc(vault: Vault) -> None:
    for toc in (vault.state_dir / "index").glob("*.toc"):
        toc.write_bytes(b"garbage")


def _damage_state_folder(vault: Vault) -> None:
    shutil.rmtree(vault.state_dir)


DAMAGE = {"missing": _damage_missing, "truncated-seg": _damage_truncated_segment,
          "file-list": _damage_file_list, "toc": _damage_toc, "state-folder": _damage_state_folder}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_index_is_rebuilt_with_one_notice_via_cli(vault, damage):
    write_note(vault, "memory/long_term/concrete/keep.md", "Keeper", "The hotelword stays findable.")
    assert cli_paths(vault, "hotelword") == ["memory/long_term/concrete/keep.md"]
    DAMAGE[damage](vault)
    proc = cli(vault, "search", "--json", "hotelword")
    assert [h["path"] for h in json.loads(proc.stdout)] == ["memory/long_term/concrete/keep.md"]
    lines = notices(proc.stderr)
    assert len(lines) == 1 and lines[0].startswith("braniac: ") and "index" in lines[0], proc.stderr
    again = cli(vault, "search", "--json", "hotelword")
    assert notices(again.stderr) == []
    assert [h["path"] for h in json.loads(again.stdout)] == ["memory/long_term/concrete/keep.md"]


@pytest.mark.parametrize("damage", ["missing", "truncated-seg", "file-list", "toc"])
def test_damaged_index_is_rebuilt_with_one_notice_via_api(vault, damage, notices):
    write_note(vault, "memory/long_term/concrete/keep.md", "Keeper", "The indiaword stays findable.")
    SearchIndex(vault).rebuild()
    DAMAGE[damage](vault)
    said = notices
    index = SearchIndex(vault)
    assert [h.path for h in index.search("indiaword")] == ["memory/long_term/concrete/keep.md"]
    assert len(said) == 1 and "index" in said[0]


@pytest.mark.parametrize("edited", [False, True], ids=["unchanged", "edited"])
@pytest.mark.parametrize("suffix", [".pst", ".trm", "_stored.col", "_body_len.col", ".toc", ".seg"])
def test_one_truncated_index_file_is_found_out_and_repaired(vault, suffix, edited, notices):
    """Half of one index file gone: every note is still found, with one notice at most (the
    damage shows when a read reaches it, or when a sync writes). `.seg` is the compound
    format older indexes used."""
    for i in range(150):
        write_note(vault, f"memory/long_term/concrete/n{i}.md", f"Note {i}", f"The word{i:03d}x and shared text.")
    if suffix == ".seg":
        from whoosh import index as whoosh_index
        SearchIndex(vault).rebuild()
        # an index from before FORMAT 2: one compound segment
        ix = whoosh_index.open_dir(str(vault.state_dir / "index"))
        writer = ix.writer(compound=True)
        writer.commit(optimize=True)
    else:
        SearchIndex(vault).rebuild()
    targets = [p for p in (vault.state_dir / "index").iterdir() if p.name.endswith(suffix)]
    assert targets
    for target in targets:
        _truncate(target)
    if edited:
        write_note(vault, "memory/long_term/concrete/n7.md", "Note 7", "The word007x and a changedword.")
    said = notices
    index = SearchIndex(vault)
    for i in range(150):
        assert [h.path for h in index.search(f"word{i:03d}x", sync=edited)] == [f"memory/long_term/concrete/n{i}.md"]
    if edited:
        assert [h.path for h in index.search("changedword")] == ["memory/long_term/concrete/n7.md"]
    assert len(said) <= 1 and all("rebuilding" in m for m in said), said


def test_a_stored_fields_column_cut_where_it_reads_as_no_fields_is_found_out_and_repaired(vault, notices):
    """Cut at some points (a few of its last bytes, which ones depends on the notes), the
    stored-fields column reads back as no fields at all, with no error: a search found the word,
    then failed on the missing path (the rare failure of the test above). Such a cut, found by
    asking Whoosh itself, is found out, the index rebuilt once, and the note found."""
    from whoosh import index as whoosh_index
    for i in range(150):
        write_note(vault, f"memory/long_term/concrete/n{i}.md", f"Note {i}", f"The word{i:03d}x and shared text.")
    SearchIndex(vault).rebuild()
    column = next(p for p in (vault.state_dir / "index").iterdir() if p.name.endswith("_stored.col"))
    whole = column.read_bytes()

    def reads_as_nothing(cut: int) -> bool:
        column.write_bytes(whole[:cut])
        try:
            with whoosh_index.open_dir(str(column.parent)).searcher() as searcher:
                return searcher.stored_fields(42) == {}
        except Exception:   # most cuts fail loudly, which the test above covers
            return False
    cut = next(c for c in range(len(whole) - 1, len(whole) - 1500, -1) if reads_as_nothing(c))
    column.write_bytes(whole[:cut])
    assert [h.path for h in SearchIndex(vault).search("word042x", sync=False)] == ["memory/long_term/concrete/n42.md"]
    assert len(notices) == 1 and "rebuilding" in notices[0], notices


# ---------------------------------------------------------------------- queries

ODD_QUERIES = [
    "", "   ", '"', '""', "'", "(", ")", "((a", "a))", "foo:bar", "title:foo", "*", "foo*", "?", "a AND",
    "OR", "NOT", "AND OR NOT", "-", "+", "~", "^", "foo^3", "[a TO z]", "{a TO}", "\\", "/", "<>", "&&", "||",
    "the", "the and of a to", "café naïve 日本語 🙂", "\x00", "\u200b", "%s %d {0}", "'; DROP TABLE notes;--",
    "kiloword " * 2000, "k" * 10_000, '"unclosed phrase kiloword', "kiloword~2", "kiloword NOT",
]


def test_odd_queries_never_crash_and_give_a_list(vault):
    write_note(vault, "memory/long_term/concrete/k.md", "Kilo", "The kiloword and a foo bar café 日本語.")
    index = SearchIndex(vault)
    for query in ODD_QUERIES:
        hits = index.search(query)
        assert isinstance(hits, list), query
        for hit in hits:
            assert isinstance(hit.path, str) and isinstance(hit.excerpt, str)
    assert [h.path for h in index.search("日本語")] == ["memory/long_term/concrete/k.md"]
    assert "memory/long_term/concrete/k.md" in [h.path for h in index.search("kiloword " * 2000)]
    assert "memory/long_term/concrete/k.md" in [h.path for h in index.search("foo:bar")]


@pytest.mark.parametrize("query", ['"', "((a", "foo:bar", "*", "the and of", "日本語 🙂", "k" * 10_000, "NOT"])
def test_odd_queries_via_cli(vault, query):
    write_note(vault, "memory/long_term/concrete/k.md", "Kilo", "The kiloword and foo bar 日本語.")
    proc = cli(vault, "search", "--json", "--", query)
    assert isinstance(json.loads(proc.stdout), list)


def test_json_fields_and_kind_filter(vault):
    write_note(vault, "memory/long_term/concrete/j.md", "Juliet fact", "The julietword is a fact.", tags=["alpha"])
    write_note(vault, "memory/long_term/skills/j.md", "Juliet skill", "The julietword as a skill.")
    proc = cli(vault, "search", "--json", "julietword")
    hits = json.loads(proc.stdout)
    assert len(hits) == 2
    for hit in hits:
        assert set(hit) == {"title", "path", "uuid", "kind", "score", "excerpt"}
        assert isinstance(hit["score"], (int, float)) and hit["uuid"] and "julietword" in hit["excerpt"]
    assert {h["kind"] for h in hits} == {"concrete", "skills"}
    assert cli_paths(vault, "julietword", "--kind", "skills") == ["memory/long_term/skills/j.md"]
    assert cli_paths(vault, "julietword", "--kind", "concrete") == ["memory/long_term/concrete/j.md"]
    assert cli_paths(vault, "julietword", "--kind", "events") == []
    write_note(vault, "memory/long_term/Inbox/j.md", "Juliet idea", "The julietword, jotted down.")   # a folder of their own
    assert cli_paths(vault, "julietword", "--kind", "other") == ["memory/long_term/Inbox/j.md"]
    plain = cli(vault, "search", "julietword")
    assert "Juliet fact" in plain.stdout and "memory/long_term/skills/j.md" in plain.stdout
    assert "no matches" in cli(vault, "search", "nosuchwordanywhere").stdout


# ---------------------------------------------------------------------- files the index cannot take

def test_binary_huge_and_non_utf8_files_never_stop_the_rest(vault):
    concrete = vault.root / "memory/long_term/concrete"
    (concrete / "binary.md").write_bytes(b"limaword \x00\x01\x02 binary")
    (concrete / "huge.md").write_bytes(b"limaword " + b"filler words here " * (6 * 1024 * 1024 // 18))
    (concrete / "latin1.md").write_bytes("---\ntitle: Caf\xe9\n---\nLe caf\xe9 mikeword ici.\n".encode("latin-1"))
    (concrete / "broken.md").write_text("---\ntitle: [unclosed\n---\nThe novemberword in broken YAML.\n")
    (concrete / "unclosed.md").write_text("---\ntitle: x\nno closing fence, oscarword\n")
    write_note(vault, "memory/long_term/concrete/fine.md", "Fine", "A limaword in a good note.")
    index = SearchIndex(vault)
    assert [h.path for h in index.search("limaword")] == ["memory/long_term/concrete/fine.md"]
    assert [h.path for h in index.search("mikeword")] == ["memory/long_term/concrete/latin1.md"]
    assert [h.path for h in index.search("novemberword")] == ["memory/long_term/concrete/broken.md"]
    assert [h.path for h in index.search("oscarword")] == ["memory/long_term/concrete/unclosed.md"]
    assert set(index.skipped()) == {"memory/long_term/concrete/binary.md", "memory/long_term/concrete/huge.md"}
    assert cli_paths(vault, "mikeword") == ["memory/long_term/concrete/latin1.md"]
    assert cli_paths(vault, "limaword") == ["memory/long_term/concrete/fine.md"]
    # a note that turns binary leaves the index; one that is repaired comes back
    write_note(vault, "memory/long_term/concrete/fine.md", "Fine", "A limaword in a good note.")
    (concrete / "binary.md").write_text("Repaired papaword.", encoding="utf-8")
    (concrete / "latin1.md").write_bytes(b"\x00 now binary mikeword")
    assert [h.path for h in index.search("papaword")] == ["memory/long_term/concrete/binary.md"]
    assert index.search("mikeword") == []


def test_special_files_named_md_are_skipped(vault):
    """A FIFO, a dangling symlink, a folder called x.md or a link out of the vault never hang
    or stop indexing."""
    concrete = vault.root / "memory/long_term/concrete"
    os.mkfifo(concrete / "pipe.md")
    (concrete / "dangling.md").symlink_to(concrete / "nowhere.md")
    (concrete / "folder.md").mkdir()
    outside = vault.root.parent / "outside.md"
    outside.write_text("The quebecword outside.", encoding="utf-8")
    (concrete / "out.md").symlink_to(outside)
    write_note(vault, "memory/long_term/concrete/folder.md/inner.md", "Inner", "A quebecword inside.")
    index = SearchIndex(vault)
    assert [h.path for h in index.search("quebecword")] == ["memory/long_term/concrete/folder.md/inner.md"]
    index.sync([concrete / "pipe.md", concrete / "out.md"])
    assert [h.path for h in index.search("quebecword", sync=False)] == ["memory/long_term/concrete/folder.md/inner.md"]


def test_only_markdown_under_memory_and_system_is_indexed(vault):
    root = vault.root
    for rel in (".git/x.md", ".obsidian/x.md", ".braniac/x.md", "memory/.git/x.md",
                "memory/long_term/.obsidian/x.md", "memory/long_term/.trash/x.md",
                "memory/long_term/concrete/.hidden.md", "logs/x.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("The romeoword must not be found.", encoding="utf-8")
    for rel in ("memory/long_term/concrete/x.txt", "memory/long_term/concrete/x.md.bak",
                "memory/long_term/concrete/x.markdown", "memory/long_term/concrete/.x.md.1234.braniac-tmp"):
        (root / rel).write_text("The romeoword must not be found.", encoding="utf-8")
    index = SearchIndex(vault)
    assert index.search("romeoword") == []
    assert all(rel.startswith(("memory/", "system/")) and rel.endswith(".md") and "/." not in rel
               for rel, _ in index.walk())
    assert cli_paths(vault, "romeoword") == []
    write_note(vault, "memory/long_term/concrete/x.md", "X", "The romeoword is found here.")
    assert cli_paths(vault, "romeoword") == ["memory/long_term/concrete/x.md"]


def test_identity_stm_and_index_files_are_searchable(vault):
    index = SearchIndex(vault)
    kinds = {h.kind for h in index.search("memory", limit=20)}
    assert {"index", "stm", "identity"} <= kinds
    vault.remember("the sierraword from a conversation")
    assert [h.kind for h in index.search("sierraword")] == ["stm"]


# ---------------------------------------------------------------------- ranking

def _twins(vault: Vault, folder: str = "memory/long_term/concrete/twins", word: str = "heronword") -> tuple[str, str]:
    """Two notes with the very same title, tags and body: only their surroundings differ."""
    x, y = f"{folder}/x.md", f"{folder}/y.md"
    for rel in (x, y):
        write_note(vault, rel, "Twin note", f"Notes about the {word} and its travels.", tags=["bird"])
    return x, y


def _paths(vault: Vault, query: str) -> list[str]:
    return [h.path for h in SearchIndex(vault).search(query)]


def test_title_and_tags_rank_above_body(vault):
    write_note(vault, "memory/long_term/concrete/a.md", "Penguinword habits", "General text about animals and their ways.")
    write_note(vault, "memory/long_term/concrete/b.md", "Animal notes", "General text about penguinword habits, penguinword.")
    write_note(vault, "memory/long_term/concrete/c.md", "Bird notes", "General text about animals and their ways.",
        tags=["penguinword"])
    order = _paths(vault, "penguinword")
    assert order.index("memory/long_term/concrete/b.md") == 2, order


def test_more_inbound_links_rank_higher(vault):
    x, y = _twins(vault)
    assert len(_paths(vault, "heronword")) == 2
    linker = vault.root / "memory/long_term/concrete/other/linker.md"
    linker.parent.mkdir(parents=True)
    x_uuid = notes.read(vault.root / x).uuid
    y_uuid = notes.read(vault.root / y).uuid
    link_x = make_link("X", linker, vault.root / x, x_uuid)
    write_note(vault, "memory/long_term/concrete/other/linker.md", "Linker", f"See {link_x}.")
    assert _paths(vault, "heronword") == [x, y]
    # two different notes linking y beat one note linking x many times
    for n in range(2):
        src = vault.root / f"memory/long_term/concrete/other/y{n}.md"
        write_note(vault, src.relative_to(vault.root).as_posix(), "Y linker",
            f"See {make_link('Y', src, vault.root / y, y_uuid)}.")
    write_note(vault, "memory/long_term/concrete/other/linker.md", "Linker", "See " + " ".join([link_x] * 5))
    assert _paths(vault, "heronword") == [y, x]


def test_a_uuid_link_with_a_stale_path_still_counts(vault):
    x, y = _twins(vault)
    x_uuid = notes.read(vault.root / x).uuid
    write_note(vault, "memory/long_term/concrete/l.md", "Linker",
        f'See [X](twins/old-name.md "uuid:{x_uuid}") and [X again](twins/older.md "uuid:{x_uuid}").')
    assert _paths(vault, "heronword") == [x, y]


def _log_reads(vault: Vault, rel: str, count: int, log: str = "access.log") -> None:
    with open(vault.root / "logs" / log, "a", encoding="utf-8") as handle:
        for _ in range(count):
            handle.write(f"2025-09-16T15:30:00Z | READ | {vault.root / rel}\n")


def test_more_reads_rank_higher_including_rotated_logs(vault):
    x, y = _twins(vault)
    kept = SearchIndex(vault)
    _log_reads(vault, y, 3)
    assert _paths(vault, "heronword") == [y, x]
    _log_reads(vault, x, 12, "access.log.1")     # an older, rotated log counts too
    assert _paths(vault, "heronword") == [x, y]
    assert [h.path for h in kept.search("heronword")] == [x, y]
    with open(vault.root / "logs/access.log", "a", encoding="utf-8") as handle:
        handle.write(f"2025-09-16T15:30:00Z | WRITE | {vault.root / y}\n" * 30)   # not reads
        handle.write("garbage line\n")
    assert [h.path for h in kept.search("heronword")] == [x, y]
    _log_reads(vault, y, 30)
    assert [h.path for h in kept.search("heronword")] == [y, x]


def test_a_moved_note_keeps_its_reads(vault):
    """Organization writes `TS | MOVE | old -> new`: reads logged under the old path follow
    the note, through a chain of moves, also when the move is in a rotated log."""
    from braniac.vault import reads
    x, y = _twins(vault)
    _log_reads(vault, y, 6, "access.log.1")
    assert _paths(vault, "heronword") == [y, x]
    moved = "memory/long_term/concrete/elsewhere/y.md"
    (vault.root / moved).parent.mkdir(parents=True)
    os.replace(vault.root / y, vault.root / moved)
    assert _paths(vault, "heronword") == [x, moved]          # the reads stayed with the old path
    with open(vault.root / "logs/access.log", "a", encoding="utf-8") as handle:
        handle.write(f"2025-09-17T10:00:00Z | MOVE | {vault.root / y} -> {vault.root / moved}\n")
    assert _paths(vault, "heronword") == [moved, x]
    again = "memory/long_term/concrete/y.md"
    os.replace(vault.root / moved, vault.root / again)
    with open(vault.root / "logs/access.log", "a", encoding="utf-8") as handle:
        # the same second as the first move (one organize run): the order written is the order applied
        handle.write(f"2025-09-17T10:00:00Z | MOVE | {vault.root / moved} -> {vault.root / again}\n")
    assert _paths(vault, "heronword") == [again, x]
    counts = reads.read_counts(vault.root / "logs", vault.state_dir / "reads.json")
    assert counts.get(again) == 6 and y not in counts and moved not in counts


def test_read_counts_kept_incrementally_equal_a_fresh_count(vault, tmp_path):
    """Counted a tail at a time in one process, saved for the next, or counted afresh: the same
    numbers; a garbled saved count is simply counted again."""
    from braniac.vault import reads
    logs, cache = vault.root / "logs", vault.state_dir / "reads.json"
    rng = random.Random(3)
    rels = [f"memory/long_term/concrete/n{i}.md" for i in range(30)]
    for _round in range(12):
        _log_reads(vault, rng.choice(rels), rng.randint(1, 400))
        kept = reads.read_counts(logs, cache)
    reads._memo.clear()
    assert reads.read_counts(logs, cache) == kept            # from the saved count + the tail
    fresh_cache = tmp_path / "fresh.json"
    assert reads.read_counts(logs, fresh_cache) == kept      # from nothing
    for garbage in ("{not json", '{"v": 4, "per_file": {"access.log": {"stamp": "x"}}}', "[]"):
        reads._memo.clear()
        cache.write_text(garbage, encoding="utf-8")
        assert reads.read_counts(logs, cache) == kept
    assert sum(kept.values()) == sum(1 for line in (logs / "access.log").read_text().splitlines()
                                     if " | READ | " in line)


def test_read_counts_tell_a_rewritten_log_from_a_grown_one(vault):
    """A log replaced by another on the same inode (a rotation that reuses it) and at least
    as long is counted afresh, in this process and in the next one (from reads.json)."""
    from braniac.vault import reads
    logs, cache = vault.root / "logs", vault.state_dir / "reads.json"
    log = logs / "access.log"
    a, b = "memory/long_term/concrete/a.md", "memory/long_term/concrete/b.md"
    log.write_text(f"2026-01-01T00:00:00Z | READ | {vault.root / a}\n" * 10, encoding="utf-8")
    assert reads.read_counts(logs, cache) == {a: 10}
    inode = log.stat().st_ino
    with open(log, "r+", encoding="utf-8") as handle:      # same inode, new content, longer
        handle.write(f"2026-02-01T00:00:00Z | READ | {vault.root / b}\n" * 25)
    assert log.stat().st_ino == inode
    assert reads.read_counts(logs, cache) == {b: 25}
    reads._memo.clear()
    with open(log, "r+", encoding="utf-8") as handle:
        handle.write(f"2026-03-01T00:00:00Z | READ | {vault.root / a}\n" * 30)
    assert reads.read_counts(logs, cache) == {a: 30}  # the saved count was for another file


def test_moves_apply_in_time_order_with_fractions_of_a_second(vault):
    from braniac.vault import reads
    logs = vault.root / "logs"
    x, m, z = (f"memory/long_term/concrete/{n}.md" for n in ("x", "m", "z"))
    (logs / "access.log").write_text(
        f"2026-01-01T00:00:00Z | READ | {vault.root / x}\n" * 3
        + f"2026-01-01T10:00:00Z | MOVE | {vault.root / x} -> {vault.root / m}\n"
        + f"2026-01-01T10:00:00.500Z | MOVE | {vault.root / m} -> {vault.root / z}\n", encoding="utf-8")
    assert reads.read_counts(logs, vault.state_dir / "reads.json") == {z: 3}


def test_reads_count_in_a_vault_whose_own_path_contains_memory(tmp_path):
    """The vault's own folder may be called `memory` (~/memory): its notes' reads still count."""
    vault, _ = Vault.init(tmp_path / "memory")
    x, y = _twins(vault)
    _log_reads(vault, y, 5)
    assert _paths(vault, "heronword") == [y, x]


def test_shallower_notes_rank_higher(vault):
    deep = "memory/long_term/concrete/a/b/c/deep.md"
    shallow = "memory/long_term/concrete/shallow.md"
    for rel in (deep, shallow):
        write_note(vault, rel, "Twin note", "Notes about the heronword and its travels.")
    assert _paths(vault, "heronword") == [shallow, deep]


def test_archived_notes_only_on_request(vault):
    write_note(vault, "memory/long_term/archive/old.md", "Old", "The tangoword of old.")
    write_note(vault, "memory/long_term/concrete/new.md", "New", "The tangoword of now.")
    assert cli_paths(vault, "tangoword") == ["memory/long_term/concrete/new.md"]
    assert sorted(cli_paths(vault, "tangoword", "--archived")) == ["memory/long_term/archive/old.md",
                                                                    "memory/long_term/concrete/new.md"]
