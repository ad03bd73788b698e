"""The events archived on one day, in time order: what retrieval reads to pull in a turn's
neighbours (the question an answer follows) and the events of a day a prompt names."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..vault.layout import event_day, event_day_rel, event_id_of_file, event_order

if TYPE_CHECKING:
    from ..vault.store import VaultStore

_DAYS_KEPT = 4096         # day folders whose events' order is kept
_days: dict[str, tuple[int, dict[str, tuple[str | None, str | None]]]] = {}


def person_day(event_id: str) -> str:
    """The person's day of an event (see layout.event_day), as an ISO date."""
    try:
        return event_day(event_id).isoformat()
    except ValueError:
        return event_id[:10]


def day_events(folder: str) -> dict[str, tuple[str | None, str | None]]:
    """event id -> (previous, next) event archived in one day's folder, in time order (cached by
    the folder's mtime, which moves when an event is added)."""
    try:
        stamp = os.stat(folder).st_mtime_ns
    except OSError:
        return {}
    cached = _days.get(folder)
    if cached is None or cached[0] != stamp:
        try:
            ids = sorted(filter(None, (event_id_of_file(n) for n in os.listdir(folder))), key=event_order)
        except OSError:
            ids = []
        around = {e: (ids[i - 1] if i else None, ids[i + 1] if i + 1 < len(ids) else None) for i, e in enumerate(ids)}
        cached = (stamp, around)
        if len(_days) >= _DAYS_KEPT:
            _days.pop(next(iter(_days)))
        _days[folder] = cached
    return cached[1]


def event_folder(vault: "VaultStore", event_id: str) -> str:
    """The folder an event (or a day, 'YYYY-MM-DDT') is archived in."""
    return f"{vault.root}{os.sep}{event_day_rel(event_id)}"
