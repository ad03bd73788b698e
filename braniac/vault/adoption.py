"""A note a person wrote by hand made a full memory (vault-format.md §3.1): what adopting it adds.

Only the required keys that are missing (or empty) are added, at the end of the frontmatter (a
file without one gets a frontmatter block); the body and every key the person wrote stay byte
for byte. The uuid is derived from the file's place and its body, so two machines that adopt
the same synced file make the same one; created_at is the file's birth (or its mtime where the
system keeps no birth time), updated_at its mtime; tags are the note's own Obsidian `#tags`.
"""
from __future__ import annotations

import hashlib
import os
import re
import uuid as uuidlib
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from . import notes
from ..infra import clock
from ..infra.errors import NoteError
from ..infra.fsio import is_regular_file
from .layout import FOLDER_INDEX, is_memory_name
from .notes import REQUIRED_KEYS

if TYPE_CHECKING:
    from .store import VaultStore

_NAMESPACE = uuidlib.UUID("0b7c3f55-3c0e-4d8e-9a55-6a1d0f1c2b7e")
# An Obsidian tag: '#' after a space or a line start, then letters, digits, '_', '-' and '/',
# with at least one character that is not a digit ('#2025' is not a tag, '# Heading' neither).
_TAG = re.compile(r"(?:(?<=\s)|^)#([\w/-]*[^\W\d][\w/-]*)", re.MULTILINE)
_CODE = re.compile(r"^[ \t]*(```|~~~).*?(?:^[ \t]*\1[^\n]*$|\Z)|`[^`\n]+`", re.MULTILINE | re.DOTALL)


def missing_keys(note: notes.Note) -> list[str]:
    """The required keys a note lacks (absent, or present with nothing after the colon)."""
    return [key for key in REQUIRED_KEYS if note.meta.get(key) in (None, "")]


def inline_tags(body: str) -> list[str]:
    """The note's Obsidian `#tags`, outside code, each once (as first written, without '#')."""
    seen: dict[str, str] = {}
    for match in _TAG.finditer(_CODE.sub("", body)):
        tag = match.group(1).strip("/")
        if tag:
            seen.setdefault(tag.casefold(), tag)
    return list(seen.values())


def adopted_text(text: str, rel: str, st: os.stat_result) -> str | None:
    """`text` (of the file at vault-relative `rel`, whose stat is `st`) with the missing keys
    added; `text` itself when it lacks none; None when its frontmatter cannot be parsed (that
    is the person's to fix: `doctor` names it)."""
    try:
        note = notes.parse(text)
    except NoteError:
        return None
    missing = missing_keys(note)
    if not missing:
        return text
    born = getattr(st, "st_birthtime", None) or st.st_mtime
    values = {
        "uuid": str(uuidlib.uuid5(_NAMESPACE, rel + "\0" + hashlib.sha256(note.body.encode("utf-8")).hexdigest())),
        "created_at": clock.iso(datetime.fromtimestamp(int(min(born, st.st_mtime)), timezone.utc)),
        "updated_at": clock.iso(datetime.fromtimestamp(int(st.st_mtime), timezone.utc)),
        "tags": inline_tags(note.body),
        "emotion": "neutral",
    }
    for key in missing:
        note.set(key, values[key])
    return note.render()


def memory_tree(vault: "VaultStore") -> Iterator[tuple[Path, list[str]]]:
    """Every long-term folder (not hidden, not a symlink), shallowest first, with its file names."""
    for folder, dirs, files in os.walk(vault.ltm_root):
        dirs[:] = sorted(d for d in dirs if is_memory_name(d) and not (Path(folder) / d).is_symlink())
        yield Path(folder), sorted(files)


def notes_among(folder: Path, names: list[str]) -> Iterator[Path]:
    """The notes a person may have written among a folder's file names (not an `_index.md`, not
    hidden, a regular file)."""
    for name in names:
        path = folder / name
        if name.endswith(".md") and name != FOLDER_INDEX and is_memory_name(name) and not path.is_symlink() \
                and is_regular_file(path):
            yield path
