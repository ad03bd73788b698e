"""The search index: a Whoosh index under `.braniac/index/` that mirrors the vault's Markdown.

The files are the truth; the index is derived and can be deleted at any time. Before every
read, `sync()` compares each file's mtime and size (then its content hash) with what was
indexed and applies only the differences, so an edit made by anyone (a braniac worker, a
person in Obsidian, `git pull`) is in the next result. A missing or corrupt index is rebuilt
with a one-line notice. Writers are serialized by the `index` file lock; a rebuild is built
beside the live index and swapped in, so readers never see a half-built one.

What the index holds for each file lives in a file list (`braniac-files.json`, plus a journal
of the records each sync changed, so one edit appends a line instead of rewriting the list).
A file modified in the last few seconds is re-read by every sync until its mtime can be
trusted, so a same-size edit within the file system's timestamp granularity is never missed.
"""
from __future__ import annotations

import bisect
import hashlib
import json
import os
import re
import secrets
import shutil
import stat as stat_mod
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from ..vault import notes
from ..vault.layout import MEMORY_ROOTS, READ_COUNTS, SEARCH_INDEX_DIR, is_memory_name
from ..vault.reads import read_counts
from . import ranking, scoring
from ..infra.errors import BraniacError, IndexError_, LockBusy, NoteError
from ..infra.fsio import MAX_TEXT_BYTES, inside, locked
from ..vault.links import find_links

if TYPE_CHECKING:
    from ..vault.store import VaultStore

MANIFEST = "braniac-files.json"     # the file list: one record per indexed file
JOURNAL = "braniac-files.jsonl"     # records changed since, appended by each sync
COMPACT_AT = 2000                   # journal lines before the file list is rewritten whole
# Bump when the schema, the storage or the file list changes. 2: plain (non-compound) segment
# files, uuid-first link records, an index id in the file list.
FORMAT = 2
# Segments. Every segment costs each query term a lookup (a 10k-note search: 2.3 ms in one
# segment, 3.2 ms in six), so small ones are folded together; but Whoosh merges slowly (15 ms
# per document for small segments, 17 s to merge one more into a 10k-note segment), so a fold
# re-indexes the few documents from their files (2.5 ms each) and never touches big segments.
FOLD_WIDTH = 4          # a size class (documents < 4, < 16, < 64, …) with this many segments is folded
FOLD_DOCS = 256         # … during a commit, if it holds at most this many documents (≈ 0.6 s, rarely)
IDLE_FOLD_DOCS = 2000   # when quiet (`braniac watch`): every segment but the largest, up to this many
# A file modified this recently may be changed again within the file system's timestamp
# granularity (FAT 2 s, HFS+ 1 s, ext4 a few ms) without its mtime or size moving. Such a
# file's mtime is not trusted: it is re-read and hashed by every sync until it is older.
RACY_NS = 3_000_000_000
UNTRUSTED_MTIME = -1


def _whoosh():
    """Whoosh modules, imported on first use (they cost ~0.2 s; `remember` never needs them)."""
    from whoosh import fields, highlight, index, qparser, query, writing
    from whoosh.analysis import StemmingAnalyzer
    return fields, highlight, index, qparser, query, writing, StemmingAnalyzer


def schema():
    fields, *_rest, StemmingAnalyzer = _whoosh()
    return fields.Schema(
        path=fields.ID(stored=True, unique=True),
        uuid=fields.ID(stored=True),
        title=fields.TEXT(stored=True, analyzer=StemmingAnalyzer()),
        tags=fields.KEYWORD(stored=True, commas=True, lowercase=True, scorable=True),
        kind=fields.ID(stored=True),
        created=fields.STORED(),
        updated=fields.STORED(),
        depth=fields.STORED(),
        body=fields.TEXT(analyzer=StemmingAnalyzer()),
    )


@dataclass
class Hit:
    title: str
    path: str           # vault-relative
    uuid: str
    kind: str
    score: float
    excerpt: str

    def as_dict(self) -> dict:
        return {"title": self.title, "path": self.path, "uuid": self.uuid, "kind": self.kind,
                "score": round(self.score, 4), "excerpt": self.excerpt}


@dataclass
class SyncReport:
    added: int = 0
    updated: int = 0
    deleted: int = 0
    rebuilt: bool = False

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.deleted


def _stderr_notice(message: str) -> None:
    print(f"braniac: {message}", file=sys.stderr)


def kind_of(rel: str) -> str:
    parts = rel.split("/")
    if rel == "memory/short_term.md":
        return "stm"
    if parts[0] == "system":
        return "identity"
    if parts[-1] == "_index.md":
        return "index"
    if parts[:2] == ["memory", "long_term"] and len(parts) > 3:
        return parts[2] if parts[2] in ("concrete", "events", "skills", "archive") else "other"
    return "other"


def indexable(rel: str) -> bool:
    """Does this vault-relative path belong in the index (under system/ or memory/, and in no
    hidden or tool folder)? The same rule as `walk`, for paths handed to `sync(paths)`."""
    parts = rel.split("/")
    return (len(parts) > 1 and parts[0] in MEMORY_ROOTS
            and all(is_memory_name(p) for p in parts))


