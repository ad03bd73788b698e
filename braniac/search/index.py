"""The search index: a Whoosh index under `.braniac/index/` that mirrors the vault's Markdown.

The files are the truth; the index is derived and can be deleted at any time. Before every
read, `sync()` compares each file's mtime and size (then its content hash) with what was
indexed and applies only the differences, so an edit made by anyone (a braniac worker, a
person in Obsidian, `git pull`) is in the next result. A missing or corrupt index is rebuilt
with a one-line notice. Writers are serialized by the `index` file lock; a rebuild is built
beside the live index and swapped in, so readers never see a half-built one.

What the index holds for each file lives in its file list (see filelist). A file modified in
the last few seconds is re-read by every sync until its mtime can be trusted, so a same-size
edit within the file system's timestamp granularity is never missed.
"""
from __future__ import annotations

import os
import secrets
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from ..infra.errors import BraniacError, IndexError_
from ..infra.fsio import locked
from ..infra.fsio_folders import swap_directory
from ..infra.notices import notice
from ..vault.layout import READ_COUNTS, SEARCH_INDEX_DIR
from ..vault.reads import read_counts
from . import ranking, segments
from .changes import Changes, diff, relative_paths, walk
from .damage import from_index, rebuild_notice, unwritable
from .documents import ingest, read_file, schema
from .filelist import MANIFEST, CorruptIndex, FileList
from .hits import Hit, HitFinder
from .query import excerpt, parse_query, query_words

if TYPE_CHECKING:
    from ..vault.store import VaultStore


@dataclass
class SyncReport:
    added: int = 0
    updated: int = 0
    deleted: int = 0
    rebuilt: bool = False

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.deleted


class _Missing(Exception):
    """The index folder or its file list is not there: build it."""


