"""Short-term memory: `memory/short_term.md` in the structure of vault-format.md §5.

The document is kept as raw text cut into pieces (sections, sub-sections, events), so
render(parse(x)) == x for any file, and whatever a person wrote (extra sections, reordered
lists, free text, hand-written events) survives every change braniac makes. Changes touch one
piece: a new event goes on top of the Event Log, a list item goes at the end of its list. The
Summary is only ever replaced by promotion (vault-format.md §5.1).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..infra.errors import STMError
from .layout import event_order

TITLE = "# Short-Term Memory Scratchpad"
SUMMARY, STRUCTURED, EVENT_LOG = "Summary", "Structured Data", "Event Log"
GOALS, FACTS, TASKS = "Goals", "Key Facts & Decisions", "Tasks"
LISTS = (GOALS, FACTS, TASKS)
CHECKBOX_LISTS = (GOALS, TASKS)
QUOTED_FIELDS = ("User", "AI")  # what was said is quoted, not the thoughts (vault-format.md §5.3)

_FIELD = re.compile(r"^\*\*(?P<name>[^*\n]+?):\*\*[ \t]?(?P<value>.*)$")
_ITEM = re.compile(r"^(?P<indent>[ \t]*)[-*+][ \t]+(?:\[(?P<mark>[ xX])\][ \t]+)?(?P<text>.*?)[ \t]*$")
_LOG_INTRO = "A reverse-chronological log of recent interactions. New events are appended to the top.\n\n"
_CHECKBOX_START = re.compile(r"\\*\[[ xX]\][ \t]")  # "[x] …" (or "\[x] …") at the start of a plain item


def split_lines(text: str) -> list[str]:
    """Lines with their '\\n' kept; only '\\n' ends a line (never \\u2028 and friends)."""
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def unclosed_fence(text: str) -> int | None:
    """1-based line of a ``` / ~~~ fence that is never closed (it hides every heading after it)."""
    fence, opened = None, None
    for i, line in enumerate(split_lines(text)):
        stripped = line.lstrip(" ")
        if len(line) - len(stripped) <= 3 and stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence, opened = (None, None) if fence == marker else (fence or marker, opened or i + 1)
    return opened


def _headings(lines: list[str], prefix: str) -> list[int]:
    """Indexes of lines starting with `prefix` (e.g. '## '), ignoring fenced code blocks."""
    found, fence = [], None
    for i, line in enumerate(lines):
        stripped = line.lstrip(" ")
        if len(line) - len(stripped) <= 3 and stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = None if fence == marker else (fence or marker)
            continue
        if fence is None and line.startswith(prefix):
            found.append(i)
    return found


@dataclass
class Block:
    """A piece of the file: its heading text (None for a preamble) and its raw lines."""
    name: str | None
    raw: str

    @property
    def body(self) -> str:
        return self.raw.split("\n", 1)[1] if self.name is not None and "\n" in self.raw else ("" if self.name else self.raw)


def _split(text: str, prefix: str) -> list[Block]:
    lines = split_lines(text)
    starts = _headings(lines, prefix)
    blocks = []
    if not starts or starts[0] > 0:
        blocks.append(Block(None, "".join(lines[: starts[0] if starts else len(lines)])))
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        blocks.append(Block(lines[start][len(prefix):].strip(), "".join(lines[start:end])))
    return blocks


# ------------------------------------------------------------------------------ events

@dataclass
class Event:
    """One `### <id>` entry of the Event Log."""
    id: str
    raw: str

    @property
    def fields(self) -> dict[str, str]:
        """`**Name:** value` fields, decoded (quotes and block-quote markers removed)."""
        fields: dict[str, list[str]] = {}
        current = None
        for line in split_lines(self.raw)[1:]:
            match = _FIELD.match(line.rstrip("\n"))
            if match:
                current = match["name"].strip()
                fields[current] = [match["value"]]
            elif current is not None:
                fields[current].append(line.rstrip("\n"))
        return {name: _decode(name, parts) for name, parts in fields.items()}

    @property
    def text(self) -> str:
        """The event as plain words (fields joined), for search and promotion."""
        fields = self.fields
        if not fields:
            return self.raw.split("\n", 1)[1].strip() if "\n" in self.raw else ""
        return "\n".join(f"{name}: {value}" for name, value in fields.items())


