"""One frontmatter key rewritten in the frontmatter's own text (vault-format.md §3): only that
key's line changes, or one line is added at the end, so key order, comments and unknown keys
survive and `git diff` shows one line.

A person's frontmatter may also be one JSON object (`{"title": "…"}`, which YAML reads as a
flow mapping). A key appended below it as a block line would break it, so there the key goes
inside the braces, written as JSON, and the person's text around it stays as it was.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import yaml

from ..infra import clock

# The keys whose timestamps braniac writes unquoted, so Obsidian shows a date; any other value
# that looks like one (an archived event's `event_id`) is quoted, so it reads back as the string.
TIME_KEYS = ("created_at", "updated_at")

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_LINE_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")  # what YAML counts as a line break
_TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$")
# What JSON leaves raw but YAML will not read raw in a double-quoted string: C1 controls and
# DEL (not printable to YAML), its extra line breaks, a byte-order mark, lone surrogates.
_NOT_RAW_IN_YAML = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]")
_FLOW_START = re.compile(r"\A(?:[ \t]*(?:#[^\n]*)?\r?\n)*[ \t]*(?:[!&][^\s{]*\s+)*\{")   # (a tag or an anchor may come first)


def yaml_scalar(value: Any, *, key: str | None = None) -> str:
    """One value as it appears after `key: `, on one line, readable in Obsidian."""
    if isinstance(value, datetime):
        return clock.iso(value if value.tzinfo else value.replace(tzinfo=timezone.utc))
    if isinstance(value, str) and (key is None or key in TIME_KEYS) and _looks_like_timestamp(value):
        return value  # unquoted, so Obsidian shows it as a date
    dumped = _dump(value)
    if any(brk in dumped for brk in _LINE_BREAKS):
        # YAML folds multi-line strings over several lines; double quotes keep it on one
        dumped = _dump(value, default_style='"')
    return dumped


def replace_key(fm_text: str, key: str, value: Any) -> str:
    """`fm_text` with `key` set to `value`: rewritten in place, or added at the end."""
    flow = _flow_mapping(fm_text)
    if flow is not None:
        return _replace_in_flow(fm_text, flow, key, value)
    lines = [line + "\n" for line in fm_text.split("\n")]  # only '\n' ends a line (not \u2028 & co)
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    new_line = f"{key}: {yaml_scalar(value, key=key)}\n"
    # the key as a person may have written it: plain, or quoted as JSON and YAML allow
    pattern = re.compile(rf"^(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')\s*:")
    for i, line in enumerate(lines):
        if pattern.match(line):
            end = i + 1
            while end < len(lines) and (not lines[end].strip() or lines[end].startswith((" ", "\t", "-"))):
                end += 1  # blank lines inside a block scalar still belong to the value
            while end > i + 1 and not lines[end - 1].strip():
                end -= 1  # blank lines after the value are layout: kept
            return "".join(lines[:i] + [new_line] + lines[end:])
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    return "".join(lines) + new_line


@dataclass
class _Entry:
    """One key of a `{…}` frontmatter, where its parts are in the text."""
    key: str | None          # None: a key that is no plain string
    quoted: bool
    key_start: int
    key_end: int
    value_start: int
    value_end: int
    anchor: str | None       # the value's own `&name`, which its aliases need kept
    line: int
    column: int


@dataclass
class _Flow:
    inside: int              # just after its '{'
    line: int                # the line of its '{'
    entries: list[_Entry]


def _flow_mapping(fm_text: str) -> _Flow | None:
    """The frontmatter's keys when it is one `{…}` mapping, else None (the usual block keys).
    YAML's events, not its nodes: an alias's node is its anchor's, marks and all."""
    if not _FLOW_START.match(fm_text):
        return None   # (the common case, decided without parsing)
    try:
        # the pure-Python parser: its marks count characters of this very string
        events = list(yaml.parse(fm_text, Loader=yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError):
        return None
    if len(events) < 3 or not isinstance(events[2], yaml.MappingStartEvent) or not events[2].flow_style:
        return None
    start = events[2].start_mark
    flow = _Flow(fm_text.index("{", start.index) + 1, start.line, [])
    i = 3
    while not isinstance(events[i], yaml.MappingEndEvent):
        key = events[i]
        i, key_end = _past_node(events, i)
        value = events[i]
        i, value_end = _past_node(events, i)
        flow.entries.append(_Entry(
            key.value if isinstance(key, yaml.ScalarEvent) else None, getattr(key, "style", None) == '"',
            key.start_mark.index, key_end, value.start_mark.index, value_end,
            None if isinstance(value, yaml.AliasEvent) else getattr(value, "anchor", None),
            key.start_mark.line, key.start_mark.column))
    return flow


def _past_node(events: list, i: int) -> tuple[int, int]:
    """(the index of the event after the node that starts at events[i], where the node ends)."""
    depth = 0
    while True:
        event = events[i]
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        if depth == 0:
            return i + 1, event.end_mark.index
        i += 1


def _replace_in_flow(fm_text: str, flow: _Flow, key: str, value: Any) -> str:
    shown = _json_value(value)
    for entry in flow.entries:
        if entry.key != key:
            continue
        if entry.anchor:
            shown = f"&{entry.anchor} {shown}"   # its aliases elsewhere still find it
        start, end = entry.value_start, entry.value_end
        if ":" not in fm_text[entry.key_end:start]:
            return fm_text[:entry.key_end] + ": " + shown + fm_text[entry.key_end:]   # `{title, …}`: a key alone
        if fm_text[start - 1:start] == ":":
            shown = " " + shown   # `{title:, …}`: nothing after the colon
        return fm_text[:start] + shown + fm_text[end:]
    quote = '"' if any(e.quoted for e in flow.entries) or not flow.entries else ""
    entry_text = f"{quote}{key}{quote}: {shown}"
    if not flow.entries:
        return fm_text[:flow.inside] + entry_text + fm_text[flow.inside:]
    last = flow.entries[-1]
    at = max(last.value_end, last.key_end)
    if last.line > flow.line:
        # one key a line: the new one on a line of its own, indented like the last
        newline = "\r\n" if "\r\n" in fm_text else "\n"
        return fm_text[:at] + "," + newline + " " * last.column + entry_text + fm_text[at:]
    return fm_text[:at] + ", " + entry_text + fm_text[at:]


def _json_value(value: Any) -> str:
    """A value as JSON, which is also YAML that reads back the same inside a `{…}` mapping."""
    if isinstance(value, datetime):
        value = clock.iso(value if value.tzinfo else value.replace(tzinfo=timezone.utc))
    shown = json.dumps(value, ensure_ascii=False, default=str)
    return _NOT_RAW_IN_YAML.sub(lambda m: f"\\u{ord(m.group()):04x}", shown)


def _dump(value: Any, **options: Any) -> str:
    dumped = yaml.dump(value, Dumper=_Dumper, default_flow_style=True, width=1_000_000,
                       allow_unicode=True, sort_keys=False, **options).rstrip("\n")  # not strip(): '\xa0' is a value
    if dumped.endswith("\n..."):  # the pure-Python emitter's end-of-document marker only:
        dumped = dumped[:-4]       # a value's own trailing '...' ("wait...") stays
    return dumped


def _looks_like_timestamp(value: str) -> bool:
    # fullmatch: `$` alone accepts a trailing newline; a date Python rejects must stay quoted
    if not _TS.fullmatch(value):
        return False
    try:
        clock.parse_iso(value)
    except ValueError:
        return False
    return True
