"""The search index's file list: what the index holds for each file, so a sync can tell what changed.

A record per vault-relative path: h (content hash), m (mtime, or UNTRUSTED_MTIME), s (size),
u (uuid), out (the files it links to: "uuid:<uuid> <path>" or a path), skip (why the file is
not indexed). The list is a JSON base (`braniac-files.json`) written whole only by a rebuild or
a compaction, plus a journal (`braniac-files.jsonl`) of the records each sync changed.
Rewriting the whole list for one edit cost 22 ms at 10k notes (and 5x that at 50k); an append
costs microseconds, and a reader replays only the journal lines it has not seen yet.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..infra.fsio import append_journal, uuid_homes, write_derived
from ..vault.wikilinks import Resolver

MANIFEST = "braniac-files.json"     # the file list: one record per indexed file
JOURNAL = "braniac-files.jsonl"     # records changed since, appended by each sync
COMPACT_AT = 2000                   # journal lines before the file list is rewritten whole
# Bump when the schema, the storage or the file list changes. 2: plain (non-compound) segment
# files, uuid-first link records, an index id in the file list. 3: an _index.md under archive/ is
# of kind archive. 4: Obsidian wikilinks among a record's links. 5: the stemmer takes the doubled
# consonant off "swimming" (documents.index_stem).
FORMAT = 5


class CorruptIndex(Exception):
    """The file list is missing, unreadable or from another version: the index must be rebuilt."""


class _Reload(Exception):
    """The journal was compacted while being read: read the base and the journal again."""


class FileList:
    """One index folder's file list, as this process last read it. Writers call `append` and
    `compact` under the index lock."""

    def __init__(self, directory: Path):
        self.dir = directory
        self.files: dict[str, dict] | None = None
        self.id: str | None = None              # changes with every rebuild
        self._links_changed = True              # a record's uuid or links changed since last counted
        self._inbound: dict[str, int] | None = None
        self._base_stamp: tuple | None = None
        self._journal_ino: int | None = None
        self._offset = 0                        # journal bytes already applied
        self._lines = 0

    def load(self) -> dict[str, dict]:
        for _attempt in range(3):
            try:
                st = os.stat(self.dir / MANIFEST)
            except OSError:
                raise CorruptIndex("file list is missing or unreadable") from None
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
        raise CorruptIndex("file list kept changing while being read")

    def inbound(self) -> dict[str, int]:
        """How many other memory files link to each file (a file linking five times counts
        once), counted again only when a record's uuid or links changed. Call after `load()`."""
        if self._inbound is None or self._links_changed:
            self._links_changed = False
            self._inbound = _count_inbound(self.files)
        return self._inbound

    def _journal_stat(self) -> os.stat_result | None:
        try:
            return os.stat(self.dir / JOURNAL)
        except FileNotFoundError:
            return None

    def _read_base(self, stamp: tuple) -> None:
        try:
            data = json.loads((self.dir / MANIFEST).read_bytes())
            if data.get("format") != FORMAT:
                raise CorruptIndex("was built by another version of braniac")
            files, index_id = data["files"], data["id"]
            if not isinstance(files, dict):
                raise TypeError
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            raise CorruptIndex("file list is missing or unreadable") from None
        self.files, self.id, self._base_stamp = files, index_id, stamp
        self._journal_ino, self._offset, self._lines, self._links_changed = None, 0, 0, True

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
            self._links_changed = True

    def append(self, changes: dict[str, dict | None]) -> None:
        """Record changes (None: the file is gone). Call under the index lock, after `load()`."""
        if not changes:
            return
        data = "".join(json.dumps({"p": rel, "r": record}, separators=(",", ":")) + "\n"
                       for rel, record in changes.items()).encode("utf-8")
        size, st = append_journal(self.dir / JOURNAL, data)
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
        # Derived state, like Whoosh's own files: a list lost in a crash only costs a rebuild.
        target = self.dir / MANIFEST
        write_derived(target, json.dumps({"format": FORMAT, "id": index_id, "files": files}, separators=(",", ":")))
        st = os.stat(target)
        self.files, self.id, self._base_stamp = files, index_id, (st.st_mtime_ns, st.st_size, st.st_ino)


def _count_inbound(files: dict[str, dict]) -> dict[str, int]:
    """How many other files link to each file, by the records' links (a uuid is trusted over
    the path beside it, which may be stale after a move)."""
    homes = uuid_homes((rec["u"], Path(rel)) for rel, rec in files.items() if rec.get("u"))
    by_uuid = {uuid: path.as_posix() for uuid, path in homes.items()}
    counts: dict[str, int] = {}
    resolver = None
    for rel, rec in files.items():
        targets = set()
        for target in rec.get("out", ()):
            if target.startswith("uuid:"):
                uuid, _, path = target[5:].partition(" ")
                target = by_uuid.get(uuid) or path
            if target.startswith("wiki:"):   # an Obsidian wikilink, resolved as Obsidian does
                resolver = resolver or Resolver(files)
                target = resolver.resolve(target[5:], rel) or ""
            if target and target != rel:
                targets.add(target)
        for target in targets:
            counts[target] = counts.get(target, 0) + 1
    return counts