def _recorded_mtime(st: os.stat_result) -> int:
    """The mtime to remember for a file just read: its own, unless it is too recent to trust."""
    return UNTRUSTED_MTIME if abs(time.time_ns() - st.st_mtime_ns) < RACY_NS else st.st_mtime_ns


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class SearchIndex:
    """One vault's index. Keep one open in long-lived processes (REPL, watch): its searcher
    is reused while the index is unchanged, which is what makes warm searches fast."""

    def __init__(self, vault: "VaultStore", *, notice: Callable[[str], None] = _stderr_notice,
                 lock_timeout: float = 120.0):
        self.vault = vault
        self.dir = vault.state_dir / SEARCH_INDEX_DIR
        self.notice = notice
        self.lock_timeout = lock_timeout
        self._root = str(vault.root)
        self._ix = None
        self._ix_id: str | None = None          # the index id self._ix was opened for
        self._searcher = None
        self._searcher_gen = None
        self._want_excerpts = True              # search() sets it per call
        self._list = _FileList(self.dir)
        self._inbound: dict[str, int] | None = None
        self._fields: _StoredFields | None = None
        self._kinds: tuple[object, dict[str, frozenset[int]]] = (None, {})   # (searcher, kind -> docnums)
        self._ceiling_of: tuple | None = None

    # ------------------------------------------------------------------ opening
    def _lock(self, timeout: float | None = None):
        return locked(self.vault.lock_path("index"), timeout=self.lock_timeout if timeout is None else timeout,
                      what="search index")

    def _open(self):
        """The Whoosh index, reopened when another process swapped in a rebuilt one (its id in
        the file list changed): a rebuilt index may reuse generation numbers, so Whoosh alone
        would not notice and would keep reading the old, deleted files."""
        self._load_files()
        if self._ix is None or self._ix_id != self._list.id:
            self._close_index()
            _f, _h, index, *_ = _whoosh()
            self._ix, self._ix_id = index.open_dir(str(self.dir)), self._list.id
        return self._ix

    def _exists(self) -> bool:
        # Cheap on purpose (every command asks): a file list and a table of contents. A damaged
        # index that passes this is caught when it is opened.
        try:
            names = os.listdir(self.dir)
        except OSError:
            return False
        return MANIFEST in names and any(n.endswith(".toc") for n in names)

    def _close_index(self) -> None:
        if self._searcher is not None:
            try:
                self._searcher.close()
            except Exception:
                pass  # its files may be gone already
        self._searcher = self._ix = self._ix_id = self._searcher_gen = None
        self._fields, self._kinds = None, (None, {})

    def close(self) -> None:
        self._close_index()
        self._list = _FileList(self.dir)
        self._inbound = None

    # ------------------------------------------------------------------ the files side
    def _load_files(self) -> dict[str, dict]:
        """vault-relative path -> record (h: hash, m: mtime, s: size, u: uuid, out: links,
        skip: why not indexed) for every file the index has seen."""
        return self._list.load()

    def walk(self) -> Iterator[tuple[str, os.stat_result]]:
        """(vault-relative path, stat) of every Markdown file that belongs in the index."""
        for top in MEMORY_ROOTS:
            yield from self._walk(os.path.join(self._root, top))

    def _walk(self, start: str) -> Iterator[tuple[str, os.stat_result]]:
        # Plain strings and os.scandir: pathlib objects made this walk 5x slower at 10k notes.
        root, cut = self.vault.root, len(self._root) + 1
        stack = [start]
        while stack:
            folder = stack.pop()
            try:
                with os.scandir(folder) as scan:
                    entries = list(scan)
            except OSError:
                continue
            for entry in entries:
                name = entry.name
                if not is_memory_name(name):
                    continue
                try:
                    if entry.is_symlink():
                        if entry.is_dir() or not inside(root, Path(entry.path)):
                            continue  # a linked folder is indexed where it really is; never leave the vault
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif name.endswith(".md") and entry.is_file():  # not a FIFO or socket: reading one would hang
                        rel = entry.path[cut:]
                        yield (rel if os.sep == "/" else rel.replace(os.sep, "/")), entry.stat()
                except OSError:
                    continue  # vanished meanwhile

    def _stat_paths(self, rels: Iterable[str]) -> Iterator[tuple[str, os.stat_result]]:
        """Like `walk`, for given paths; a folder stands for every file under it."""
        for rel in rels:
            if not indexable(rel):
                continue
            path = os.path.join(self._root, rel)
            try:
                st = os.stat(path)
                # Through a linked folder the same file would be indexed twice: take only real paths
                # (the file itself may be a link inside the vault, as `walk` allows).
                if os.path.realpath(os.path.dirname(path)) != os.path.dirname(os.path.join(self._root, rel)):
                    continue
            except OSError:
                continue
            if stat_mod.S_ISDIR(st.st_mode):
                if not os.path.islink(path):
                    yield from self._walk(path)
            elif stat_mod.S_ISREG(st.st_mode) and rel.endswith(".md"):
                if os.path.islink(path) and not inside(self.vault.root, Path(path)):
                    continue
                yield rel, st

    def _read(self, rel: str, st: os.stat_result) -> bytes | None:
        """The file's bytes; None when it is too large to index (never read whole into memory)."""
        if st.st_size > MAX_TEXT_BYTES:
            return None
        with open(os.path.join(self._root, rel), "rb") as handle:
            return handle.read(MAX_TEXT_BYTES + 1)

    def _document(self, rel: str, data: bytes | None, digest: str) -> tuple[dict | None, dict]:
        """(Whoosh fields, file-list record) for one file; fields is None for a skipped file."""
        record: dict = {"h": digest}
        if data is None or len(data) > MAX_TEXT_BYTES:
            record["skip"] = f"larger than {MAX_TEXT_BYTES // 1048576} MB"
            return None, record
        if b"\x00" in data:
            record["skip"] = "binary file"
            return None, record
        text = data.decode("utf-8", errors="replace")
        path = self.vault.root / rel
        try:
            note = notes.parse(text, path=path)
            meta, body = note.meta, note.body
        except NoteError:
            note, meta, body = None, {}, text  # broken frontmatter: still searchable by its words
        kind = kind_of(rel)
        title = (note.title if note else "") or Path(rel).stem
        if kind == "stm":
            title = "Short-term memory"
        elif kind == "index" and not meta.get("title"):
            title = f"{Path(rel).parent.name} (index)"
        tags = note.tags if note else []
        uuid = str(meta.get("uuid") or "")
        parts = rel.split("/")
        depth = max(len(parts) - 3, 0) if parts[:2] == ["memory", "long_term"] else 0
        out: list[str] = []
        prefix = self._root + os.sep
        for link in find_links(body):
            if link.is_external or not link.target:
                continue
            target = str(link.resolve(path))  # normalized, so a string prefix test is enough here
            rel_target = target[len(prefix):].replace(os.sep, "/") if target.startswith(prefix) else ""
            # The uuid comes first: braniac trusts it over a path that may be stale after a move.
            if link.uuid:
                out.append(f"uuid:{link.uuid} {rel_target}")
            elif rel_target:
                out.append(rel_target)
        record.update({"u": uuid, "out": list(dict.fromkeys(out))})
        doc = {
            "path": rel, "uuid": uuid, "title": title, "tags": ",".join(str(t) for t in tags),
            "kind": kind, "created": str(meta.get("created_at") or ""),
            "updated": str(meta.get("updated_at") or ""), "depth": depth, "body": body,
        }
        return doc, record

    def _diff(self, files: dict[str, dict], only: list[str] | None = None):
        """What changed on disk since the index last saw it: (to index, to delete, stat-only)."""
        candidates = self.walk() if only is None else self._stat_paths(only)
        seen, to_index, touched = set(), [], {}
        for rel, st in candidates:
            if rel in seen:
                continue  # given both a folder and a file inside it
            seen.add(rel)
            record = files.get(rel)
            if record is not None and record.get("m") == st.st_mtime_ns and record.get("s") == st.st_size:
                continue
            try:
                data = self._read(rel, st)
            except OSError:
                continue
            digest = _digest(data) if data is not None else f"size:{st.st_size}"
            mtime = _recorded_mtime(st)
            if record is not None and record.get("h") == digest:
                if record.get("m") != mtime or record.get("s") != st.st_size:
                    touched[rel] = (mtime, st.st_size)
                continue
            to_index.append((rel, st, data, digest))
        if only is None:
            scope: Iterable[str] = files.keys()
        else:
            # A folder (moved away, deleted, or new) stands for every indexed file under it.
            folders = tuple(r + "/" for r in only
                            if not r.endswith(".md") or os.path.isdir(os.path.join(self._root, r)))
            wanted = set(only)
            scope = ([r for r in files if r in wanted or r.startswith(folders)] if folders
                     else [r for r in only if r in files])
        to_delete = [rel for rel in scope if rel not in seen]
        return to_index, to_delete, touched

    # ------------------------------------------------------------------ keeping in step
    def sync(self, paths: Iterable[Path | str] | None = None) -> SyncReport:
        """Bring the index in step with the files (all of them, or just `paths`, which may be folders)."""
        only = None if paths is None else sorted({self._rel(p) for p in paths} - {None})
        for _attempt in range(3):
            try:
                return self._sync_once(only)
            except _Missing:
                reason, still = self._missing_reason, lambda: not self._exists()
            except _Corrupt as exc:
                reason, still = _damage_reason(exc), self._unusable
            except (BraniacError, KeyboardInterrupt):
                raise
            except Exception as exc:  # whoosh raises many kinds of errors on a damaged index
                if not _from_index(exc):
                    raise
                # Whoosh is only touched under the lock, where no other writer runs: damage.
                reason, still = _damage_reason(exc), None
            # Another process may be swapping in a rebuilt index this very moment: rebuild only
            # if the problem is still there once we hold the lock.
            report = self.rebuild(reason=reason, only_if=still)
            if report.rebuilt:
                return report
        raise IndexError_("the search index kept changing under braniac; run `braniac reindex`")

    def _missing_reason(self) -> str:
        return ("building the search index (first use)" if not self.dir.exists()
                else "search index was missing; rebuilding it")

    def _sync_once(self, only: list[str] | None) -> SyncReport:
        if not self._exists():
            raise _Missing()
        files = self._load_files()
        to_index, to_delete, touched = self._diff(files, only)
        if not (to_index or to_delete or touched):
            return SyncReport()
        with self._lock():
            if not self._exists():
                raise _Missing()
            files = self._load_files()  # another process may have synced meanwhile
            to_index, to_delete, touched = self._diff(files, only)
            return self._apply(files, to_index, to_delete, touched)

    def _unusable(self) -> bool:
        """Under the lock (no writer running): is the index really missing or damaged?"""
        self.close()
        if not self._exists():
            return True
        try:
            self.searcher().doc_count()
            return False
        except _Corrupt:
            return True
        except Exception as exc:
            if _from_index(exc):
                return True
            raise

    def _apply(self, files, to_index, to_delete, touched) -> SyncReport:
        report = SyncReport()
        changes: dict[str, dict | None] = {}
        for rel, (mtime, size) in touched.items():
            changes[rel] = {**files[rel], "m": mtime, "s": size}
        if to_index or to_delete:
            ix = self._open()
            writer = self._writer(ix)
            try:
                # Every path about to be (re)written is deleted first, known or not: a process
                # killed between commit and saving the file list leaves documents the list does
                # not know, which would otherwise be added twice. (The writer caches one searcher
                # for all these deletions.)
                for rel in [*to_delete, *(item[0] for item in to_index)]:
                    writer.delete_by_term("path", rel)
                for rel in to_delete:
                    changes[rel] = None
                    report.deleted += 1
                for rel, st, data, digest in to_index:
                    doc, record = self._document(rel, data, digest)
                    record.update(m=_recorded_mtime(st), s=st.st_size)
                    if rel in files:
                        report.updated += 1
                    else:
                        report.added += 1
                    if doc is not None:
                        writer.add_document(**doc)
                    changes[rel] = record
                self._commit(writer, changes, written={*to_delete, *(item[0] for item in to_index)})
            except BaseException:
                writer.cancel()
                raise
        self._list.append(changes)  # after the commit: a crash in between only costs re-indexing
        return report

    def _writer(self, ix):
        from whoosh.index import LockError
        for attempt in range(20):
            try:
                # Plain segment files, not one compound file: Whoosh reads a compound segment by
                # copying it into memory on every reader open (14 ms at 10k notes, growing with
                # the index); plain files open in under a millisecond.
                return ix.writer(limitmb=128, compound=False)
            except LockError:
                time.sleep(0.05 * (attempt + 1))  # another writer outside braniac's lock, e.g. a dying process
        raise LockBusy("the search index stayed locked; run `braniac reindex`")

    def _commit(self, writer, changes: dict[str, dict | None], written: set[str] = frozenset(),
                fold: list | None = None) -> None:
        """Commit, folding small segments (see FOLD_WIDTH) into the new one and dropping emptied
        ones (the previous short_term.md's, after each turn), so segments never pile up.
        `written`: the paths this commit already (re)indexes or deletes."""
        segments = list(getattr(writer, "segments", ()))
        if fold is None:
            fold = _segments_to_fold(segments, FOLD_DOCS)
        folded = {segment.segment_id() for segment in fold}
        if fold:
            self._reindex_segments(writer, fold, changes, written)
        writer.commit(mergetype=lambda _writer, current: [
            segment for segment in current if segment.segment_id() not in folded and segment.doc_count() > 0])

    def _reindex_segments(self, writer, segments: list, changes: dict[str, dict | None],
                          written: set[str]) -> None:
        """Add the live documents of `segments` to `writer` again, from their files (the body is
        not stored in the index), so the commit can drop those segments. Every one of them, but
        those this commit writes anyway: a file whose mtime alone changed is in `changes` too,
        and skipping it would drop it from the index for good."""
        from whoosh.reading import SegmentReader

        for segment in segments:
            reader = SegmentReader(writer.storage, writer.schema, segment)
            try:
                paths = [fields["path"] for _doc, fields in reader.iter_docs()]
            finally:
                reader.close()
            for rel in paths:
                if rel in written:
                    continue
                try:
                    st = os.stat(os.path.join(self._root, rel))
                    data = self._read(rel, st)
                except OSError:
                    # Gone meanwhile (or unreadable right now): forgotten, as the next walk would
                    # find; a file that is still there is then indexed again as a new one.
                    changes[rel] = None
                    continue
                doc, record = self._document(rel, data, _digest(data) if data is not None else f"size:{st.st_size}")
                record.update(m=_recorded_mtime(st), s=st.st_size)
                if doc is not None:
                    writer.add_document(**doc)
                changes[rel] = record

    def fold_small_segments(self) -> None:
        """Idle time (`braniac watch` when the vault is quiet): fold every segment but the
        largest into one, up to IDLE_FOLD_DOCS documents, and fold the file list's journal
        into its base. The largest is left alone: merging into it is a full rewrite."""
        with self._lock():
            ix = self._open()
            segments = ix._segments()
            live = sorted((s for s in segments if s.doc_count() > 0), key=lambda s: s.doc_count())
            fold = []
            for segment in live[:-1]:
                if sum(s.doc_count() for s in fold) + segment.doc_count() > IDLE_FOLD_DOCS:
                    break
                fold.append(segment)
            if len(fold) > 1 or len(live) < len(segments):
                changes: dict[str, dict | None] = {}
                writer = self._writer(ix)
                try:
                    self._commit(writer, changes, fold=fold if len(fold) > 1 else [])
                except BaseException:
                    writer.cancel()
                    raise
                self._list.append(changes)
            self._list.compact()

    def optimize(self) -> None:
        """Merge all segments into one (after `braniac reindex`, which writes one segment
        anyway) and fold the journal into the file list. Whoosh's merge is slow on a big
        index (17 s at 10k notes): idle processes call fold_small_segments() instead."""
        with self._lock():
            ix = self._open()
            if len(ix._segments()) > 1:
                writer = self._writer(ix)
                writer.commit(optimize=True)
            self._list.compact()

    def rebuild(self, *, reason: str | Callable[[], str] | None = None,
                progress: Callable[[int, int], None] | None = None,
                only_if: Callable[[], bool] | None = None) -> SyncReport:
        """Index every file from scratch, beside the live index, then swap it in. With
        `only_if`, first check under the lock that a rebuild is still needed."""
        _f, _h, index, *_ = _whoosh()
        state = self.vault.state_dir
        with self._lock():
            if only_if is not None and not only_if():
                return SyncReport()
            if reason:
                self.notice(reason() if callable(reason) else reason)
            self.close()
            for stale in [*state.glob("index.new-*"), *state.glob("index.old-*")]:
                shutil.rmtree(stale, ignore_errors=True)  # left by a killed rebuild (we hold the lock)
            staging = state / f"index.new-{os.getpid()}"
            staging.mkdir(parents=True)
            try:
                ix = index.create_in(str(staging), schema())
                writer = ix.writer(limitmb=256, compound=False)
                files: dict[str, dict] = {}
                entries = list(self.walk())
                try:
                    for n, (rel, st) in enumerate(entries, start=1):
                        try:
                            data = self._read(rel, st)
                        except OSError:
                            continue
                        doc, record = self._document(rel, data, _digest(data) if data is not None else f"size:{st.st_size}")
                        record.update(m=_recorded_mtime(st), s=st.st_size)
                        if doc is not None:
                            writer.add_document(**doc)
                        files[rel] = record
                        if progress:
                            progress(n, len(entries))
                except BaseException:
                    writer.cancel()
                    raise
                writer.commit()
                ix.close()
                _FileList(staging).write(files, secrets.token_hex(8))
                old = state / f"index.old-{os.getpid()}"
                if self.dir.exists():
                    os.replace(self.dir, old)
                os.replace(staging, self.dir)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
            shutil.rmtree(old, ignore_errors=True)
            self._load_files()
        return SyncReport(added=len(files), rebuilt=True)

    # ------------------------------------------------------------------ searching
    def searcher(self):
        """The open Whoosh searcher, replaced when the index changed on disk."""
        ix = self._open()
        if self._searcher is None or ix.latest_generation() != self._searcher_gen:
            # A fresh reader, not Whoosh's `Searcher.refresh()`: refresh reuses readers by segment
            # id, so it keeps serving documents an update deleted from an existing segment, and
            # (whoosh-reloaded 2.7.5) re-adds segments a merge removed, duplicating every hit.
            # Plain segment files make opening cheap (well under 1 ms at 10k notes).
            old, self._searcher = self._searcher, ix.searcher()
            self._searcher_gen = self._searcher.reader().generation()
            if old is not None:
                try:
                    old.close()
                except Exception:
                    pass
        return self._searcher

    def search(self, text: str, *, limit: int = 10, kind: str | None = None, sync: bool = True,
               exclude_kinds: Iterable[str] = ("archive",), excerpts: bool = True) -> list[Hit]:
        """Ranked hits. `excerpts=False` skips reading each hit's file for a highlighted
        excerpt (retrieval cuts its own passages)."""
        if sync:
            self.sync()
        self._want_excerpts = excerpts
        exclude = tuple(exclude_kinds)
        error: BaseException | None = None
        for attempt in range(3):
            hits, error = self._attempt(text, limit, kind, exclude)
            if error is None:
                return hits
            self.close()
            if attempt == 0:
                time.sleep(0.05)  # a concurrent rebuild or merge pulled files from under us: reopen
                continue
            # Twice in a row: try once more holding the lock, when no writer can interfere; a
            # failure then is damage, and the index is rebuilt.
            with self._lock():
                hits, error = self._attempt(text, limit, kind, exclude)
                if error is None:
                    return hits
                self.close()
                self.rebuild(reason=self._missing_reason if not self._exists() else _damage_reason(error))
        raise IndexError_(f"the search index could not be read ({type(error).__name__}: {error}); "
                          "run `braniac reindex`")

    def _attempt(self, text: str, limit: int, kind: str | None, exclude: tuple[str, ...]):
        """(hits, None), or (None, the error) when reading the index failed; other errors propagate."""
        try:
            return self._search(text, limit, kind, exclude), None
        except (BraniacError, KeyboardInterrupt):
            raise
        except Exception as exc:
            if not (isinstance(exc, _Corrupt) or _from_index(exc)):
                raise
            return None, exc

    def _search(self, text: str, limit: int, kind: str | None, exclude: tuple[str, ...]) -> list[Hit]:
        q = parse_query(text)
        if q is None:
            return []
        searcher = self.searcher()
        files = self._load_files()
        inbound = self._inbound_counts(files)
        reads = read_counts(self.vault.root / "logs", self.vault.state_dir / READ_COUNTS)
        excluded = [k for k in exclude if not kind and searcher.doc_frequency("kind", k)]

        def importance(fields: dict) -> float:
            rel = fields["path"]
            return ranking.importance(ranking.Signals(depth=fields.get("depth") or 0, inbound=inbound.get(rel, 0),
                                                      reads=reads.get(rel, 0)))

        terms = scoring.plain_terms(q, searcher.schema)
        if terms is not None:
            ranked = scoring.best(
                scoring.bm25f(searcher, terms), limit, lambda doc: importance(self._stored(searcher, doc)),
                self._ceiling(inbound, reads),
                allowed=self._kind_docs(searcher, kind) if kind else None,
                excluded=set().union(*(self._kind_docs(searcher, k) for k in excluded)))
            scored = [(score, self._stored(searcher, doc)) for score, doc in ranked]
        else:
            scored = self._collector_search(searcher, q, limit, kind, excluded, importance)
        words = _query_words(q)
        return [Hit(title=fields["title"], path=fields["path"], uuid=fields.get("uuid") or "",
                    kind=fields["kind"], score=score,
                    excerpt=self._excerpt(fields["path"], words) if self._want_excerpts else "")
                for score, fields in scored[:max(limit, 0)]]

    def _collector_search(self, searcher, q, limit: int, kind: str | None, excluded: list[str],
                          importance: Callable[[dict], float]) -> list[tuple[float, dict]]:
        """Phrases, AND, NOT: Whoosh's collector finds BM25F's best limit x RERANK_POOL hits,
        and importance re-ranks those."""
        query = _whoosh()[4]
        filter_q = query.Term("kind", kind) if kind else None
        # no mask when nothing is excluded: checking it costs every matching note
        mask = query.Or([query.Term("kind", k) for k in excluded]) if excluded else None
        results = searcher.search(q, limit=max(limit, 1) * ranking.RERANK_POOL, filter=filter_q, mask=mask)
        scored = [(hit.score * importance(hit.fields()), hit.fields()) for hit in results]
        scored.sort(key=lambda item: -item[0])
        return scored

    def _stored(self, searcher, doc: int) -> dict:
        """A document's stored fields (remembered per segment, see _StoredFields)."""
        if self._fields is None or self._fields.searcher is not searcher:
            self._fields = _StoredFields(searcher, self._fields)
        return self._fields.get(doc)

    def _kind_docs(self, searcher, kind: str) -> frozenset[int]:
        """Document numbers of one kind, remembered while the searcher stays open (they change
        with it)."""
        if self._kinds[0] is not searcher:
            self._kinds = (searcher, {})
        memo = self._kinds[1]
        if kind not in memo:
            query = _whoosh()[4]
            memo[kind] = frozenset(searcher.docs_for_query(query.Term("kind", kind)))
        return memo[kind]

    def _ceiling(self, inbound: dict[str, int], reads: dict[str, int]) -> float:
        # read_counts and _inbound_counts hand back the same dicts until something changed
        cached = self._ceiling_of
        if cached is None or cached[0] is not inbound or cached[1] is not reads:
            cached = self._ceiling_of = (inbound, reads, ranking.ceiling(inbound, reads))
        return cached[2]

    def _excerpt(self, rel: str, words: set[str], maxchars: int = 240) -> str:
        """Up to two passages of the note's body around the query's words, in **bold**.

        A regular expression finds candidate words by the start of each query stem, and only
        those are stemmed to confirm them: Whoosh's highlighter analyzed every word of every
        hit's body, a fifth of the time of a search."""
        try:
            with open(os.path.join(self._root, rel), "rb") as handle:
                text = handle.read(MAX_TEXT_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return ""
        body = notes.body_of(text)
        found = _find_words(body, words)
        if not found:
            plain = " ".join(line for line in body.splitlines() if line.strip() and not line.startswith("#"))
            return " ".join(plain[:maxchars].split())
        fragments, end = [], -1
        for start, stop in found:
            if start < end:
                continue
            lo = body.rfind(" ", 0, max(start - 60, 0)) + 1 if start > 60 else 0
            lo = max(lo, end)  # never repeat the end of the previous passage
            hi = body.find(" ", lo + maxchars)
            hi = len(body) if hi < 0 else hi
            marked, at = [], lo
            for s, e in found:
                if lo <= s and e <= hi:
                    marked += [body[at:s], "**", body[s:e], "**"]
                    at = e
            marked.append(body[at:hi])
            fragments.append(" ".join("".join(marked).split()))
            end = hi
            if len(fragments) == 2:
                break
        return " … ".join(fragments)

    def _inbound_counts(self, files: dict[str, dict]) -> dict[str, int]:
        """How many other memory files link to each file (a file linking five times counts once)."""
        if self._inbound is None or self._list.links_changed:
            self._list.links_changed = False
            by_uuid = {rec.get("u"): rel for rel, rec in files.items() if rec.get("u")}
            counts: dict[str, int] = {}
            for rel, rec in files.items():
                targets = set()
                for target in rec.get("out", ()):
                    if target.startswith("uuid:"):
                        uuid, _, path = target[5:].partition(" ")
                        target = by_uuid.get(uuid) or path
                    if target and target != rel:
                        targets.add(target)
                for target in targets:
                    counts[target] = counts.get(target, 0) + 1
            self._inbound = counts
        return self._inbound

    # ------------------------------------------------------------------ helpers
    def _rel(self, path: Path | str) -> str | None:
        path = Path(path)
        if not path.is_absolute():
            path = self.vault.root / path
        try:
            return Path(os.path.normpath(path)).relative_to(self.vault.root).as_posix()
        except ValueError:
            return None

    def skipped(self) -> dict[str, str]:
        """Files the index could not take (binary, huge), with the reason."""
        try:
            return {rel: rec["skip"] for rel, rec in self._load_files().items() if rec.get("skip")}
        except _Corrupt:
            return {}

    def doc_count(self) -> int:
        return self.searcher().doc_count()


class _StoredFields:
    """Stored fields by document number, remembered per segment. A segment never changes once
    written, so what was read survives the fresh searcher every commit brings (the chat gets
    one each turn, when reflection's short-term memory is re-indexed); a merge retires it."""

    def __init__(self, searcher, previous: "_StoredFields | None" = None):
        self.searcher = searcher
        before = previous.by_segment if previous is not None else {}
        self.by_segment: dict[str, dict[int, dict]] = {}
        self.bases: list[int] = []
        self.leaves: list[tuple[object, dict[int, dict]]] = []
        for leaf, base in searcher.reader().leaf_readers():
            segment = leaf.segment() if hasattr(leaf, "segment") else None
            key = segment.segment_id() if segment is not None else None
            memo = before.get(key, {}) if key else {}
            if key:
                self.by_segment[key] = memo
            self.bases.append(base)
            self.leaves.append((leaf, memo))

    def get(self, doc: int) -> dict:
        at = bisect.bisect_right(self.bases, doc) - 1
        leaf, memo = self.leaves[at]
        local = doc - self.bases[at]
        fields = memo.get(local)
        if fields is None:
            fields = memo[local] = leaf.stored_fields(local)
        return fields


class _Corrupt(Exception):
    pass


class _Missing(Exception):
    pass


class _FileList:
    """The index's file list: a JSON base written whole only by a rebuild or a compaction, plus
    a journal of changed records that each sync appends to under the index lock. Rewriting the
    whole list for one edit cost 22 ms at 10k notes (and 5x that at 50k); an append costs
    microseconds, and a reader replays only the journal lines it has not seen yet."""

    def __init__(self, directory: Path):
        self.dir = directory
        self.files: dict[str, dict] | None = None
        self.id: str | None = None              # changes with every rebuild
        self.links_changed = True               # a record's uuid or links changed since last asked
        self._base_stamp: tuple | None = None
        self._journal_ino: int | None = None
        self._offset = 0                        # journal bytes already applied
        self._lines = 0

    def load(self) -> dict[str, dict]:
        for _attempt in range(3):
            try:
                st = os.stat(self.dir / MANIFEST)
            except OSError:
                raise _Corrupt("file list is missing or unreadable") from None
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
            journal = self._journal_stat()
            compacted = (journal is None and self._journal_ino is not None) or (
                journal is not None and self._journal_ino is not None
                and (journal.st_ino != self._journal_ino or journal.st_size < self._offset))
            if self.files is None or stamp != self._base_stamp or compacted:
                self._read_base(stamp)
            try:
                self._replay()
                return self.files
            except _Reload:
                self.files = None  # compacted meanwhile: read both again
        raise _Corrupt("file list kept changing while being read")

    def _journal_stat(self) -> os.stat_result | None:
        try:
            return os.stat(self.dir / JOURNAL)
        except FileNotFoundError:
            return None

    def _read_base(self, stamp: tuple) -> None:
        try:
            data = json.loads((self.dir / MANIFEST).read_bytes())
            if data.get("format") != FORMAT:
                raise _Corrupt("was built by another version of braniac")
            files, index_id = data["files"], data["id"]
            if not isinstance(files, dict):
                raise TypeError
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            raise _Corrupt("file list is missing or unreadable") from None
        self.files, self.id, self._base_stamp = files, index_id, stamp
        self._journal_ino, self._offset, self._lines, self.links_changed = None, 0, 0, True

    def _replay(self) -> None:
        try:
            handle = open(self.dir / JOURNAL, "rb")
        except FileNotFoundError:
            if self._journal_ino is not None:
                raise _Reload() from None
            return
        with handle:
            ino = os.fstat(handle.fileno()).st_ino
            if self._journal_ino is None and self._offset == 0:
                self._journal_ino = ino
            elif ino != self._journal_ino:
                raise _Reload()
            handle.seek(self._offset)
            chunk = handle.read()
        end = chunk.rfind(b"\n") + 1  # whole lines only
        for line in chunk[:end].splitlines():
            try:
                entry = json.loads(line)
                self._set(entry["p"], entry["r"])
            except (ValueError, KeyError, TypeError):
                continue  # a line torn by a crash: that file's record is stale, so it is re-read
            self._lines += 1
        self._offset += end

    def _set(self, rel: str, record: dict | None) -> None:
        old = self.files.get(rel) or {}
        if record is None:
            self.files.pop(rel, None)
        else:
            self.files[rel] = record
        new = record or {}
        if old.get("out") != new.get("out") or old.get("u") != new.get("u"):
            self.links_changed = True

    def append(self, changes: dict[str, dict | None]) -> None:
        """Record changes (None: the file is gone). Call under the index lock, after `load()`."""
        if not changes:
            return
        data = "".join(json.dumps({"p": rel, "r": record}, separators=(",", ":")) + "\n"
                       for rel, record in changes.items()).encode("utf-8")
        with open(self.dir / JOURNAL, "a+b") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size and os.pread(handle.fileno(), 1, size - 1) != b"\n":
                data = b"\n" + data  # after a torn line, start a fresh one
            handle.write(data)
            handle.flush()
            st = os.fstat(handle.fileno())
        in_step = self._journal_ino in (None, st.st_ino) and self._offset == size
        for rel, record in changes.items():
            self._set(rel, record)
        if in_step:
            self._journal_ino, self._offset = st.st_ino, st.st_size
            self._lines += len(changes)
        else:
            self.files = None  # not what we had read: read it all again next time
        if self._lines > COMPACT_AT:
            self.compact()

    def compact(self) -> None:
        """Fold the journal into the base. Call under the index lock."""
        if self._journal_stat() is None:
            return
        files = self.load()
        self.write(files, self.id)
        os.unlink(self.dir / JOURNAL)
        self._journal_ino, self._offset, self._lines = None, 0, 0

    def write(self, files: dict[str, dict], index_id: str) -> None:
        # Not fsynced: like Whoosh's own files the list is derived state, and one lost in a
        # crash only costs a rebuild.
        target = self.dir / MANIFEST
        temp = target.with_name(f".{MANIFEST}.{os.getpid()}.tmp")
        temp.write_text(json.dumps({"format": FORMAT, "id": index_id, "files": files}, separators=(",", ":")),
                        encoding="utf-8")
        os.replace(temp, target)
        st = os.stat(target)
        self.files, self.id, self._base_stamp = files, index_id, (st.st_mtime_ns, st.st_size, st.st_ino)


class _Reload(Exception):
    pass


def _segments_to_fold(segments: list, budget: int) -> list:
    """The segments a commit folds: those of the smallest size class (live documents < 4,
    < 16, < 64, …) that holds FOLD_WIDTH or more, if their documents fit the budget. Folding
    by class, as Lucene's tiered merging does, re-indexes each document only a few times
    on its way up, never the same growing segment on every commit."""
    classes: dict[int, list] = {}
    for segment in segments:
        count, size_class = segment.doc_count(), 0
        if not count:
            continue
        while count >= 4:
            count, size_class = count // 4, size_class + 1
        classes.setdefault(size_class, []).append(segment)
    for size_class in sorted(classes):
        group = classes[size_class]
        if len(group) >= FOLD_WIDTH and sum(s.doc_count() for s in group) <= budget:
            return group
    return []


def _damage_reason(exc: BaseException) -> str:
    """The one-line notice for rebuilding an index that failed with `exc`."""
    if isinstance(exc, _Corrupt):
        return f"search index {exc}; rebuilding it"
    return f"search index was damaged ({type(exc).__name__}); rebuilding it"


def _from_index(exc: BaseException) -> bool:
    """Did this error come from reading the index (whoosh or its files), not from a bug of ours?"""
    if isinstance(exc, (OSError, EOFError)):
        return True
    tb = exc.__traceback__
    while tb is not None:
        if f"{os.sep}whoosh{os.sep}" in tb.tb_frame.f_code.co_filename:
            return True
        tb = tb.tb_next
    return False


# ---------------------------------------------------------------------- excerpts

def _query_words(q) -> set[str]:
    """The analyzed (lowercased, stemmed) words of a query's title and body terms."""
    words = set()
    for field, text in q.iter_all_terms():
        if field in ("title", "body", "tags"):
            words.add(text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text))
    return words


