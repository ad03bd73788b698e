"""Long-term memory notes: Markdown with YAML frontmatter, read and written faithfully.

YAML's safe loader parses the frontmatter (refusing alias bombs), but braniac keeps the
frontmatter text and the body as they were: changing one field rewrites only that field's
line, so key order, comments, unknown keys and every byte of the body survive and `git diff`
shows one line.
"""
from __future__ import annotations

import re
import unicodedata
import uuid as uuidlib
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from ..infra import clock
from ..infra.errors import NoteError
from ..infra.fsio import atomic_write, read_text
from .frontmatter_text import replace_key, yaml_scalar

REQUIRED_KEYS = ("uuid", "created_at", "updated_at", "tags", "emotion")
# The order braniac writes keys in when it creates a note.
KEY_ORDER = ("uuid", "title", "created_at", "updated_at", "tags", "emotion", "status", "sources")

_LONE_LF = re.compile(r"(?<!\r)\n")
_FENCE = re.compile(r"\A\ufeff?---[ \t]*\r?\n")   # a byte-order mark first (Notepad) stays first
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
MAX_YAML_VALUES = 10_000    # a note's frontmatter holds a few dozen; aliases may not multiply them


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """YAML's safe loader (what python-frontmatter uses), refusing a document whose aliases
    expand past MAX_YAML_VALUES values or refer to themselves: a 1 KB "billion laughs" note
    would otherwise make every reader of its tags or title run out of time or memory."""

    def construct_document(self, node: yaml.Node) -> Any:
        _check_expansion(node)
        return super().construct_document(node)


