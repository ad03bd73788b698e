"""Where a draft's note lives and what uuid it has, for one promotion.

A note braniac creates gets a random uuid (two vaults, or two machines, that write about the
same title never share one). The uuids of the notes a run is about to create are journaled
durably before anything is written, so the re-run after a kill gives the same note the same
uuid, and a link another new note made to it keeps pointing at the right uuid. A note that
exists keeps the uuid in its frontmatter. Notes made before braniac 0.x carried a uuid derived
from their tier, folder and title; a draft still finds such a note by it, wherever organization
moved it."""
from __future__ import annotations

import json
import os
import re
import uuid as uuidlib
from pathlib import Path
from typing import TYPE_CHECKING

from ...infra.errors import NoteError
from ...infra.fsio import atomic_write, inside, read_text, uuid_homes
from ...model.types import NoteDraft
from ...search.index import SearchIndex
from ...vault import notes
from ...vault.claims import stable_uuid
from ...vault.adoption import adopted_text
from ...vault.layout import ARCHIVE, FOLDER_INDEX, LONG_TERM
from ...vault.notes import slugify

if TYPE_CHECKING:
    from ...vault.store import VaultStore


def note_path(vault: "VaultStore", draft: NoteDraft) -> Path:
    """The draft's place in the hierarchy: <tier>/<folder…>/<slug of the title>.md, confined to
    that tier (UnsafePath if a folder on the way is a symlink leading out of it)."""
    rel = Path(LONG_TERM, draft.kind, *draft.folder, f"{slugify(draft.title)}.md")
    return vault.confined(rel, within=vault.ltm_root / draft.kind)


def derived_uuid(draft: NoteDraft) -> str:
    """The uuid earlier braniac versions gave a note (read only, to find such notes)."""
    return stable_uuid("note", "/".join([draft.kind, *draft.folder, slugify(draft.title)]))


def uuid_paths(vault: "VaultStore") -> dict[str, Path]:
    """uuid -> path of long-term notes, from the search index's file list (fast), else a scan."""
    try:
        index = SearchIndex(vault)
        index.sync()
        return uuid_homes((rec["u"], vault.root / rel) for rel, rec in index.files().items() if rec.get("u"))
    except Exception:
        return vault.uuid_map()


def ids_journal(vault: "VaultStore") -> Path:
    return vault.state_dir / "promotion" / "new-notes.json"


class Places:
    """The notes of one promotion's drafts: where each is, and its uuid."""

    def __init__(self, vault: "VaultStore", drafts: list[NoteDraft]):
        self.vault = vault
        self.by_uuid = uuid_paths(vault)
        self.moved: dict[Path, Path] = {}        # a note brought back from the archive: old -> new
        self._uuids: dict[Path, str] = {}
        self._drafts = drafts
        self._titles: dict[Path, dict[str, Path]] = {}   # folder -> slug of a note's title -> the note

    def target(self, draft: NoteDraft) -> Path:
        """Where the draft's note is: its place in the hierarchy, else a note an earlier version
        made for it (found by its derived uuid, even if moved), else its archived copy."""
        home = note_path(self.vault, draft)
        if home.exists():
            return home
        named = _named_so(home) or self._titled_so(home)
        if named is not None:
            return named
        legacy = self.by_uuid.get(derived_uuid(draft))
        if legacy is not None and legacy.exists():
            return self.moved.get(legacy, legacy)
        archived = self._archived_copy(draft)
        return self.moved.get(archived, archived) if archived is not None else home

    def uuid(self, draft: NoteDraft) -> str:
        """The note's uuid: read once from its frontmatter, else the one chosen for it."""
        path = self.target(draft)
        if path in self._uuids:
            return self._uuids[path]
        if path.exists():
            try:   # a note a person wrote that is not adopted yet: the uuid adoption gives it
                text = read_text(path)
                found = notes.parse(adopted_text(text, self.vault.relative(path), os.stat(path)) or text).uuid
            except (NoteError, OSError):
                found = ""
            if found:
                self._uuids[path] = found
                return found
        return self._uuids.setdefault(path, str(uuidlib.uuid4()))

    def journal_new_notes(self) -> None:
        """Before anything is written: the uuids of the notes this run will create, durably, and
        those a killed run had chosen for the same places taken back."""
        journal = ids_journal(self.vault)
        try:
            earlier = json.loads(read_text(journal))
        except (NoteError, ValueError):
            earlier = {}
        new = {}
        for draft in self._drafts:
            path = self.target(draft)
            if not path.exists():
                rel = path.relative_to(self.vault.root).as_posix()
                chosen = earlier.get(rel) if isinstance(earlier.get(rel), str) else None
                new[rel] = self._uuids[path] = chosen or self._uuids.get(path) or str(uuidlib.uuid4())
        if new != earlier:
            journal.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(journal, json.dumps(new, indent=1))

    def done(self) -> None:
        ids_journal(self.vault).unlink(missing_ok=True)

    def _titled_so(self, home: Path) -> Path | None:
        """The one note beside `home` whose title is the draft's, under a name a person gave it
        ("ana-silva.md", titled "Ana"): promotion writes into it, never a second note of that title."""
        if home.parent not in self._titles:
            self._titles[home.parent] = _titles_in(home.parent)
        return self._titles[home.parent].get(home.stem)

    def _archived_copy(self, draft: NoteDraft) -> Path | None:
        root = self.vault.ltm_root / ARCHIVE / draft.kind
        name = f"{slugify(draft.title)}.md"
        found = sorted(p for p in root.rglob(name) if inside(root, p)) if root.is_dir() else []   # no symlink out
        return found[0] if found else None


_TITLE_LINE = re.compile(r"^title:[ \t]*['\"]?(.+?)['\"]?[ \t]*\r?$", re.M)
_HEAD_BYTES = 4096   # a note's frontmatter is at its start


def _titles_in(folder: Path) -> dict[str, Path]:
    """slug of the title -> note, for the notes of a folder whose title is in their frontmatter
    (a slug two notes share maps to neither)."""
    found: dict[str, Path | None] = {}
    try:
        # (never through a symlink: it may lead out of the vault, or loop)
        candidates = [p for p in folder.iterdir() if p.suffix == ".md" and p.name != FOLDER_INDEX
                      and not p.is_symlink() and p.is_file()]
    except OSError:
        return {}
    for path in candidates:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                head = handle.read(_HEAD_BYTES)
        except OSError:
            continue
        try:
            frontmatter = notes.split_frontmatter(head)[1]
        except NoteError:
            continue   # (never closed in its first bytes: no title braniac reads here)
        title = _TITLE_LINE.search(frontmatter)
        if title:
            slug = slugify(title.group(1))
            found[slug] = None if slug in found and found[slug] != path else path
    return {slug: path for slug, path in found.items() if path is not None}


def _named_so(home: Path) -> Path | None:
    """The one note beside `home` whose name says the same title another way, as a person names
    notes in Obsidian ("Ana.md", "Ana Silva.md" for ana.md, ana-silva.md): promotion writes into
    it, never a second note of the same title."""
    try:
        found = [p for p in home.parent.iterdir() if p.suffix == ".md" and p.name != FOLDER_INDEX
                 and slugify(p.stem) == home.stem and p.is_file()]
    except OSError:
        return None
    return found[0] if len(found) == 1 else None
