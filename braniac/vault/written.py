"""When a person last wrote a note: what a hand correction, or a note of their own that states a
value, is dated by against what they said to braniac. A file's mtime says it, but a checkout (a
clone on a second machine, a sync, switching branches) sets the mtime of every file it writes to
that moment; for a file git holds unchanged, the time of the last commit that changed it is
taken when it is earlier."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from ..infra import git

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
        if len(_cache) >= _CACHE_SIZE:
            _cache.clear()
        _cache[key] = found
    return _cache[key]
