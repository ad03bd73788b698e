"""When a person last wrote a note: what a hand correction, or a note of their own that states a
value, is dated by against what they said to braniac. A file's mtime says it, but a checkout (a
clone on a second machine, a sync, switching branches) sets the mtime of every file it writes to
that moment; for a file git holds unchanged, the time of the last commit that changed it is
taken when it is earlier, and so is the `updated_at` (or `created_at`) of its frontmatter, which
braniac's adoption keeps when it rewrites the file to add its keys. A note holds many lines, and
an edit of any of them makes the file new: what this date says is "written no later than"."""
from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from ..infra import git
from . import notes

# the keys braniac dates a note by, read without parsing the YAML (a turn reads a few notes' heads)
_DATED = re.compile(r"^(?:updated_at|created_at):\s*['\"]?(\d{4}-\d{2}-\d{2}[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)", re.M)

_cache: dict[tuple[str, int, int], datetime] = {}
_CACHE_SIZE = 4096


def last_written(root: Path, rels: list[str], *, git_after: datetime | None = None) -> dict[str, datetime]:
    """Each note's date (those that cannot be read are left out); git is asked, once for all of
    them, only about the files whose own dates are later than `git_after`, if given: of the
    others, git could change nothing."""
    out: dict[str, datetime] = {}
    asked: list[tuple[str, tuple[str, int, int], datetime]] = []
    for rel in dict.fromkeys(rels):
        path = root / rel
        try:
            st = path.stat()
        except OSError:
            continue
        key = (str(path), st.st_mtime_ns, st.st_size)
        if key in _cache:
            out[rel] = _cache[key]
            continue
        own = min([datetime.fromtimestamp(st.st_mtime, timezone.utc), *_front_dates(path)])
        if git_after is not None and own <= git_after:
            out[rel] = own   # (not kept: a later call may need git's word)
        else:
            asked.append((rel, key, own))
    committed = git.committed_unchanged(root, [rel for rel, _key, _own in asked])
    if len(_cache) + len(asked) >= _CACHE_SIZE:
        _cache.clear()
    for rel, key, own in asked:
        when = committed.get(rel)
        out[rel] = _cache[key] = min(own, datetime.fromtimestamp(when, timezone.utc)) if when is not None else own
    return out


def _front_dates(path: Path) -> list[datetime]:
    try:
        with open(path, "rb") as handle:
            head = handle.read(2048).decode("utf-8", "replace")
    except OSError:
        return []
    # (the head's frontmatter, though its closing fence lies past what was read)
    frontmatter = head.split("\n---", 1)[0] if head.startswith("---") else ""
    return [when for when in map(notes.as_datetime, _DATED.findall(frontmatter)) if when is not None]
