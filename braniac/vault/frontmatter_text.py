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
_FLOW_START = re.compile(r"\A(?:[ \t]*(?:#[^\n]*)?\r?\n)*[ \t]*\{")


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


def _flow_mapping(fm_text: str) -> yaml.MappingNode | None:
    """The frontmatter's root when it is one `{…}` mapping, else None (the usual block keys)."""
    if not _FLOW_START.match(fm_text):
        return None   # (the common case, decided without parsing)
    try:
        # the pure-Python composer: its marks count characters of this very string
        root = yaml.compose(fm_text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return None
    return root if isinstance(root, yaml.MappingNode) and root.flow_style else None


def _replace_in_flow(fm_text: str, root: yaml.MappingNode, key: str, value: Any) -> str:
    shown = _json_value(value)
    for key_node, value_node in root.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            start, end = value_node.start_mark.index, value_node.end_mark.index
            return fm_text[:start] + shown + fm_text[end:]
    quote = '"' if any(getattr(k, "style", None) == '"' for k, _ in root.value) or not root.value else ""
    entry = f"{quote}{key}{quote}: {shown}"
    if not root.value:
        at = root.start_mark.index + 1   # just inside '{'
        return fm_text[:at] + entry + fm_text[at:]
    last_key, last_value = root.value[-1]
    at = last_value.end_mark.index
    if last_key.start_mark.line > root.start_mark.line:
        # one key a line: the new one on a line of its own, indented like the last
        newline = "\r\n" if "\r\n" in fm_text else "\n"
        return fm_text[:at] + "," + newline + " " * last_key.start_mark.column + entry + fm_text[at:]
    return fm_text[:at] + ", " + entry + fm_text[at:]


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
