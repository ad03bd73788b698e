"""A person editing the vault while braniac works: the edits (a line in a section of their own, a
key fact, a task, a line added to an event) and the two ways editors save.

- `save_by_rename`: the whole new text to a temp file beside it, then renamed over the file
  (most editors, Obsidian included).
- `save_in_place`: the file truncated, then written in chunks 2-20 ms apart (editors saving a
  large file, or over a network share).

A careful editor: each save starts from a fresh read, and is abandoned if the file changed on
disk since (the editor would reload it). A save that completes is the person's: every line it
added must stay in the vault. The only race left to the person is the microseconds between
that check and the rename or the truncate.
"""
from __future__ import annotations

import os
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Save:
    path: str            # vault-relative
    method: str          # "rename" | "in-place"
    started: float
    ended: float
    outcome: str         # "saved" | "changed-on-disk" | "gone" | "failed: …"
    line: str


def _stamp(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def read_for_edit(path: Path) -> tuple[str, tuple] | None:
    stamp = _stamp(path)
    if stamp is None:
        return None
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return (text, stamp) if _stamp(path) == stamp else None


def save_by_rename(path: Path, text: str, stamp: tuple) -> str:
    temp = path.with_name(f".{path.name}.person~")
    temp.write_text(text, encoding="utf-8")
    if _stamp(path) != stamp:
        temp.unlink()
        return "changed-on-disk" if path.exists() else "gone"
    os.replace(temp, path)
    return "saved"


def save_in_place(path: Path, text: str, stamp: tuple, rng: random.Random) -> str:
    data = text.encode("utf-8")
    cuts = sorted(rng.sample(range(1, max(2, len(data))), k=min(rng.randint(1, 4), max(1, len(data) - 1))))
    chunks = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
    try:
        fd = os.open(path, os.O_WRONLY)      # never creates: a file moved away is not recreated
    except FileNotFoundError:
        return "gone"
    try:
        if os.fstat(fd).st_ino != stamp[0] or _stamp(path) != stamp:
            return "changed-on-disk"
        os.ftruncate(fd, 0)
        for n, chunk in enumerate(chunks):
            if n:
                time.sleep(rng.uniform(0.002, 0.02))
            os.write(fd, chunk)
        os.fsync(fd)
    finally:
        os.close(fd)
    return "saved"


# ------------------------------------------------------------------------------ the edits

_ONSETS = "b d f g k l m n p r s t v z".split()
_VOWELS = "a e i o u".split()


def words(rng: random.Random, n: int) -> str:
    """`n` made-up words (three syllables each): a person's lines never restate one another,
    so no merging of similar claims may be taken for a lost line."""
    return " ".join("".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(3)) for _ in range(n))


def add_own_line(text: str, line: str) -> str:
    """A line at the end of the person's own `## By hand` section (made at the end if missing)."""
    match = re.search(r"^## By hand\n", text, re.M)
    if not match:
        return text.rstrip("\n") + f"\n\n## By hand\n{line}\n"
    rest = text[match.end():]
    nxt = re.search(r"^## ", rest, re.M)
    end = match.end() + (nxt.start() if nxt else len(rest))
    body = text[match.end():end].rstrip("\n")
    return text[:match.end()] + (body + "\n" if body else "") + line + "\n" + ("\n" if nxt else "") + text[end:]


def add_list_item(text: str, heading: str, item: str) -> str | None:
    """`item` at the top of the STM list under `### heading` (None when there is no such list)."""
    match = re.search(rf"^### {re.escape(heading)}[ \t]*\n", text, re.M)
    if not match:
        return None
    return text[:match.end()] + item + "\n" + text[match.end():]


def annotate_event(text: str, event_id: str, line: str) -> str | None:
    """`line` after the last line of the event `### event_id` (None when it is not there)."""
    log_at = text.find("\n## Event Log")
    if log_at < 0:
        return None
    match = re.compile(rf"^### {re.escape(event_id)}[ \t]*\n", re.M).search(text, log_at)
    if not match:
        return None
    nxt = re.compile(r"^#{2,3} ", re.M).search(text, match.end())
    end = nxt.start() if nxt else len(text)
    block = text[match.end():end]
    kept = block.rstrip("\n")
    return text[:match.end()] + kept + "\n" + line + "\n" + ("\n" if nxt else "") + text[end:]