_ANALYZER = None


def _analyze(word: str) -> list[str]:
    global _ANALYZER
    if _ANALYZER is None:
        *_rest, StemmingAnalyzer = _whoosh()
        _ANALYZER = StemmingAnalyzer()
    return [t.text for t in _ANALYZER(word)]


def _find_words(body: str, words: set[str], most: int = 24) -> list[tuple[int, int]]:
    """(start, end) of body words whose analyzed form is one of `words`, in order."""
    if not words:
        return []
    # A stem is nearly always a prefix of its words, less its last letter (happi/happy).
    prefixes = sorted({w[:-1] if len(w) > 3 else w for w in words}, key=len, reverse=True)
    pattern = re.compile(r"\b(?:%s)\w*" % "|".join(map(re.escape, prefixes)), re.IGNORECASE)
    found = []
    for checked, match in enumerate(pattern.finditer(body)):
        if set(_analyze(match.group(0))) & words:
            found.append(match.span())
        if len(found) >= most or checked > 50 * most:
            break  # enough for two passages, even in a long note full of near misses
    return found


# ---------------------------------------------------------------------- queries

def parse_query(text: str):
    """A Whoosh query for free text. Quotes make phrases; anything else is words, OR-ed (BM25F
    sums over the words, so a note matching more of them ranks higher). Never raises: odd
    syntax falls back to plain words."""
    _f, _h, _i, qparser, query, *_ = _whoosh()
    text = (text or "").strip()
    if not text:
        return None
    parser = _parser()
    try:
        q = parser.parse(text)
    except Exception:
        q = None
    if q is None or q is query.NullQuery or not _has_terms(q):
        words = " ".join(re.findall(r"\w+", text, re.UNICODE))
        if not words:
            return None
        try:
            q = parser.parse(words)
        except Exception:
            return None
    if q is query.NullQuery or not _has_terms(q):
        return None
    return q


