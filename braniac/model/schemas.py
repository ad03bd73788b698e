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

# minItems: a server that enforces the schema by grammar (llama.cpp) lets a small model close an
# empty list at once, and a 1.5B model did: a promotion that consolidated nothing
CANDIDATES = {
    "type": "object",
    "properties": {"candidates": {"type": "array", "minItems": 1, "items": {
        "type": "object",
        "properties": {"title": {"type": "string"}, "kind": {"type": "string", "enum": ["concrete", "skills"]},
                       "folder": _STRINGS, "event_ids": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
        "required": ["title", "event_ids"],
    }}},
    "required": ["candidates"],
}

DRAFT = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"}, "tags": _STRINGS, "emotion": {"type": "string"},
        "claims": {"type": "array", "minItems": 1, "items": {
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


def citing(schema: dict, ids: list[str], where: tuple[str, str]) -> dict:
    """`schema` with the ids a reply may cite (at `where`: the list of objects, their list of
    ids) given as an enum: a grammar-enforcing server then cannot make one up or misspell it."""
    out = json.loads(json.dumps(schema))
    items = out["properties"][where[0]]["items"]["properties"]
    items[where[1]] = {**items[where[1]], "items": {"type": "string", "enum": list(dict.fromkeys(ids))}}
    return out


def single_list(schema: dict) -> str | None:
    """The one required list of an object schema (`queries`, `candidates`, `claims`,
    `operations`): a bare list in reply is read as that list. None when there is no such key."""
    lists = [key for key in schema.get("required", [])
             if schema.get("properties", {}).get(key, {}).get("type") == "array"]
    return lists[0] if len(lists) == 1 else None


def response_format(task: str, schema: dict | None = None) -> dict[str, Any]:
    """OpenAI's structured-output request for this task (LiteLLM translates it per provider)."""
    return {"type": "json_schema",
            "json_schema": {"name": task, "schema": schema or SCHEMAS[task], "strict": False}}


def in_prompt(task: str, schema: dict | None = None) -> str:
    """The schema as the prompt shows it to a model whose provider cannot enforce it."""
    return ("\n\nYour reply must be one JSON object that follows this JSON Schema (fill it in; do not "
            f"repeat the schema):\n{json.dumps(schema or SCHEMAS[task], separators=(',', ':'))}")
