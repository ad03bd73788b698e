"""From one vault file to what the index holds for it: a Whoosh document and a file-list record.

Which files belong in the index, what kind each is, how one is read and hashed, and how its
frontmatter, title, tags and links become the document's fields and the record's links.
"""
from __future__ import annotations

import hashlib
import os
import re
import time
from pathlib import Path

from ..infra.errors import NoteError
from ..infra.fsio import MAX_TEXT_BYTES, open_regular
from ..vault import notes
from ..vault.layout import ARCHIVE, FOLDER_INDEX, LONG_TERM, MEMORY_ROOTS, SHORT_TERM, TIERS, is_memory_name
from ..vault.links import find_links
from ..vault.wikilinks import find_wikilinks

# A file modified this recently may be changed again within the file system's timestamp
# granularity (FAT 2 s, HFS+ 1 s, ext4 a few ms) without its mtime or size moving. Such a
# file's mtime is not trusted: it is re-read and hashed by every sync until it is older.
RACY_NS = 3_000_000_000
UNTRUSTED_MTIME = -1

_LONG_TERM_PARTS = LONG_TERM.split("/")
_KINDS = (*TIERS, ARCHIVE)


def index_stem(word: str) -> str:
    """Whoosh's Porter stemmer, with the step it leaves out: a stem that taking off -ing or -ed
    left on a doubled consonant loses one ("swimming", "swimm" -> "swim"; "planned" -> "plan";
    not "calling", "passing" or "staffed"), so "when do I swim?" finds "I go swimming"."""
    from whoosh.lang.porter import stem

    found = stem(word)
    if word.endswith(("ing", "ed")) and len(found) > 3 and found[-1] == found[-2] and found[-1] not in "aeioulszf":
        return found[:-1]
    return found


def analyzer():
    """The analyzer of the title and body fields, and of a query's words (query.py)."""
    from whoosh.analysis import StemmingAnalyzer

    return StemmingAnalyzer(stemfn=index_stem)


def schema():
    # whoosh is imported on first use: it costs ~0.2 s, and `remember` never needs it
    from whoosh import fields

    return fields.Schema(
        path=fields.ID(stored=True, unique=True),
        uuid=fields.ID(stored=True),
        title=fields.TEXT(stored=True, analyzer=analyzer()),
        tags=fields.KEYWORD(stored=True, commas=True, lowercase=True, scorable=True),
        kind=fields.ID(stored=True),
        created=fields.STORED(),
        updated=fields.STORED(),
        depth=fields.STORED(),
        body=fields.TEXT(analyzer=analyzer()),
    )


def kind_of(rel: str) -> str:
    parts = rel.split("/")
    if rel == SHORT_TERM:
        return "stm"
    if parts[0] == "system":
        return "identity"
    # what is archived is decided by place alone, before anything else: an _index.md moved into
    # archive/ is as retired as the notes beside it (search leaves it out unless asked)
    if parts[:3] == [*_LONG_TERM_PARTS, ARCHIVE] and len(parts) > 3:
        return ARCHIVE
    if parts[-1] == FOLDER_INDEX:
        return "index"
    if parts[:2] == _LONG_TERM_PARTS and len(parts) > 3:
        return parts[2] if parts[2] in _KINDS else "other"
    return "other"


_TEMPLATES = re.compile(r"_?templates?", re.I)


def answers(kind: str, path: str) -> bool:
    """Can a note of this kind answer a prompt? Long-term memory's tiers, and the notes a person
    keeps in folders of their own under memory/long_term/ ("recipes/pancakes.md"); not the
    _index.md files, which guide people and organization, nor what is archived."""
    if kind in TIERS:
        return True
    parts = path.split("/")
    # a file beside the tiers (a README of the vault) or in a templates folder ("{{city}}") guides
    return kind == "other" and parts[:2] == _LONG_TERM_PARTS and len(parts) > 3 and \
        not any(_TEMPLATES.fullmatch(p) for p in parts[2:-1])