def event_key(event: Event) -> tuple[str, str]:
    """What makes two events the same one: the id and the text (blank lines around it aside)."""
    return event.id, event.raw.strip()


def _decode(name: str, parts: list[str]) -> str:
    first, rest = parts[0], parts[1:]
    while rest and not rest[-1].strip():
        rest.pop()
    if not rest:
        value = first.strip()
        if name in QUOTED_FIELDS and len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        return value
    if all(not line.strip() or line.lstrip().startswith(">") for line in rest):
        rest = [re.sub(r"^[ \t]*> ?", "", line) if line.strip() else "" for line in rest]
    lines = ([first.strip()] if first.strip() else []) + rest
    return "\n".join(lines).strip("\n")


def _encode(name: str, value: str) -> str:
    value = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    if "\n" not in value:
        shown = f'"{value}"' if name in QUOTED_FIELDS else value
        return f"**{name}:** {shown}\n"
    quoted = "".join(f"> {line}\n" if line else ">\n" for line in value.split("\n"))
    return f"**{name}:**\n{quoted}\n"  # blank line: the next field must not join the quote


def render_event(event_id: str, fields: dict[str, str]) -> str:
    return f"### {event_id}\n" + "".join(_encode(k, v) for k, v in fields.items() if v is not None) + "\n"


# ------------------------------------------------------------------------------ the document

@dataclass
class Item:
    text: str
    done: bool | None  # None for a plain bullet (Key Facts), True/False for a checkbox


