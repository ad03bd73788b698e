"""Where a draft's note lives: its place in the hierarchy, its stable uuid, and the note that
already has that uuid wherever organization moved it."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...model.types import NoteDraft
from ...search.index import SearchIndex
from ...vault.claims import stable_uuid
from ...vault.layout import LONG_TERM
from ...vault.notes import slugify

if TYPE_CHECKING:
    from ...vault.store import VaultStore


def note_path(vault: "VaultStore", draft: NoteDraft) -> Path:
    """The draft's place in the hierarchy: <tier>/<folder…>/<slug of the title>.md, confined to
    that tier (UnsafePath if a folder on the way is a symlink leading out of it)."""
    rel = Path(LONG_TERM, draft.kind, *draft.folder, f"{slugify(draft.title)}.md")
    return vault.confined(rel, within=vault.ltm_root / draft.kind)


def draft_uuid(draft: NoteDraft) -> str:
    return stable_uuid("note", "/".join([draft.kind, *draft.folder, slugify(draft.title)]))


def uuid_paths(vault: "VaultStore") -> dict[str, Path]:
    """uuid -> path of long-term notes, from the search index's file list (fast), else a scan."""
    try:
        index = SearchIndex(vault)
        index.sync()
        return {rec["u"]: vault.root / rel for rel, rec in index.files().items() if rec.get("u")}
    except Exception:
        return vault.uuid_map()


def target(vault: "VaultStore", draft: NoteDraft, paths: dict[str, Path]) -> Path:
    """Where a draft's note is: found by its stable uuid (even if organization moved it), else
    its place in the hierarchy."""
    path = paths.get(draft_uuid(draft))
    return path if path is not None and path.exists() else note_path(vault, draft)
