"""Reading a model's JSON reply the way small local models write it.

They wrap the object in a ```json fence or in a sentence, leave a trailing comma, answer a
bare list where an object holding one list was asked for, repeat the schema instead of
filling it in, or stop at the length limit. `read_reply` repairs what can be repaired without
guessing (and says which repair it made) and otherwise raises `ReplyProblem` with a reason
short enough to show the model in a retry and a person in a notice.
"""
from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .schemas import single_list

# braniac's replies are a few levels deep; a reply nested deeper is not one (and Python's own
# recursion, in the parser or in any code that walks or prints the value, would give out)
MAX_JSON_DEPTH = 32
MAX_SALVAGED = 200  # whole items kept from a reply cut at the length limit
MAX_STARTS = 64    # where in the prose around it a reply's JSON may begin (`{` or `[` tried, each)

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


class ReplyProblem(ValueError):
    """Why a reply could not be used, in a few words."""


@dataclass
class Reading:
    value: Any
    repairs: list[str] = field(default_factory=list)   # e.g. ["code fence", "bare list"]


def read_reply(raw: str | None, schema: dict, *, truncated: bool = False) -> Reading:
    """The reply's JSON value, shaped as `schema` asks, and the repairs that took."""
    if raw is None or not raw.strip():
        raise ReplyProblem("the reply was empty")
    key = single_list(schema)
    try:
        value, repairs = _decode(raw.strip())
        if truncated and "prose around the JSON" in repairs:
            raise ReplyProblem("an object inside the cut-off reply")   # (one item of it, not the reply)
    except ReplyProblem:
        if truncated:
            items = _whole_items(raw, key) if key else []
            if items:   # a small model that repeats itself to the limit: the items it finished are whole
                return Reading({key: items}, [f"cut off at the length limit: the {len(items)} whole items before the cut"])
            raise ReplyProblem("the reply was cut off at the length limit (finish_reason=length) before "
                               "its JSON was complete") from None
        raise
    if not _shallow(value, MAX_JSON_DEPTH):
        raise ReplyProblem(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    if isinstance(value, list) and key is not None:
        value, repairs = {key: value}, repairs + ["bare list"]
    if schema.get("type") == "object":
        if not isinstance(value, dict):
            raise ReplyProblem(f"expected a JSON object, got {_kind(value)}")
        if _echoes_schema(value, schema):
            raise ReplyProblem("the reply repeats the JSON Schema instead of filling it in")
        missing = [k for k in schema.get("required", []) if k not in value]
        if missing:
            raise ReplyProblem("the object has no " + ", ".join(f"'{k}'" for k in missing))
    return Reading(value, repairs)


def parse_json(raw: str) -> Any:
    """Strict JSON (a ```json fence around it is allowed): for callers that want no repairs."""
    text = raw.strip()
    fenced = re.match(r"^```(?:json)?\s*(.*?)\s*```$", text, re.S)
    value = _loads(fenced.group(1) if fenced else text)
    if not _shallow(value, MAX_JSON_DEPTH):
        raise ReplyProblem(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    return value


# ---------------------------------------------------------------------------- decoding

def _decode(text: str) -> tuple[Any, list[str]]:
    """Try the text as it is, then inside a code fence, then the first JSON value in the prose
    around it; each with trailing commas removed as a last resort."""
    first_error: ReplyProblem | None = None
    places = [(text, [])]
    fenced = _FENCE.search(text)
    if fenced:
        places.append((fenced.group(1).strip(), ["code fence"]))
    tries = [(fixed, repairs + more) for body, repairs in places
             for fixed, more in ((body, []), (_TRAILING_COMMA.sub(r"\1", body), ["trailing comma"]))
             if not more or fixed != body]
    for fixed, repairs in tries:
        try:
            return _loads(fixed), repairs
        except ReplyProblem as exc:
            first_error = first_error or exc
    for fixed, repairs in tries:
        found = _embedded(fixed)
        if found is not None:
            return found, repairs + ["prose around the JSON"]
    assert first_error is not None
    if not re.search(r"[{\[]", text):
        raise ReplyProblem("the reply has no JSON in it (it begins: " + _start(text) + ")")
    raise first_error


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplyProblem(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise ReplyProblem(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None


def _embedded(text: str) -> Any:
    """The first object (else list) that decodes, starting at a `{` (else `[`) in the text."""
    decoder = json.JSONDecoder()
    for opener in "{[":
        # a reply's JSON starts at one of its first brackets; trying every one of 100,000 nested
        # brackets (each failing a thousand levels down) would take minutes
        for match in itertools.islice(re.finditer(re.escape(opener), text), MAX_STARTS):
            try:
                value, _end = decoder.raw_decode(text, match.start())
            except (json.JSONDecodeError, RecursionError):
                continue
            if isinstance(value, (dict, list)) and value:
                return value
    return None


def _whole_items(text: str, key: str) -> list:
    """The objects of the list under `key` (or of a bare list) that were complete before the
    reply was cut: each decoded in turn from where the list opens, up to the first that is not."""
    opened = re.search(rf'"{re.escape(key)}"\s*:\s*\[', text) or re.match(r"\s*(?:```\w*\s*)?\[", text)
    if not opened:
        return []
    decoder, at, items = json.JSONDecoder(), opened.end(), []
    while len(items) < MAX_SALVAGED:
        at = len(text) - len(text[at:].lstrip(" \t\r\n,"))
        try:
            item, at = decoder.raw_decode(text, at)
        except (json.JSONDecodeError, RecursionError):
            break
        if not isinstance(item, dict) or not _shallow(item, MAX_JSON_DEPTH):
            break
        items.append(item)
    return items


def _echoes_schema(value: dict, schema: dict) -> bool:
    """A reply that is the schema (or a schema like it) rather than an instance of it."""
    looks_like_schema = "properties" in value and ("type" in value or "$schema" in value or "required" in value)
    return looks_like_schema and not all(k in value for k in schema.get("required", []) if k != "properties")


def _shallow(value: Any, limit: int) -> bool:
    """Whether `value` nests lists and objects at most `limit` deep (walked without recursion)."""
    todo = [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (list, dict)):
            if depth > limit:
                return False
            todo.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return True


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), "a number")


def _start(text: str) -> str:
    words = " ".join(text.split())
    return repr(words[:60] + ("…" if len(words) > 60 else ""))
