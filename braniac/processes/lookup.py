"""Reading one memory file by uuid or by path, for an assistant (`read` of the MCP server,
`Vault.read`): confined to the vault's memory files, and saying when a note was archived or
superseded. A read of a long-term note is logged to the access log like a turn's read."""
from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..infra.errors import InputError, NoteError
from ..infra.fsio import read_text
from ..vault import access_log, notes
from ..vault.layout import ARCHIVE, LONG_TERM, is_memory_name

if TYPE_CHECKING:
    from ..search.index import SearchIndex
    from ..vault.store import VaultStore

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
MAX_REF = 4096


@dataclass
class NoteText:
    path: str            # vault-relative
    uuid: str
    title: str
    status: str          # active, superseded, archived, quarantined
    superseded_by: str
    text: str            # the whole file, as it is on disk

    @property
    def notice(self) -> str:
        if self.status == "superseded":
            return "superseded" + (f" by {self.superseded_by}" if self.superseded_by else "") + \
                   ": a newer note holds what is current"
        if self.status == "archived":
            return "archived: kept for the record, no longer in active memory"
        if self.status == "quarantined":
            return "quarantined: held back as suspect, do not rely on it"
        return ""

    def as_dict(self) -> dict:
        return {**asdict(self), "notice": self.notice}


def read_note(vault: "VaultStore", index: "SearchIndex", ref: str) -> NoteText:
    """`ref`: a note's uuid, or a path relative to the vault (or absolute inside it). A uuid is
    looked up in the search index's file list: sync the index first."""
    if not isinstance(ref, str) or not ref.strip():
        raise InputError("read takes a note's uuid or its path in the vault")
    ref = ref.strip()
    if len(ref) > MAX_REF or "\x00" in ref:
        raise InputError("not a uuid or a path braniac can use")
    if _UUID.match(ref):
        rel = next((r for r, rec in index.files().items() if str(rec.get("u", "")).lower() == ref.lower()), None)
        if rel is None:
            raise InputError(f"no memory file has the uuid {ref}")
        path = vault.confined(rel)
    else:
        path = vault.confined(ref)   # UnsafePath for a path (or symlink) leaving the vault
        rel = path.relative_to(vault.root).as_posix()
        if path.suffix != ".md" or not all(is_memory_name(part) for part in Path(rel).parts):
            raise InputError(f"{ref}: not a memory file of the vault (a Markdown file outside .braniac/, .git/ ...)")
        if not os.path.lexists(path):
            raise InputError(f"{ref}: no such file in the vault")
    text = read_text(path, root=vault.root)
    try:
        note = notes.parse(text, path=path)
        meta = note.meta
    except NoteError:
        note, meta = None, {}
    status = str(meta.get("status") or "active")
    if status == "active" and rel.startswith(f"{LONG_TERM}/{ARCHIVE}/"):
        status = "archived"
    if rel.startswith(LONG_TERM + "/"):
        access_log.record(vault.access_log_path, [vault.root / rel])
    return NoteText(rel, str(meta.get("uuid") or ""), (note.title if note else "") or Path(rel).stem, status,
                    str(meta.get("superseded_by") or ""), text)
