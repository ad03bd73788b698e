"""What each JSON task's reply must hold, read into braniac's types: the checks a schema cannot
make (lengths, counts, the shape of a folder), and a clear reason when a reply fails them (the
model is shown it in the retry). Bounds on paths, kinds and sources are promotion's and
organization's, which log what they reject."""
from __future__ import annotations

from typing import Any

from .types import Candidate, Claim, NoteDraft, Reflection


def strings(value: Any, name: str, limit: int, max_len: int = 300) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"'{name}' must be a list of strings")
    return [" ".join(v.split())[:max_len] for v in value if v.strip()][:limit]


def valid_queries(data: Any) -> list[str]:
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object with 'queries'")
    queries = strings(data.get("queries"), "queries", 5, 200)
    if not queries:
        raise ValueError("'queries' is empty")
    return queries


def valid_candidates(data: Any) -> list[Candidate]:
    if not isinstance(data, dict) or not isinstance(data.get("candidates"), list):
        raise ValueError("expected a JSON object with a 'candidates' list")
    found = []
    for item in data["candidates"]:
        if not isinstance(item, dict) or not isinstance(item.get("title"), str):
            raise ValueError("each candidate needs a 'title' string")
        folder = item.get("folder") or []
        if isinstance(folder, str):
            folder = [folder]
        if not isinstance(folder, list) or not all(isinstance(f, str) for f in folder):
            raise ValueError("'folder' must be a list of words")
        kind = item.get("kind", "concrete")
        found.append(Candidate(kind if isinstance(kind, str) else "", folder, item["title"],
                               strings(item.get("event_ids"), "event_ids", 500, 64)))
    return found  # bounds (paths, kinds, sources) are checked by promotion, which logs rejections


def valid_draft(data: Any, candidate: Candidate) -> NoteDraft:
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        raise ValueError("expected a JSON object with a 'claims' list")
    claims = []
    for item in data["claims"]:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise ValueError("each claim needs a 'text' string")
        supersedes = item.get("supersedes")
        claims.append(Claim(item["text"], strings(item.get("sources"), "sources", 50, 64),
                            supersedes if isinstance(supersedes, str) and supersedes.strip() else None))
    emotion = data.get("emotion") if isinstance(data.get("emotion"), str) else "neutral"
    summary = data.get("summary") if isinstance(data.get("summary"), str) else ""
    return NoteDraft(candidate.kind, list(candidate.folder), candidate.title, summary, claims,
                     strings(data.get("tags"), "tags", 8, 40), emotion)


def valid_reflection(data: Any) -> Reflection:
    if not isinstance(data, dict) or not isinstance(data.get("thoughts", ""), str):
        raise ValueError("expected a JSON object with 'thoughts'")
    return Reflection(thoughts=" ".join(data.get("thoughts", "").split())[:1000] or "(no thoughts)",
                      goals=strings(data.get("goals"), "goals", 5), facts=strings(data.get("facts"), "facts", 8),
                      tasks=strings(data.get("tasks"), "tasks", 5),
                      done_tasks=strings(data.get("done_tasks"), "done_tasks", 10))