def _check_expansion(root: yaml.Node) -> None:
    """Count the values `root` stands for once every alias is expanded (each node once, its
    size remembered, so the count itself is cheap)."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if isinstance(node, yaml.ScalarNode):
            sizes[key] = 1
            continue
        children = node.value if isinstance(node, yaml.SequenceNode) else [n for pair in node.value for n in pair]
        if children_done:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > MAX_YAML_VALUES:
                raise yaml.constructor.ConstructorError(
                    None, None, f"aliases expand to more than {MAX_YAML_VALUES} values (refused: a YAML alias bomb?)",
                    node.start_mark)
            continue
        if key in sizes:
            continue
        on_path.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in on_path:
                raise yaml.constructor.ConstructorError(
                    None, None, "an alias refers to the value that contains it (refused)", child.start_mark)
            if id(child) not in sizes:
                stack.append((child, False))


@dataclass
class Note:
    """One memory file. `meta` is the parsed frontmatter; `frontmatter_text` and `body` are raw."""

    meta: dict[str, Any]
    body: str
    frontmatter_text: str = ""
    path: Path | None = None
    # The fence lines as read ('---\r\n', '...', no final newline…), so render() gives the
    # file back byte for byte; '' when the file had no frontmatter at all.
    fence_open: str = "---\n"
    fence_close: str = "---\n"
    # every line of the file as read ended in '\r\n' (Windows editors, git's autocrlf): what
    # braniac adds ends so too, so the file is not left with two kinds of line ending
    crlf: bool = False

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(cls, *, title: str, body: str, tags: list[str] | None = None, emotion: str = "neutral",
            extra: dict[str, Any] | None = None, note_uuid: str | None = None) -> "Note":
        stamp = clock.iso(clock.now())
        meta: dict[str, Any] = {
            "uuid": note_uuid or str(uuidlib.uuid4()),
            "title": title,
            "created_at": stamp,
            "updated_at": stamp,
            "tags": list(tags or []),
            "emotion": emotion,
        }
        meta.update(extra or {})
        ordered = {k: meta[k] for k in KEY_ORDER if k in meta}
        ordered.update({k: v for k, v in meta.items() if k not in ordered})
        text = "".join(f"{key}: {yaml_scalar(value, key=key)}\n" for key, value in ordered.items())
        return cls(meta=ordered, body=body, frontmatter_text=text)

    # ------------------------------------------------------------------ accessors
    # A person may write any YAML: `tags: 12`, `title: 2025-03-01`, `uuid: [a]`. Every reader
    # goes through these accessors, which give each key the type braniac works with (doctor
    # reports the odd ones, `problems`), so no reader meets an int where it wants a list.
    @property
    def uuid(self) -> str:
        return self.text("uuid")

    @property
    def title(self) -> str:
        title = self.text("title")
        if title:
            return title
        heading = re.search(r"^#\s+(.+?)\s*#*\s*$", self.body, re.MULTILINE)
        if heading:
            return heading.group(1)
        return self.path.stem.replace("-", " ") if self.path else ""

    @property
    def tags(self) -> list[str]:
        """The tags as words, whatever YAML the person wrote: a list, `a, b`, a lone `12`."""
        tags = self.meta.get("tags")
        if isinstance(tags, str):
            return [t.strip() for t in tags.split(",") if t.strip()]
        items = tags if isinstance(tags, list) else [tags]
        return [text for text in map(scalar_text, items) if text]

    def time(self, key: str) -> datetime | None:
        return as_datetime(self.meta.get(key))

    def text(self, key: str) -> str:
        """A one-value key as the text written after `key:`, whatever YAML makes of it: an id
        written unquoted (older archived events) reads back as a date, `title: 12` as a number.
        A list or a mapping (doctor reports it) is ''."""
        value = self.meta.get(key)
        if isinstance(value, str):
            return value
        if value is None or isinstance(value, (list, dict)):
            return ""
        line = re.search(rf"^{re.escape(key)}[ \t]*:[ \t]*(\S+)[ \t]*$", self.frontmatter_text, re.MULTILINE)
        return line.group(1).strip("'\"") if line else scalar_text(value)

    # ------------------------------------------------------------------ editing
    def set(self, key: str, value: Any) -> None:
        """Change one frontmatter field; only its line(s) change when the note is rendered."""
        self.meta[key] = value
        self.frontmatter_text = replace_key(self.frontmatter_text, key, value)

    def touch(self) -> None:
        self.set("updated_at", clock.iso(clock.now()))

    def render(self) -> str:
        if not self.fence_open and not self.frontmatter_text:
            # a file without frontmatter stays one until a field is set
            return _LONE_LF.sub("\r\n", self.body) if self.crlf else self.body
        body, mark = (self.body[1:], "\ufeff") if not self.fence_open and self.body.startswith("\ufeff") else (self.body, "")
        text = mark + (self.fence_open or "---\n") + self.frontmatter_text + (self.fence_close or "---\n") + body
        return _LONE_LF.sub("\r\n", text) if self.crlf else text

    # ------------------------------------------------------------------ validation
    def problems(self) -> list[str]:
        """What makes this note not a valid memory file (vault-format.md §3), one reason per entry."""
        found = []
        for key in REQUIRED_KEYS:
            if key not in self.meta or self.meta[key] in (None, ""):
                found.append(f"missing required frontmatter key '{key}'")
        if "uuid" in self.meta and not isinstance(self.meta["uuid"], str):
            found.append("'uuid' must be a string")
        for key in ("created_at", "updated_at"):
            if self.meta.get(key) not in (None, "") and as_datetime(self.meta[key]) is None:
                found.append(f"'{key}' is not an ISO 8601 timestamp: {self.meta[key]!r}")
        tags = self.meta.get("tags")
        if tags is not None and not (isinstance(tags, list) and all(isinstance(t, (str, int, float)) for t in tags)):
            found.append("'tags' must be a list of words")
        if self.meta.get("emotion") is not None and not isinstance(self.meta["emotion"], str):
            found.append("'emotion' must be a single word")
        for key in ("title", "status", "description", "event_id", "summary_by"):
            if isinstance(self.meta.get(key), (list, dict)):
                found.append(f"'{key}' must be a single value, not a {type(self.meta[key]).__name__}")
        sources = self.meta.get("sources")
        if sources is not None and not (isinstance(sources, list) and all(isinstance(s, (str, datetime)) for s in sources)):
            found.append("'sources' must be a list of event ids")
        return found


# ---------------------------------------------------------------------- parse / read / write

def split_frontmatter(text: str, *, path: Path | None = None) -> tuple[str, str, str, str]:
    """(opening fence, frontmatter text, closing fence, body), the YAML left unparsed (what
    retrieval needs when the index already knows the title and uuid). No frontmatter: the
    whole text is the body. Raises NoteError for a fence that is never closed."""
    opening = _FENCE.match(text)
    if not opening:
        return "", "", "", text
    closing = _CLOSE.search(text, opening.end())
    if not closing:
        raise NoteError(f"{path or '<note>'}:1: frontmatter opened with '---' is never closed")
    after = closing.end()
    if text.startswith("\r\n", after):
        after += 2
    elif text.startswith("\n", after):
        after += 1
    return text[:opening.end()], text[opening.end():closing.start()], text[closing.start():after], text[after:]


def body_of(text: str) -> str:
    """A note's body without parsing its YAML (search excerpts, retrieval's passages); with a
    frontmatter fence that is never closed, the whole text."""
    try:
        return split_frontmatter(text)[3]
    except NoteError:
        return text


def parse(text: str, *, path: Path | None = None) -> Note:
    """Split and parse a note. Raises NoteError naming the file and line for broken YAML."""
    where = str(path) if path else "<note>"
    fence_open, fm_text, fence_close, body = split_frontmatter(text, path=path)
    crlf = "\r\n" in text and not _LONE_LF.search(text)
    if not fence_open:
        return Note(meta={}, body=text, frontmatter_text="", path=path, fence_open="", fence_close="", crlf=crlf)
    try:
        meta = yaml.load(fm_text, Loader=_Loader) if fm_text.strip() else {}
    except Exception as exc:  # noqa: BLE001
        # Not only YAMLError: PyYAML raises ValueError for a date Python rejects (2025-02-30),
        # AttributeError for `!!timestamp x`, RecursionError for absurd nesting. All of them
        # are broken frontmatter in a person's file, not a crash.
        mark = getattr(exc, "problem_mark", None) or _unbuildable_value(fm_text)
        line = mark.line + 2 if mark is not None else 1  # +1 for 0-based, +1 for the '---' line
        reason = getattr(exc, "problem", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
        raise NoteError(f"{where}:{line}: broken YAML frontmatter: {reason}") from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise NoteError(f"{where}:2: frontmatter must be a mapping of keys to values")
    return Note(meta=meta, body=body, frontmatter_text=fm_text, path=path,
                fence_open=fence_open, fence_close=fence_close, crlf=crlf)


def _unbuildable_value(fm_text: str) -> "yaml.Mark | None":
    """Where the first value is that YAML parses but Python cannot build (a ValueError has no mark)."""
    try:
        root = yaml.compose(fm_text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return None
    scalars, todo = [], [root] if root is not None else []
    while todo:
        node = todo.pop()
        if isinstance(node, yaml.ScalarNode):
            scalars.append(node)
        elif isinstance(node, yaml.SequenceNode):
            todo.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            todo.extend(n for pair in node.value for n in pair)
    builder = yaml.SafeLoader("")
    for node in sorted(scalars, key=lambda n: n.start_mark.index):
        try:
            builder.construct_object(node)
        except Exception:  # noqa: BLE001 - see parse()
            return node.start_mark
    return None


def read(path: Path) -> Note:
    return parse(read_text(path), path=Path(path))


def write(note: Note, path: Path | None = None) -> Path:
    target = Path(path or note.path)
    atomic_write(target, note.render())
    note.path = target
    return target


def scalar_text(value: Any) -> str:
    """A frontmatter value that should be one string, as one: a string as it is, a number or a
    boolean as YAML writes it, a date in ISO form; a list, a mapping or nothing is ''."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return clock.iso(value if value.tzinfo else value.replace(tzinfo=timezone.utc))
    if isinstance(value, (date, int, float)):
        return value.isoformat() if isinstance(value, date) else str(value)
    return ""


def as_datetime(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if isinstance(value, str):
        try:
            return clock.parse_iso(value)
        except ValueError:
            return None
    return None


# ---------------------------------------------------------------------- file names

def slugify(title: str, *, max_length: int = 60) -> str:
    """A readable file-name slug: lowercase words joined by dashes, unicode letters kept."""
    text = unicodedata.normalize("NFKC", title).lower()
    text = re.sub(r"[^\w]+", "-", text, flags=re.UNICODE).strip("-_")
    text = text[:max_length].rstrip("-_")
    return text or "note"


def unique_path(folder: Path, title: str, suffix: str = ".md") -> Path:
    """`folder/<slug>.md`, with -2, -3 … appended if that name is taken."""
    base = slugify(title)
    candidate = folder / f"{base}{suffix}"
    n = 2
    while candidate.exists() or candidate.name == "_index.md":
        candidate = folder / f"{base}-{n}{suffix}"
        n += 1
    return candidate