def _has_terms(q) -> bool:
    try:
        return any(True for _ in q.iter_all_terms())
    except Exception:
        return False


_PARSER = None


def _parser():
    global _PARSER
    if _PARSER is None:
        _f, _h, _i, qparser, *_ = _whoosh()
        parser = qparser.MultifieldParser(["title", "tags", "body"], schema(), fieldboosts=ranking.FIELD_BOOSTS,
                                          group=qparser.OrGroup)
        # Not OrGroup.factory(0.9): its coordination bonus (Whoosh's CoordMatcher) multiplies
        # every score by (terms - 1) / terms, where terms counts only the query's words that
        # occur in the index; a one-word query matching one field then scores 0 for every
        # note, and neither BM25F nor emergent importance orders the results.
        # Only words, quotes and AND/OR/NOT: field names, wildcards, ranges and boosts in a
        # person's (or a model's) query would surprise more than help.
        for plugin in (qparser.FieldsPlugin, qparser.WildcardPlugin, qparser.RangePlugin, qparser.BoostPlugin,
                       qparser.GroupPlugin):
            parser.remove_plugin_class(plugin)
        _PARSER = parser
    return _PARSER


def update_after_write(vault: "VaultStore", paths: Iterable[Path], notice: Callable[[str], None]) -> None:
    """After a worker wrote files: bring the index up to date for just those, or leave it to the
    next search (which catches up) if the index is busy or broken right now."""
    try:
        index = SearchIndex(vault, notice=notice)
        index.sync(paths)
        index.close()
    except BraniacError as exc:
        notice(f"search index not updated now ({exc}); the next search catches up")
