"""Committing to the index without letting segments pile up.

Every segment costs each query term a lookup (a 10k-note search: 2.3 ms in one segment, 3.2 ms
in six), so small ones are folded together; but Whoosh merges slowly (15 ms per document for
small segments, 17 s to merge one more into a 10k-note segment), so a fold re-indexes the few
documents from their files (2.5 ms each) and never touches big segments.
"""
from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from ..infra.errors import LockBusy
from .documents import ingest, read_file

FOLD_WIDTH = 4          # a size class (documents < 4, < 16, < 64, …) with this many segments is folded
FOLD_DOCS = 256         # … during a commit, if it holds at most this many documents (≈ 0.6 s, rarely)
IDLE_FOLD_DOCS = 2000   # when quiet (`braniac watch`): every segment but the largest, up to this many


def abandon(writer, folder: Path, present: set[str]) -> None:
    """Give up a write that failed (a full disk): the writer cancelled even when closing its
    files fails too (its Whoosh lock released all the same), and the files of the segment it
    never committed removed. No table of contents names them, and no other writer runs: the
    caller holds the index lock. Files in `present` were there before the write."""
    try:
        writer.cancel()
    except Exception:  # noqa: BLE001 - the error that ended the write is the one to raise
        with contextlib.suppress(Exception):
            writer._finish()
    for name in set(os.listdir(folder)) - present:
        with contextlib.suppress(OSError):
            os.unlink(folder / name)


def open_writer(ix):
    """A writer on the index, waiting out a Whoosh lock that a writer outside braniac's own
    lock holds (a dying process, say)."""
    from whoosh.index import LockError  # whoosh is imported on first use: it costs ~0.2 s

    for attempt in range(20):
        try:
            # Plain segment files, not one compound file: Whoosh reads a compound segment by
            # copying it into memory on every reader open (14 ms at 10k notes, growing with
            # the index); plain files open in under a millisecond.
            return ix.writer(limitmb=128, compound=False)
        except LockError:
            time.sleep(0.05 * (attempt + 1))
    raise LockBusy("the search index stayed locked; run `braniac reindex`")


def commit(writer, root: Path, changes: dict[str, dict | None], written: set[str] = frozenset(),
           fold: list | None = None) -> None:
    """Commit, folding small segments (see FOLD_WIDTH) into the new one and dropping emptied
    ones (the previous short_term.md's, after each turn), so segments never pile up.
    `written`: the paths this commit already (re)indexes or deletes; `changes` gets the
    file-list records of the files a fold re-indexed."""
    segments = list(getattr(writer, "segments", ()))
    if fold is None:
        fold = _to_fold(segments, FOLD_DOCS)
    folded = {segment.segment_id() for segment in fold}
    if fold:
        _refill(writer, root, fold, changes, written)
    writer.commit(mergetype=lambda _writer, current: [
        segment for segment in current if segment.segment_id() not in folded and segment.doc_count() > 0])


def quiet_fold(segments: list) -> list | None:
    """What a fold when the vault is quiet takes: every segment but the largest, smallest
    first, up to IDLE_FOLD_DOCS documents (the largest is left alone: merging into it is a full
    rewrite). [] when only emptied segments are to be dropped; None when there is nothing to do."""
    live = sorted((s for s in segments if s.doc_count() > 0), key=lambda s: s.doc_count())
    fold = []
    for segment in live[:-1]:
        if sum(s.doc_count() for s in fold) + segment.doc_count() > IDLE_FOLD_DOCS:
            break
        fold.append(segment)
    if len(fold) > 1:
        return fold
    return [] if len(live) < len(segments) else None


def _to_fold(segments: list, budget: int) -> list:
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


def _refill(writer, root: Path, segments: list, changes: dict[str, dict | None], written: set[str]) -> None:
    """Add the live documents of `segments` to `writer` again, from their files (the body is
    not stored in the index), so the commit can drop those segments. Every one of them, but
    those this commit writes anyway: a file whose mtime alone changed is in `changes` too,
    and skipping it would drop it from the index for good."""
    from whoosh.reading import SegmentReader  # whoosh is imported on first use: it costs ~0.2 s

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
                st = os.stat(os.path.join(root, rel))
                data, digest = read_file(root, rel, st)
            except OSError:
                # Gone meanwhile (or unreadable right now): forgotten, as the next walk would
                # find; a file that is still there is then indexed again as a new one.
                changes[rel] = None
                continue
            changes[rel] = ingest(writer, root, rel, st, data, digest)