@dataclass
class ShortTermMemory:
    blocks: list[Block] = field(default_factory=list)

    # ------------------------------------------------------------- reading
    def block(self, name: str) -> Block | None:
        return next((b for b in self.blocks if b.name == name), None)

    @property
    def summary(self) -> str:
        block = self.block(SUMMARY)
        return _strip_rule(block.body).strip() if block else ""

    @property
    def events(self) -> list[Event]:
        block = self.block(EVENT_LOG)
        if block is None:
            return []
        return [Event(b.name or "", b.raw) for b in _split(block.body, "### ") if b.name is not None]

    def items(self, list_name: str) -> list[Item]:
        block = self.block(STRUCTURED)
        if block is None:
            return []
        sub = next((b for b in _split(block.body, "### ") if b.name == list_name), None)
        if sub is None:
            return []
        found = []
        for line in split_lines(sub.body):
            match = _ITEM.match(line.rstrip("\n"))
            if match and not match["indent"] and match["text"]:
                mark, text = match["mark"], match["text"]
                found.append(Item(text if mark else _unescaped(text), None if mark is None else mark.lower() == "x"))
        return found

    def missing_sections(self) -> list[str]:
        missing = [name for name in (SUMMARY, STRUCTURED, EVENT_LOG) if self.block(name) is None]
        structured = self.block(STRUCTURED)
        if structured is not None:
            subs = {b.name for b in _split(structured.body, "### ")}
            missing += [f"{STRUCTURED} / {name}" for name in LISTS if name not in subs]
        return missing

    def render(self) -> str:
        return "".join(b.raw for b in self.blocks)

    # ------------------------------------------------------------- changing
    def add_event(self, event_id: str, fields: dict[str, str]) -> Event:
        """Put a new event at the top of the Event Log (the log is newest first)."""
        if any(e.id == event_id for e in self.events):
            raise STMError(f"event id {event_id} is already in short-term memory")
        raw = render_event(event_id, fields)
        saved = self._copy_blocks()
        block = self._ensure_block(EVENT_LOG, _LOG_INTRO)
        parts = _split(block.body, "### ")
        if parts and parts[0].name is None:
            intro = parts[0]
            if intro.raw and not intro.raw.endswith("\n\n"):
                intro.raw = intro.raw.rstrip("\n") + "\n\n"
            parts.insert(1, Block(event_id, raw))
        else:
            parts.insert(0, Block(event_id, raw))
        self._set_body(block, "".join(p.raw for p in parts))
        if not any(e.id == event_id for e in parse(self.render()).events):
            self.blocks = saved
            raise STMError(self._hidden("the new event"))
        return Event(event_id, raw)

    def remove_events(self, ids: set[str]) -> list[Event]:
        """Take the given events out of the log (promotion), returning them."""
        block = self.block(EVENT_LOG)
        if block is None:
            return []
        parts = _split(block.body, "### ")
        removed = [Event(p.name or "", p.raw) for p in parts if p.name in ids]
        self._set_body(block, "".join(p.raw for p in parts if p.name is None or p.name not in ids))
        return removed

    def restore_event(self, event: Event) -> None:
        """Put a promoted event back, verbatim, at its place by time (`braniac undo`): above the
        first event that is older (ids are ISO times, compared in time order: see event_order)."""
        if any(e.id == event.id for e in self.events):
            return
        saved = self._copy_blocks()
        block = self._ensure_block(EVENT_LOG, _LOG_INTRO)
        parts = _split(block.body, "### ")
        at = next((i for i, p in enumerate(parts) if p.name is not None and event_order(p.name) < event_order(event.id)), len(parts))
        if at and not parts[at - 1].raw.endswith("\n\n"):
            parts[at - 1].raw = parts[at - 1].raw.rstrip("\n") + "\n\n"
        parts.insert(at, Block(event.id, event.raw.rstrip("\n") + "\n\n"))
        self._set_body(block, "".join(p.raw for p in parts))
        if not any(e.id == event.id for e in parse(self.render()).events):
            self.blocks = saved
            raise STMError(self._hidden(f"the restored event {event.id}"))

    def remove_exact(self, events: list[Event]) -> None:
        """Take these events out of the log, each only as it was read (`event_key`): another
        event with one of their ids, or one edited meanwhile, stays."""
        block = self.block(EVENT_LOG)
        if block is None:
            return
        gone = {event_key(e) for e in events}
        parts = _split(block.body, "### ")
        kept = [p for p in parts if p.name is None or event_key(Event(p.name, p.raw)) not in gone]
        self._set_body(block, "".join(p.raw for p in kept))

    def add_item(self, list_name: str, text: str, *, done: bool | None = None) -> None:
        """Add a line to Goals, Key Facts & Decisions or Tasks, after the list's last item."""
        if list_name not in LISTS:
            raise STMError(f"unknown list {list_name!r}; expected one of {', '.join(LISTS)}")
        text = " ".join(text.split())
        if not text:
            return
        if any(item.text == text for item in self.items(list_name)):
            return
        if done is None and list_name in CHECKBOX_LISTS:
            done = False
        line = _item_line(text, done)
        saved = self._copy_blocks()
        structured = self._ensure_block(STRUCTURED, "This section contains discrete, machine-readable data for immediate use.\n\n")
        subs = _split(structured.body, "### ")
        sub = next((b for b in subs if b.name == list_name), None)
        if sub is None:
            sub = Block(list_name, f"### {list_name}\n")
            if subs:
                # keep the section's closing '---' rule after the list we add
                last = subs[-1]
                rule = re.search(r"\n(-{3,}[ \t]*\n?)\Z", last.raw.rstrip(" \t\n") + "\n")
                if rule:
                    last.raw = last.raw.rstrip(" \t\n")[: -len(rule.group(1).rstrip())].rstrip("\n") + "\n\n"
                    sub.raw += "\n" + rule.group(1)
                elif not last.raw.endswith("\n\n"):
                    last.raw = last.raw.rstrip("\n") + "\n\n"
            subs.append(sub)
        lines = split_lines(sub.raw)
        last_item = max((i for i, l in enumerate(lines) if _ITEM.match(l.rstrip("\n"))), default=0)
        if not lines[last_item].endswith("\n"):
            lines[last_item] += "\n"
        lines.insert(last_item + 1, line)
        if last_item + 2 >= len(lines):
            lines.append("\n")
        sub.raw = "".join(lines)
        self._set_body(structured, "".join(b.raw for b in subs))
        if not any(item.text == text for item in parse(self.render()).items(list_name)):
            self.blocks = saved
            raise STMError(self._hidden(f"the new {list_name} item"))

    def set_item_done(self, list_name: str, text: str, done: bool = True) -> bool:
        return self._rewrite_item(list_name, lambda m: m["mark"] is not None and m["text"] == text,
                                  lambda line: re.sub(r"\[[ xX]\]", "[x]" if done else "[ ]", line, count=1))

    def replace_item(self, list_name: str, text: str, new_text: str) -> bool:
        """Rewrite a plain item (a key fact) in its place."""
        new_text = " ".join(new_text.split())
        return bool(new_text) and self._rewrite_item(
            list_name, lambda m: m["mark"] is None and not m["indent"] and _unescaped(m["text"]) == text,
            lambda line: _item_line(new_text, None))

    def _rewrite_item(self, list_name: str, is_it, rewrite) -> bool:
        structured = self.block(STRUCTURED)
        if structured is None:
            return False
        subs = _split(structured.body, "### ")
        for sub in subs:
            if sub.name != list_name:
                continue
            lines = split_lines(sub.raw)
            for i, line in enumerate(lines):
                match = _ITEM.match(line.rstrip("\n"))
                if match and is_it(match):
                    lines[i] = rewrite(line)
                    sub.raw = "".join(lines)
                    self._set_body(structured, "".join(b.raw for b in subs))
                    return True
        return False

    # ------------------------------------------------------------- helpers
    def _copy_blocks(self) -> list[Block]:
        return [Block(b.name, b.raw) for b in self.blocks]

    def _hidden(self, what: str) -> str:
        """Why a change would not be visible: a code fence a person left open swallows it."""
        line = unclosed_fence(self.render())
        where = f"the code fence opened on line {line} is never closed" if line else "its structure is broken"
        return f"short-term memory: {what} would be hidden because {where}; fix short_term.md and try again"

    def _ensure_block(self, name: str, intro: str) -> Block:
        block = self.block(name)
        if block is None:
            if self.blocks and not self.blocks[-1].raw.endswith("\n\n"):
                self.blocks[-1].raw = self.blocks[-1].raw.rstrip("\n") + "\n\n"
            block = Block(name, f"## {name}\n{intro}")
            self.blocks.append(block)
        return block

    @staticmethod
    def _set_body(block: Block, body: str) -> None:
        heading = block.raw.split("\n", 1)[0]
        block.raw = f"{heading}\n{body}"


