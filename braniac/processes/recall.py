"""Recall for an assistant that brings its own model (the MCP server, `braniac recall`,
`Vault.recall`): the excerpts a turn of the core loop would put in working memory for a prompt,
logged to `logs/access.log` exactly as a turn is (a QUERY line, a READ line per note), so that
organization learns from the assistant's use as from the chat's.

The host's model already phrased what it wants to know, so the search queries are derived from
it as the offline engine does (no call to braniac's own model). A `Recaller` keeps its search
index open between calls, for a long-lived process; its calls may come from several threads.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..infra.config import Config
from ..infra.errors import InputError
from ..infra.untrusted import checked_text
from ..model.offline import OfflineModel
from ..search.index import Hit, SearchIndex
from ..vault.layout import EVENT_ID_IN_TEXT
from .core_loop import CoreLoop
from .lookup import NoteText, read_note

if TYPE_CHECKING:
    from ..vault.store import VaultStore

MAX_LIMIT = 50


@dataclass
class Recalled:
    """One excerpt of long-term memory: where it is, and the events it cites."""
    uuid: str
    path: str
    title: str
    text: str
    events: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"uuid": self.uuid, "path": self.path, "title": self.title, "excerpt": self.text, "events": self.events}


@dataclass
class Recall:
    query: str
    queries: list[str]
    excerpts: list[Recalled]

    def as_dict(self) -> dict:
        return {"query": self.query, "queries": self.queries, "excerpts": [e.as_dict() for e in self.excerpts]}


def checked_limit(limit: object, default: int) -> int:
    if limit is None:
        return default
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InputError(f"limit must be a whole number from 1 to {MAX_LIMIT}")
    return limit


def search(index: SearchIndex, query: str, *, limit: int = 10, kind: str | None = None, archived: bool = False,
           sync: bool = True) -> list[Hit]:
    """`braniac search`'s hits: archived memories only when asked for."""
    checked_text(query, "the query")
    return index.search(query, limit=checked_limit(limit, 10), kind=kind, sync=sync,
                        exclude_kinds=() if archived else ("archive",))


class Recaller:
    """Recall and search over one warm search index. `changes` (a watcher's ChangeFeed) lets
    each call sync only what changed on disk since the last one."""

    def __init__(self, vault: "VaultStore", config: Config, *, changes=None):
        self.loop = CoreLoop(vault, OfflineModel(), config)
        self.loop.changes = changes
        self._lock = threading.Lock()   # one Whoosh searcher and one change feed, many callers

    def recall(self, query: str, *, limit: int | None = None) -> Recall:
        if not isinstance(query, str):
            raise InputError("the query must be text")
        wanted = checked_limit(limit, self.loop.config.search_limit)
        with self._lock:
            # the host has not read short-term memory: what was just said competes with the notes
            turn, _wm = self.loop.prepare(query, limit=wanted, short_term_in_excerpts=True)
        excerpts = [Recalled(e.uuid, e.path, e.title, e.text, list(dict.fromkeys(EVENT_ID_IN_TEXT.findall(e.text))))
                    for e in turn.excerpts[:wanted]]
        return Recall(query, turn.queries, excerpts)

    def search(self, query: str, *, limit: int = 10, kind: str | None = None, archived: bool = False) -> list[Hit]:
        with self._lock:
            self.loop.sync()
            return search(self.loop.index, query, limit=limit, kind=kind, archived=archived, sync=False)

    def read(self, ref: str) -> NoteText:
        with self._lock:
            self.loop.sync()
            return read_note(self.loop.vault, self.loop.index, ref)

    def close(self) -> None:
        with self._lock:
            if self.loop.changes is not None:
                self.loop.changes.close()
            self.loop.close()

    def __enter__(self) -> "Recaller":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