class SearchIndex:
    """One vault's index. Keep one open in long-lived processes (REPL, watch): its searcher
    is reused while the index is unchanged, which is what makes warm searches fast."""

    def __init__(self, vault: "VaultStore", *, lock_timeout: float = 120.0):
        self.vault = vault
        self.dir = vault.state_dir / SEARCH_INDEX_DIR
        self.lock_timeout = lock_timeout
        self._ix = None
        self._ix_id: str | None = None          # the index id self._ix was opened for
        self._searcher = None
        self._searcher_gen = None
        self._list = FileList(self.dir)
        self._hits = HitFinder()

    # ------------------------------------------------------------------ opening
    def _lock(self, timeout: float | None = None):
        return locked(self.vault.lock_path("index"), timeout=self.lock_timeout if timeout is None else timeout,
                      what="search index")

    def _open(self):
        """The Whoosh index, reopened when another process swapped in a rebuilt one (its id in
        the file list changed): a rebuilt index may reuse generation numbers, so Whoosh alone
        would not notice and would keep reading the old, deleted files."""
        self._list.load()
        if self._ix is None or self._ix_id != self._list.id:
            self._close_index()
            from whoosh import index  # whoosh is imported on first use: it costs ~0.2 s

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
        self._hits.forget()

    def close(self) -> None:
        self._close_index()
        self._list = FileList(self.dir)

    # ------------------------------------------------------------------ the files side
    def files(self) -> dict[str, dict]:
        """vault-relative path -> record (h: hash, m: mtime, s: size, u: uuid, out: links,
        skip: why not indexed) for every file the index has seen; the index's own, not to be changed."""
        return self._list.load()

    def inbound_counts(self) -> dict[str, int]:
        """How many other memory files link to each file (a file linking five times counts once)."""
        self._list.load()
        return self._list.inbound()

    def walk(self) -> Iterator[tuple[str, os.stat_result]]:
        """(vault-relative path, stat) of every Markdown file that belongs in the index."""
        return walk(self.vault.root)

    def skipped(self) -> dict[str, str]:
        """Files the index could not take (binary, huge), with the reason."""
        try:
            return {rel: rec["skip"] for rel, rec in self.files().items() if rec.get("skip")}
        except CorruptIndex:
            return {}

    def doc_count(self) -> int:
        return self.searcher().doc_count()

    # ------------------------------------------------------------------ keeping in step
    def sync(self, paths: Iterable[Path | str] | None = None) -> SyncReport:
        """Bring the index in step with the files (all of them, or just `paths`, which may be folders)."""
        only = None if paths is None else relative_paths(self.vault.root, paths)
        for _attempt in range(3):
            try:
                return self._sync_once(only)
            except OSError as exc:
                refused = unwritable(exc)
                if refused is not None:
                    raise refused from None
                if not from_index(exc):
                    raise
                reason, still = rebuild_notice(exc), None
            except _Missing:
                reason, still = self._missing_reason, lambda: not self._exists()
            except CorruptIndex as exc:
                reason, still = rebuild_notice(exc), self._unusable
            except (BraniacError, KeyboardInterrupt):
                raise
            except Exception as exc:  # whoosh raises many kinds of errors on a damaged index
                if not from_index(exc):
                    raise
                # Whoosh is only touched under the lock, where no other writer runs: damage.
                reason, still = rebuild_notice(exc), None
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
        if diff(self.vault.root, self._list.load(), only).empty:
            return SyncReport()
        with self._lock():
            if not self._exists():
                raise _Missing()
            files = self._list.load()  # another process may have synced meanwhile
            return self._apply(files, diff(self.vault.root, files, only))

    def _unusable(self) -> bool:
        """Under the lock (no writer running): is the index really missing or damaged?"""
        self.close()
        if not self._exists():
            return True
        try:
            self.searcher().doc_count()
            return False
        except Exception as exc:
            if from_index(exc):
                return True
            raise

    def _apply(self, files: dict[str, dict], changes: Changes) -> SyncReport:
        report = SyncReport()
        records: dict[str, dict | None] = {}
        for rel, (mtime, size) in changes.touched.items():
            records[rel] = {**files[rel], "m": mtime, "s": size}
        if changes.to_index or changes.to_delete:
            written = [*changes.to_delete, *(item[0] for item in changes.to_index)]
            present = set(os.listdir(self.dir))
            writer = segments.open_writer(self._open())
            try:
                # Every path about to be (re)written is deleted first, known or not: a process
                # killed between commit and saving the file list leaves documents the list does
                # not know, which would otherwise be added twice. (The writer caches one searcher
                # for all these deletions.)
                for rel in written:
                    writer.delete_by_term("path", rel)
                for rel in changes.to_delete:
                    records[rel] = None
                    report.deleted += 1
                for rel, st, data, digest in changes.to_index:
                    if rel in files:
                        report.updated += 1
                    else:
                        report.added += 1
                    records[rel] = ingest(writer, self.vault.root, rel, st, data, digest)
                segments.commit(writer, self.vault.root, records, set(written))
            except BaseException:
                segments.abandon(writer, self.dir, present)
                raise
        self._list.append(records)  # after the commit: a crash in between only costs re-indexing
        return report

    def fold_small_segments(self) -> None:
        """Idle time (`braniac watch` when the vault is quiet): fold every segment but the
        largest into one, up to segments.IDLE_FOLD_DOCS documents, and fold the file list's
        journal into its base."""
        with self._lock():
            ix = self._open()
            fold = segments.quiet_fold(ix._segments())
            if fold is not None:
                records: dict[str, dict | None] = {}
                writer = segments.open_writer(ix)
                try:
                    segments.commit(writer, self.vault.root, records, fold=fold)
                except BaseException:
                    writer.cancel()
                    raise
                self._list.append(records)
            self._list.compact()

    def optimize(self) -> None:
        """Merge all segments into one (after `braniac reindex`, which writes one segment
        anyway) and fold the journal into the file list. Whoosh's merge is slow on a big
        index (17 s at 10k notes): idle processes call fold_small_segments() instead."""
        with self._lock():
            ix = self._open()
            if len(ix._segments()) > 1:
                segments.open_writer(ix).commit(optimize=True)
            self._list.compact()

    def rebuild(self, *, reason: str | Callable[[], str] | None = None,
                progress: Callable[[int, int], None] | None = None,
                only_if: Callable[[], bool] | None = None) -> SyncReport:
        """Index every file from scratch, beside the live index, then swap it in. With
        `only_if`, first check under the lock that a rebuild is still needed."""
        state = self.vault.state_dir
        with self._lock():
            if only_if is not None and not only_if():
                return SyncReport()
            if reason:
                notice(reason() if callable(reason) else reason)
            self.close()
            for stale in [*state.glob(f"{self.dir.name}.new-*"), *state.glob(f"{self.dir.name}.old-*")]:
                shutil.rmtree(stale, ignore_errors=True)  # left by a killed rebuild (we hold the lock)
            staging = state / f"{self.dir.name}.new-{os.getpid()}"
            try:
                staging.mkdir(parents=True)
                files = self._build(staging, progress)
                swap_directory(staging, self.dir)
            except BaseException as exc:
                shutil.rmtree(staging, ignore_errors=True)
                refused = unwritable(exc)
                if refused is not None:
                    raise refused from None
                raise
            self._list.load()
        return SyncReport(added=len(files), rebuilt=True)

    def _build(self, staging: Path, progress: Callable[[int, int], None] | None) -> dict[str, dict]:
        """A whole new index (and its file list) in `staging`; the file list's records."""
        from whoosh import index  # whoosh is imported on first use: it costs ~0.2 s

        ix = index.create_in(str(staging), schema())
        writer = ix.writer(limitmb=256, compound=False)
        root, files = self.vault.root, {}
        entries = list(walk(root))
        try:
            for n, (rel, st) in enumerate(entries, start=1):
                try:
                    data, digest = read_file(root, rel, st)
                except OSError:
                    continue
                files[rel] = ingest(writer, root, rel, st, data, digest)
                if progress:
                    progress(n, len(entries))
        except BaseException:
            writer.cancel()
            raise
        writer.commit()
        ix.close()
        FileList(staging).write(files, secrets.token_hex(8))
        return files

    # ------------------------------------------------------------------ searching
    def searcher(self):
        """The open Whoosh searcher, replaced when the index changed on disk."""
        ix = self._open()
        if self._searcher is None or ix.latest_generation() != self._searcher_gen:
            # A fresh reader, not Whoosh's `Searcher.refresh()`: refresh reuses readers by segment
            # id, so it keeps serving documents an update deleted from an existing segment, and
            # (whoosh-reloaded 2.7.5) re-adds segments a merge removed, duplicating every hit.
            # Plain segment files make opening cheap (well under 1 ms at 10k notes).
            from whoosh.scoring import BM25F  # whoosh is imported on first use: it costs ~0.2 s

            old, self._searcher = self._searcher, ix.searcher(weighting=BM25F(B=ranking.B, K1=ranking.K1))
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
        # a query is text: what cannot be text (a NUL, undecodable bytes a model or a terminal
        # passed on) matches nothing, and must not reach Whoosh, which would fail as if damaged
        text = text.encode("utf-8", "replace").decode("utf-8").replace("\x00", " ")
        if sync:
            self.sync()
        exclude = tuple(exclude_kinds)
        error: BaseException | None = None
        for attempt in range(3):
            hits, error = self._attempt(text, limit, kind, exclude, excerpts)
            if error is None:
                return hits
            self.close()
            if attempt == 0:
                time.sleep(0.05)  # a concurrent rebuild or merge pulled files from under us: reopen
                continue
            # Twice in a row: try once more holding the lock, when no writer can interfere; a
            # failure then is damage, and the index is rebuilt.
            with self._lock():
                hits, error = self._attempt(text, limit, kind, exclude, excerpts)
                if error is None:
                    return hits
                self.close()
                self.rebuild(reason=self._missing_reason if not self._exists() else rebuild_notice(error))
        raise IndexError_(f"the search index could not be read ({type(error).__name__}: {error}); "
                          "run `braniac reindex`")

    def _attempt(self, text: str, limit: int, kind: str | None, exclude: tuple[str, ...], excerpts: bool):
        """(hits, None), or (None, the error) when reading the index failed; other errors propagate."""
        try:
            return self._search(text, limit, kind, exclude, excerpts), None
        except (BraniacError, KeyboardInterrupt):
            raise
        except Exception as exc:
            if not from_index(exc):
                raise
            return None, exc

    def _search(self, text: str, limit: int, kind: str | None, exclude: tuple[str, ...],
                excerpts: bool) -> list[Hit]:
        q = parse_query(text)
        if q is None:
            return []
        searcher = self.searcher()
        inbound = self.inbound_counts()
        reads = read_counts(self.vault.logs_dir, self.vault.state_dir / READ_COUNTS)
        scored = self._hits.best(searcher, q, limit, kind, exclude, inbound, reads)
        words = query_words(q)
        root = str(self.vault.root)  # once, not per hit
        return [Hit(title=fields["title"], path=fields["path"], uuid=fields.get("uuid") or "",
                    kind=fields["kind"], score=score,
                    excerpt=excerpt(root, fields["path"], words) if excerpts else "")
                for score, fields in scored[:max(limit, 0)]]


def update_after_write(vault: "VaultStore", paths: Iterable[Path]) -> None:
    """After a worker wrote files: bring the index up to date for just those, or leave it to the
    next search (which catches up) if the index is busy or broken right now."""
    try:
        index = SearchIndex(vault)
        index.sync(paths)
        index.close()
    except BraniacError as exc:
        notice(f"search index not updated now ({exc}); the next search catches up")
