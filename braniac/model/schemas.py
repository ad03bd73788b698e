"""The JSON Schema of every task whose reply is JSON, keyed by the task's prompt template name.

A schema is sent as `response_format` where the provider can enforce it, shown in the prompt
where it cannot, and checked on every reply. It states only what the task's reader
(model/task_replies.py) needs; that reader still applies braniac's own bounds (lengths,
counts, paths), which no schema a model follows can be trusted with.
"""
from __future__ import annotations

import json
from typing import Any

_STRINGS = {"type": "array", "items": {"type": "string"}}

SEARCH_QUERIES = {
    "type": "object",
    "properties": {"queries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5}},
    "required": ["queries"],
}

REFLECTION = {
    "type": "object",
    "properties": {"thoughts": {"type": "string"}, "goals": _STRINGS, "facts": _STRINGS, "tasks": _STRINGS,
                   "done_tasks": _STRINGS},
    "required": ["thoughts"],
}

CANDIDATES = {
    "type": "object",
    "properties": {"candidates": {"type": "array", "items": {
        "type": "object",
        "properties": {"title": {"type": "string"}, "kind": {"type": "string", "enum": ["concrete", "skills"]},
                       "folder": _STRINGS, "event_ids": _STRINGS},
        "required": ["title", "event_ids"],
    }}},
    "required": ["candidates"],
}

DRAFT = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"}, "tags": _STRINGS, "emotion": {"type": "string"},
        "claims": {"type": "array", "items": {
            "type": "object",
            "properties": {"text": {"type": "string"}, "sources": _STRINGS,
                           "supersedes": {"type": ["string", "null"]}},
            "required": ["text", "sources"],
        }},
    },
    "required": ["claims"],
}

SUMMARY = {
    "type": "object",
    "properties": {"summary": {"type": "string", "minLength": 1}},
    "required": ["summary"],
}

OPERATIONS = {
    "type": "object",
    "properties": {"operations": {"type": "array", "maxItems": 50, "items": {
        "type": "object",
        "properties": {"op": {"type": "string", "enum": ["link", "move", "archive"]}, "a": {"type": "string"},
                       "b": {"type": "string"}, "weight": {"type": "number"}, "path": {"type": "string"},
                       "to": {"type": "string"}},
        "required": ["op"],
    }}},
    "required": ["operations"],
}

SCHEMAS: dict[str, dict] = {
    "search_queries": SEARCH_QUERIES,
    "reflect": REFLECTION,
    "promote_analyze": CANDIDATES,
    "promote_synthesize": DRAFT,
    "promote_summary": SUMMARY,
    "organize": OPERATIONS,
}


def schema_for(task: str) -> dict:
    return SCHEMAS[task]


def single_list(schema: dict) -> str | None:
    """The one required list of an object schema (`queries`, `candidates`, `claims`,
    `operations`): a bare list in reply is read as that list. None when there is no such key."""
    lists = [key for key in schema.get("required", [])
             if schema.get("properties", {}).get(key, {}).get("type") == "array"]
    return lists[0] if len(lists) == 1 else None


def response_format(task: str) -> dict[str, Any]:
    """OpenAI's structured-output request for this task (LiteLLM translates it per provider)."""
    return {"type": "json_schema",
            "json_schema": {"name": task, "schema": SCHEMAS[task], "strict": False}}


def in_prompt(task: str) -> str:
    """The schema as the prompt shows it to a model whose provider cannot enforce it."""
    return ("\n\nYour reply must be one JSON object that follows this JSON Schema (fill it in; do not "
            f"repeat the schema):\n{json.dumps(SCHEMAS[task], separators=(',', ':'))}")
