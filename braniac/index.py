"""The search index: a Whoosh index under `.braniac/index/` that mirrors the vault's Markdown.

The files are the truth; the index is derived and can be deleted at any time. Before every
read, `sync()` compares each file's mtime and size (then its content hash) with what was
indexed and applies only the differences, so an edit made by anyone (a braniac worker, a
person in Obsidian, `git pull`) is in the next result. A missing or corrupt index is rebuilt
with a one-line notice. Writers are serialized by the `index` file lock; a rebuild is built
beside the live index and swapped in, so readers never see a half-built one.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from . import notes, ranking
from .errors import BraniacError, LockBusy, NoteError
from .fsio import MAX_TEXT_BYTES, atomic_write, inside, locked
from .links import find_links

if TYPE_CHECKING:
    from .vault import Vault

MANIFEST = "braniac-files.json"
FORMAT = 1              # bump when the schema or the document content changes
KINDS = ("concrete", "events", "skills", "index", "stm", "identity", "archive", "other")
INDEXED_ROOTS = ("system", "memory")
SMALL_UPDATE = 64       # commits of fewer documents skip segment merging (merged when idle)
MAX_SEGMENTS = 12       # beyond this many segments a commit merges small ones again


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


class SearchIndex:
    """One vault's index. Keep one open in long-lived processes (REPL, watch): its searcher
    is reused and refreshed, which is what makes warm searches fast."""

    def __init__(self, vault: "Vault", *, notice: Callable[[str], None] = _stderr_notice,
                 lock_timeout: float = 120.0):
        self.vault = vault
        self.dir = vault.state_dir / "index"
        self.notice = notice
        self.lock_timeout = lock_timeout
        self._ix = None
        self._searcher = None
        self._files: dict[str, dict] | None = None
        self._files_stamp: tuple | None = None
        self._inbound: dict[str, int] | None = None

    # ------------------------------------------------------------------ opening
    def _lock(self, timeout: float | None = None):
        return locked(self.vault.lock_path("index"), timeout=self.lock_timeout if timeout is None else timeout,
                      what="search index")

    def _open(self):
        if self._ix is None:
            _f, _h, index, *_ = _whoosh()
            self._ix = index.open_dir(str(self.dir))
        return self._ix

    def _exists(self) -> bool:
        _f, _h, index, *_ = _whoosh()
        return self.dir.is_dir() and index.exists_in(str(self.dir)) and (self.dir / MANIFEST).exists()

    def close(self) -> None:
        if self._searcher is not None:
            self._searcher.close()
        self._searcher = self._ix = None
        self._files = None

    # ------------------------------------------------------------------ the files side
    def _load_files(self) -> dict[str, dict]:
        path = self.dir / MANIFEST
        try:
            stat = path.stat()
            stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
            if self._files is not None and stamp == self._files_stamp:
                return self._files
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != FORMAT:
                raise ValueError("old index format")
            self._files, self._files_stamp, self._inbound = data["files"], stamp, None
            return self._files
        except (OSError, ValueError, KeyError, TypeError):
            raise _Corrupt("index file list is missing or unreadable") from None

    def _save_files(self, files: dict[str, dict], directory: Path | None = None) -> None:
        atomic_write((directory or self.dir) / MANIFEST, json.dumps({"format": FORMAT, "files": files}, separators=(",", ":")))
        if directory is None:
            self._files, self._inbound = files, None
            stat = (self.dir / MANIFEST).stat()
            self._files_stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)

    def walk(self) -> Iterator[tuple[str, os.stat_result]]:
        """(vault-relative path, stat) of every Markdown file that belongs in the index."""
        root = self.vault.root
        for top in INDEXED_ROOTS:
            stack = [root / top]
            while stack:
                folder = stack.pop()
                try:
                    entries = list(os.scandir(folder))
                except (FileNotFoundError, NotADirectoryError, PermissionError):
                    continue
                for entry in entries:
                    name = entry.name
                    if name.startswith(".") or name == "node_modules":
                        continue
                    if entry.is_symlink():
                        if not inside(root, Path(entry.path)):
                            continue  # never follow a link out of the vault
                        if entry.is_dir():
                            continue  # a linked folder inside the vault is indexed where it really is
                    if entry.is_dir():
                        stack.append(Path(entry.path))
                    elif name.endswith(".md"):
                        try:
                            yield Path(entry.path).relative_to(root).as_posix(), entry.stat()
                        except FileNotFoundError:
                            continue

    def _document(self, rel: str, data: bytes) -> tuple[dict | None, dict]:
        """(Whoosh fields, file-list record) for one file; fields is None for a skipped file."""
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        record: dict = {"h": digest}
        if len(data) > MAX_TEXT_BYTES:
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
        out = []
        for link in find_links(body):
            if link.is_external or not link.target:
                continue
            target = link.resolve(path)
            if inside(self.vault.root, target):
                out.append(target.relative_to(self.vault.root).as_posix())
            elif link.uuid:
                out.append("uuid:" + link.uuid)
        record.update({"u": uuid, "out": out})
        doc = {
            "path": rel, "uuid": uuid, "title": title, "tags": ",".join(str(t) for t in tags),
            "kind": kind, "created": str(meta.get("created_at") or ""),
            "updated": str(meta.get("updated_at") or ""), "depth": depth, "body": body,
        }
        return doc, record

    def _diff(self, files: dict[str, dict], only: Iterable[str] | None = None):
        """What changed on disk since the index last saw it: (to index, to delete, stat-only)."""
        candidates = self.walk() if only is None else self._stat_paths(only)
        seen, to_index, touched = set(), [], {}
        for rel, stat in candidates:
            seen.add(rel)
            record = files.get(rel)
            if record and record.get("m") == stat.st_mtime_ns and record.get("s") == stat.st_size:
                continue
            try:
                data = (self.vault.root / rel).read_bytes()
            except OSError:
                continue
            if record and record.get("h") == hashlib.blake2b(data, digest_size=16).hexdigest():
                touched[rel] = (stat.st_mtime_ns, stat.st_size)
                continue
            to_index.append((rel, stat, data))
        scope = files.keys() if only is None else [r for r in only if r in files]
        to_delete = [rel for rel in scope if rel not in seen]
        return to_index, to_delete, touched

    def _stat_paths(self, rels: Iterable[str]) -> Iterator[tuple[str, os.stat_result]]:
        for rel in rels:
            path = self.vault.root / rel
            if not rel.endswith(".md") or rel.split("/")[0] not in INDEXED_ROOTS:
                continue
            if path.is_symlink() and not inside(self.vault.root, path):
                continue
            try:
                yield rel, path.stat()
            except (FileNotFoundError, NotADirectoryError):
                continue

    # ------------------------------------------------------------------ keeping in step
    def sync(self, paths: Iterable[Path | str] | None = None) -> SyncReport:
        """Bring the index in step with the files (all of them, or just `paths`)."""
        only = None if paths is None else sorted({self._rel(p) for p in paths} - {None})
        try:
            if not self._exists():
                first_use = not self.dir.exists()
                return self.rebuild(reason="building the search index (first use)" if first_use
                                    else "search index was missing; rebuilding it")
            files = self._load_files()
            to_index, to_delete, touched = self._diff(files, only)
            if not (to_index or to_delete or touched):
                return SyncReport()
            with self._lock():
                files = self._load_files()  # another process may have synced meanwhile
                to_index, to_delete, touched = self._diff(files, only)
                return self._apply(files, to_index, to_delete, touched)
        except _Corrupt as exc:
            return self.rebuild(reason=f"search index was unreadable ({exc}); rebuilding it")
        except LockBusy:
            raise
        except BraniacError:
            raise
        except Exception as exc:  # whoosh raises many kinds of errors on a damaged index
            if not _from_index(exc):
                raise
            return self.rebuild(reason=f"search index was damaged ({type(exc).__name__}); rebuilding it")

    def _apply(self, files, to_index, to_delete, touched) -> SyncReport:
        report = SyncReport()
        files = dict(files)
        for rel, (mtime, size) in touched.items():
            files[rel] = {**files[rel], "m": mtime, "s": size}
        if to_index or to_delete:
            ix = self._open()
            writer = self._writer(ix)
            try:
                for rel in to_delete:
                    writer.delete_by_term("path", rel)
                    files.pop(rel, None)
                    report.deleted += 1
                for rel, stat, data in to_index:
                    doc, record = self._document(rel, data)
                    record.update(m=stat.st_mtime_ns, s=stat.st_size)
                    if rel in files:
                        writer.delete_by_term("path", rel)
                        report.updated += 1
                    else:
                        report.added += 1
                    if doc is not None:
                        writer.add_document(**doc)
                    files[rel] = record
                self._commit(writer, len(to_index) + len(to_delete))
            except BaseException:
                writer.cancel()
                raise
        self._save_files(files)
        return report

    def _writer(self, ix):
        from whoosh.index import LockError
        for attempt in range(20):
            try:
                return ix.writer(limitmb=128)
            except LockError:
                time.sleep(0.05 * (attempt + 1))  # another writer outside braniac's lock, e.g. a dying process
        raise LockBusy("the search index stayed locked; run `braniac reindex`")

    def _commit(self, writer, n_docs: int) -> None:
        _f, _h, _i, _q, _qu, writing, _a = _whoosh()
        segments = len(writer.segments) if hasattr(writer, "segments") else 0
        if n_docs < SMALL_UPDATE and segments < MAX_SEGMENTS:
            writer.commit(mergetype=writing.NO_MERGE)  # fast: a new small segment, merged when idle
        else:
            writer.commit()

    def optimize(self) -> None:
        """Merge all segments into one (idle time: `braniac watch` and `reindex` call this)."""
        with self._lock():
            ix = self._open()
            if len(ix._segments()) > 1:
                writer = self._writer(ix)
                writer.commit(optimize=True)

    def rebuild(self, *, reason: str | None = None, progress: Callable[[int, int], None] | None = None) -> SyncReport:
        """Index every file from scratch, beside the live index, then swap it in."""
        if reason:
            self.notice(reason)
        _f, _h, index, *_ = _whoosh()
        with self._lock():
            self.close()
            staging = self.vault.state_dir / f"index.new-{os.getpid()}"
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            ix = index.create_in(str(staging), schema())
            writer = ix.writer(limitmb=256)
            files: dict[str, dict] = {}
            entries = list(self.walk())
            for n, (rel, stat) in enumerate(entries, start=1):
                try:
                    data = (self.vault.root / rel).read_bytes()
                except OSError:
                    continue
                doc, record = self._document(rel, data)
                record.update(m=stat.st_mtime_ns, s=stat.st_size)
                if doc is not None:
                    writer.add_document(**doc)
                files[rel] = record
                if progress:
                    progress(n, len(entries))
            writer.commit()
            ix.close()
            self._save_files(files, directory=staging)
            old = self.vault.state_dir / f"index.old-{os.getpid()}"
            if self.dir.exists():
                os.replace(self.dir, old)
            os.replace(staging, self.dir)
            shutil.rmtree(old, ignore_errors=True)
        self._load_files()
        return SyncReport(added=len(files), rebuilt=True)

    # ------------------------------------------------------------------ searching
    def searcher(self):
        if self._searcher is None:
            self._searcher = self._open().searcher()
        else:
            self._searcher = self._searcher.refresh()
        return self._searcher

    def search(self, text: str, *, limit: int = 10, kind: str | None = None, sync: bool = True,
               exclude_kinds: Iterable[str] = ("archive",)) -> list[Hit]:
        if sync:
            self.sync()
        for attempt in range(3):
            try:
                return self._search(text, limit, kind, tuple(exclude_kinds))
            except (BraniacError, KeyboardInterrupt):
                raise
            except Exception as exc:
                if not _from_index(exc):
                    raise
                # A concurrent merge or rebuild can pull files from under a reader: reopen, then rebuild.
                self.close()
                if attempt == 1:
                    self.rebuild(reason=f"search index was damaged ({type(exc).__name__}); rebuilding it")
                else:
                    time.sleep(0.05)
        return []

    def _search(self, text: str, limit: int, kind: str | None, exclude: tuple[str, ...]) -> list[Hit]:
        _f, highlight, _i, _qp, query, *_ = _whoosh()
        q = parse_query(text)
        if q is None:
            return []
        searcher = self.searcher()
        filter_q = query.Term("kind", kind) if kind else None
        mask = None
        if not kind and exclude:
            mask = query.Or([query.Term("kind", k) for k in exclude])
        results = searcher.search(q, limit=max(limit, 1) * ranking.RERANK_POOL, filter=filter_q, mask=mask)
        files = self._load_files()
        inbound = self._inbound_counts(files)
        reads = ranking.read_counts(self.vault.root / "logs", self.vault.state_dir / "reads.json")
        scored = []
        for hit in results:
            rel = hit["path"]
            signals = ranking.Signals(depth=hit.get("depth") or 0, inbound=inbound.get(rel, 0), reads=reads.get(rel, 0))
            scored.append((hit.score * ranking.importance(signals), hit))
        scored.sort(key=lambda pair: -pair[0])
        hits = []
        for score, hit in scored[:limit]:
            hits.append(Hit(title=hit["title"], path=hit["path"], uuid=hit.get("uuid") or "",
                            kind=hit["kind"], score=score, excerpt=self._excerpt(hit, q)))
        return hits

    def _excerpt(self, hit, q, maxchars: int = 240) -> str:
        from whoosh import highlight
        try:
            note = notes.parse((self.vault.root / hit["path"]).read_text(encoding="utf-8", errors="replace"))
            body = note.body
        except (OSError, NoteError):
            return ""
        hit.results.fragmenter = highlight.ContextFragmenter(maxchars=maxchars, surround=60)
        hit.results.formatter = _MarkdownBold()
        try:
            found = hit.highlights("body", text=body, top=2)
        except Exception:
            found = ""
        if found:
            return " ".join(found.split())
        plain = " ".join(line for line in body.splitlines() if line.strip() and not line.startswith("#"))
        return plain[:maxchars].strip()

    def _inbound_counts(self, files: dict[str, dict]) -> dict[str, int]:
        if self._inbound is None:
            by_uuid = {rec.get("u"): rel for rel, rec in files.items() if rec.get("u")}
            counts: dict[str, int] = {}
            for rel, rec in files.items():
                for target in rec.get("out", ()):
                    if target.startswith("uuid:"):
                        target = by_uuid.get(target[5:], "")
                    if target and target != rel:
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


class _Corrupt(Exception):
    pass


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


class _MarkdownBold:
    """Whoosh highlight formatter that marks matched words as Markdown **bold**."""

    between = " … "

    def __call__(self, text, fragments):
        return self.format(fragments)

    def format(self, fragments, replace=False):
        return self.between.join(self.format_fragment(f) for f in fragments)

    def format_fragment(self, fragment, replace=False):
        out, index, text = [], fragment.startchar, fragment.text
        for token in fragment.matches:
            if token.startchar < index:
                continue
            out.append(text[index:token.startchar])
            out.append(f"**{text[token.startchar:token.endchar]}**")
            index = token.endchar
        out.append(text[index:fragment.endchar])
        return "".join(out)


# ---------------------------------------------------------------------- queries

def parse_query(text: str):
    """A Whoosh query for free text. Quotes make phrases; anything else is words, OR-ed with a
    bonus for matching more of them. Never raises: odd syntax falls back to plain words."""
    import re
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
                                          group=qparser.OrGroup.factory(0.9))
        # Only words, quotes and AND/OR/NOT: field names, wildcards, ranges and boosts in a
        # person's (or a model's) query would surprise more than help.
        for plugin in (qparser.FieldsPlugin, qparser.WildcardPlugin, qparser.RangePlugin, qparser.BoostPlugin,
                       qparser.GroupPlugin):
            parser.remove_plugin_class(plugin)
        _PARSER = parser
    return _PARSER