def _item_line(text: str, done: bool | None) -> str:
    if done is not None:
        return f"- [{'x' if done else ' '}] {text}\n"
    # a plain item starting like a checkbox ("[x] …") would read back as one: escape the '['
    return f"- \\{text}\n" if _CHECKBOX_START.match(text) else f"- {text}\n"


def _unescaped(text: str) -> str:
    """A plain item's text as written by `_item_line`: "\\[x] …" reads "[x] …"."""
    return text[1:] if text.startswith("\\") and _CHECKBOX_START.match(text) else text


def _strip_rule(text: str) -> str:
    """The Summary section ends with a '---' separator (vault-format.md §5.1); it is not part of the summary."""
    return re.sub(r"\n-{3,}\s*\Z", "\n", text.rstrip())


def parse(text: str) -> ShortTermMemory:
    return ShortTermMemory(_split(text, "## "))


def render_new(summary: str = "", goals: list[Item] | None = None, facts: list[Item] | None = None,
               tasks: list[Item] | None = None) -> str:
    """A fresh short_term.md in the exact structure of vault-format.md §5."""
    def lines(items: list[Item] | None, checkbox: bool) -> str:
        return "".join(_item_line(item.text, bool(item.done) if checkbox else None) for item in items or [])

    summary = summary.strip() or "Nothing has been consolidated yet."
    return (
        f"{TITLE}\n\n"
        f"## {SUMMARY}\n{summary}\n\n"
        "---\n"
        f"## {STRUCTURED}\n"
        "This section contains discrete, machine-readable data for immediate use.\n\n"
        f"### {GOALS}\n{lines(goals, True)}\n"
        f"### {FACTS}\n{lines(facts, False)}\n"
        f"### {TASKS}\n{lines(tasks, True)}\n"
        "---\n"
        f"## {EVENT_LOG}\n"
        f"{_LOG_INTRO}"
    )