def indexable(rel: str) -> bool:
    """Does this vault-relative path belong in the index (under system/ or memory/, and in no
    hidden or tool folder)? The same rule as the walk, for paths handed to `sync(paths)`."""
    parts = rel.split("/")
    return (len(parts) > 1 and parts[0] in MEMORY_ROOTS
            and all(is_memory_name(p) for p in parts))


def recorded_mtime(st: os.stat_result) -> int:
    """The mtime to remember for a file just read: its own, unless it is too recent to trust."""
    return UNTRUSTED_MTIME if abs(time.time_ns() - st.st_mtime_ns) < RACY_NS else st.st_mtime_ns


def read_file(root: Path, rel: str, st: os.stat_result) -> tuple[bytes | None, str]:
    """(the file's bytes, their hash); the bytes are None when the file is too large to index
    (it is never read whole into memory) and the hash then stands for its size."""
    if st.st_size > MAX_TEXT_BYTES:
        return None, f"size:{st.st_size}"
    try:
        handle = open_regular(Path(root, rel), root=root)
    except NoteError as exc:   # a FIFO or a symlink out since the walk saw a file there
        raise OSError(str(exc)) from None
    with handle:
        data = handle.read(MAX_TEXT_BYTES + 1)
    return data, hashlib.blake2b(data, digest_size=16).hexdigest()


def ingest(writer, root: Path, rel: str, st: os.stat_result, data: bytes | None, digest: str) -> dict:
    """Add one file read by `read_file` to the index `writer` (unless it is skipped); its
    file-list record."""
    doc, record = document(root, rel, data, digest)
    record.update(m=recorded_mtime(st), s=st.st_size)
    if doc is not None:
        writer.add_document(**doc)
    return record


def document(root: Path, rel: str, data: bytes | None, digest: str) -> tuple[dict | None, dict]:
    """(Whoosh fields, file-list record without mtime and size) for one file; fields is None for
    a skipped file."""
    record: dict = {"h": digest}
    if data is None or len(data) > MAX_TEXT_BYTES:
        record["skip"] = f"larger than {MAX_TEXT_BYTES // 1048576} MB"
        return None, record
    if b"\x00" in data:
        record["skip"] = "binary file"
        return None, record
    text = data.decode("utf-8", errors="replace")
    path = root / rel
    try:
        note = notes.parse(text, path=path)
        meta, body = note.meta, note.body
    except NoteError:
        note, meta, body = None, {}, text  # broken frontmatter: still searchable by its words
    kind = kind_of(rel)
    title = (note.title if note else "") or Path(rel).stem
    if kind == "stm":
        title = "Short-term memory"
    elif kind == "index" and not (note and note.text("title")):
        title = f"{Path(rel).parent.name} (index)"
    tags = note.tags if note else []
    uuid = note.uuid if note else ""
    parts = rel.split("/")
    depth = max(len(parts) - 3, 0) if parts[:2] == _LONG_TERM_PARTS else 0
    record.update({"u": uuid, "out": _links_out(root, path, body)})
    doc = {
        "path": rel, "uuid": uuid, "title": title, "tags": ",".join(str(t) for t in tags),
        "kind": kind, "created": str(meta.get("created_at") or ""),
        "updated": str(meta.get("updated_at") or ""), "depth": depth, "body": body,
    }
    return doc, record


def _links_out(root: Path, path: Path, body: str) -> list[str]:
    """The vault files a note's body links to, each once: "uuid:<uuid> <path>" for a link that
    names a uuid (braniac trusts it over a path that may be stale after a move), else the path;
    a wikilink as "wiki:<its target>", which only the whole file list can resolve."""
    out: list[str] = []
    prefix = f"{root}{os.sep}"
    for link in find_links(body):
        if link.is_external or not link.target:
            continue
        target = str(link.resolve(path))  # normalized, so a string prefix test is enough here
        rel_target = target[len(prefix):].replace(os.sep, "/") if target.startswith(prefix) else ""
        if link.uuid:
            out.append(f"uuid:{link.uuid} {rel_target}")
        elif rel_target:
            out.append(rel_target)
    for wiki in find_wikilinks(body):   # resolved when counted, against every file then known
        if wiki.target:
            out.append(f"wiki:{wiki.target}")
    return list(dict.fromkeys(out))
