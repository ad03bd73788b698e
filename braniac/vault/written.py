"""When a person last wrote a note: what a hand correction, or a note of their own that states a
value, is dated by against what they said to braniac. A file's mtime says it, but a checkout (a
clone on a second machine, a sync, switching branches) sets the mtime of every file it writes to
that moment; for a file git holds unchanged, the time of the last commit that changed it is
taken when it is earlier, and so is the `updated_at` (or `created_at`) of its frontmatter, which
braniac's adoption keeps when it rewrites the file to add its keys. A note holds many lines, and
an edit of any of them makes the file new: what this date says is "written no later than"."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import re

from ..infra import git

_DATED = re.compile(r"^(?:updated_at|created_at):\s*['\"]?(\d{4}-\d{2}-\d{2}[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)", re.M)

_cache: dict[tuple[str, int, int], datetime] = {}
_CACHE_SIZE = 4096


def last_written(root: Path, rel: str) -> datetime | None:
    path = root / rel
    try:
        st = path.stat()
    except OSError:
        return None
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _cache:
        found = datetime.fromtimestamp(st.st_mtime, timezone.utc)
        committed = git.committed_unchanged(root, rel)
        if committed is not None:
            found = min(found, datetime.fromtimestamp(committed, timezone.utc))
        found = min([found, *_front_dates(path)])
        if len(_cache) >= _CACHE_SIZE:
            _cache.clear()
        _cache[key] = found
    return _cache[key]


def _front_dates(path: Path) -> list[datetime]:
    try:
        with open(path, "rb") as handle:
            head = handle.read(2048).decode("utf-8", "replace")
    except OSError:
        return []
    if not head.startswith("---"):
        return []
    found = []
    for stamp in _DATED.findall(head.split("\n---", 1)[0]):
        try:
            when = datetime.fromisoformat(stamp.replace("Z", "+00:00").replace(" ", "T"))
        except ValueError:
            continue
        found.append(when if when.tzinfo else when.replace(tzinfo=timezone.utc))
    return found
