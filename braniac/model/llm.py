"""The LLM engine: every model call braniac makes goes through LiteLLM, here and only here.

LiteLLM costs 4.5–8 s to import, so it is imported lazily (and `preload()` lets the REPL do it
in the background while the person types). Structured tasks ask for JSON, validate it, retry
once, then fail with a clear message; the caller keeps the person's input either way.
"""
from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

from . import prompts
from ..infra.config import ModelConfig
from ..infra.errors import BraniacError, ModelError
from ..infra.fsio import read_text
from ..vault.layout import IDENTITY
from .organization_types import OrganizationPlan, OrganizationRequest
from .types import Candidate, Claim, EventRecord, ModelUnavailable, NoteDraft, Reflection, WorkingMemory

# Every request names its task (the prompt template's name): a proxy or a test server can
# route and count requests by it without reading the prompt.
TASK_HEADER = "X-Braniac-Task"

_import_lock = threading.Lock()
_litellm_module = None


def _litellm():
    """Import LiteLLM with the settings that keep it offline and quiet."""
    global _litellm_module
    with _import_lock:
        if _litellm_module is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # else it fetches a price list at import
            os.environ.setdefault("LITELLM_MODE", "PRODUCTION")            # else it loads a stray .env
            import litellm
            litellm.suppress_debug_info = True                              # else errors print a banner to stdout
            litellm.telemetry = False
            _litellm_module = litellm
    return _litellm_module


def preload() -> threading.Thread:
    thread = threading.Thread(target=_litellm, name="braniac-litellm-import", daemon=True)
    thread.start()
    return thread


class LLMModel:
    def __init__(self, config: ModelConfig, *, vault_root: Path | None = None):
        if not config.name:
            raise ModelError("no model configured")
        self.config = config
        self.name = config.name
        self.vault_root = vault_root

    # ---------------------------------------------------------------- calls
    def _kwargs(self, task: str) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.config.name, "timeout": self.config.timeout,
                                  "num_retries": self.config.retries, "temperature": self.config.temperature,
                                  "extra_headers": {TASK_HEADER: task}}
        if self.config.api_base:
            kwargs["api_base"] = self.config.api_base
        if self.config.api_key_env:
            key = os.environ.get(self.config.api_key_env)
            if not key:
                raise ModelUnavailable(f"the API key variable {self.config.api_key_env} (model.api_key_env) is not set")
            kwargs["api_key"] = key
        elif self.config.api_base and self.config.name.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            kwargs["api_key"] = "none"  # local OpenAI-compatible servers often need no key, but the client wants one
        return kwargs

    def complete(self, messages: list[dict], *, task: str, json_mode: bool = False) -> str:
        litellm = _litellm()
        kwargs = self._kwargs(task)
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        try:
            response = litellm.completion(messages=messages, **kwargs)
            content = response.choices[0].message.content
        except Exception as exc:  # LiteLLM's errors all derive from openai.APIError, and more
            raise explain(exc, self.config) from None
        if not isinstance(content, str):
            raise ModelError(f"the model {self.name} returned an empty reply")
        return content

    def stream(self, messages: list[dict], *, task: str) -> Iterator[str]:
        litellm = _litellm()
        said = False
        try:
            response = litellm.completion(messages=messages, stream=True, **self._kwargs(task))
            for chunk in response:
                choices = getattr(chunk, "choices", None) or []
                delta = getattr(choices[0], "delta", None) if choices else None
                text = getattr(delta, "content", None) if delta is not None else None
                if text:
                    said = True
                    yield text
        except ModelError:
            raise
        except Exception as exc:
            raise explain(exc, self.config) from None
        if not said:
            # a 200 whose body is not an event stream (malformed JSON, `{}`) streams nothing
            # without any error from LiteLLM: an empty answer is a failure, not a reply
            raise ModelError(f"the model {self.name} returned an empty reply (the server's response had no text)")

    def identity(self) -> str:
        """The core identity, fenced: the spec loads it into the working memory of every task
        (the core loop passes the copy it read for the turn)."""
        text = ""
        if self.vault_root is not None:
            try:
                text = read_text(Path(self.vault_root) / IDENTITY)
            except (OSError, BraniacError):
                text = ""  # a missing or unreadable identity is doctor's to report, not a reason to stop
        return prompts.fence("identity", text or "(no core identity)")

    def complete_json(self, prompt_name: str, validate: Callable[[Any], Any], **values: str) -> Any:
        """Ask for JSON, validate it; one retry with the problem explained; then ModelError."""
        values.setdefault("identity", self.identity())
        messages = [{"role": "user", "content": prompts.render(prompt_name, self.vault_root, **values)}]
        problem = ""
        for _attempt in range(2):
            raw = self.complete(messages, task=prompt_name, json_mode=True)
            try:
                return validate(parse_json(raw))
            except (ValueError, TypeError, KeyError) as exc:
                problem = str(exc)
                messages = messages + [{"role": "assistant", "content": raw[:2000]},
                                       {"role": "user", "content": f"That reply was not usable ({problem}). "
                                                                   "Reply again with the JSON object only."}]
        raise ModelError(f"the model {self.name} returned unusable output for '{prompt_name}' twice ({problem})")

    # ---------------------------------------------------------------- the tasks
    def search_queries(self, wm: WorkingMemory) -> list[str]:
        ctx = prompts.fenced_context(wm)
        return self.complete_json("search_queries", _valid_queries, now=wm.now, identity=ctx["identity"],
                                  conversation=ctx["conversation"], short_term=ctx["short_term"], prompt=wm.prompt)

    def answer(self, wm: WorkingMemory) -> Iterator[str]:
        ctx = prompts.fenced_context(wm)
        system = prompts.render("answer", self.vault_root, now=wm.now, **ctx)
        return self.stream([{"role": "system", "content": system}, {"role": "user", "content": wm.prompt}],
                           task="answer")

    def reflect(self, user: str, ai: str, short_term: str) -> Reflection:
        # the exchange sits inside <exchange> tags: a closing tag in it must not end them early
        user, ai = (text.replace("</exchange", "<\\/exchange") for text in (user, ai))
        return self.complete_json("reflect", _valid_reflection, user=user, ai=ai,
                                  short_term=prompts.fence("short_term_memory", short_term))


    # ---------------------------------------------------------------- promotion (vault-format.md §10.4)
    def analyze(self, events: list[EventRecord], known_titles: list[str]) -> list[Candidate]:
        titles = "\n".join(f"- {t}" for t in known_titles[:300]) or "(none yet)"
        return self.complete_json("promote_analyze", _valid_candidates, known_titles=titles,
                                  events=_fence_events(events))

    def synthesize(self, candidate: Candidate, events: list[EventRecord], existing: list[str]) -> NoteDraft:
        def valid(data: Any) -> NoteDraft:
            return _valid_draft(data, candidate)
        return self.complete_json("promote_synthesize", valid, title=candidate.title, kind=candidate.kind,
                                  existing=prompts.fence("existing_claims", "\n".join(existing) or "(none)"),
                                  events=_fence_events(events))

    def summarize(self, promoted: list[EventRecord], remaining: list[EventRecord], open_items: list[str]) -> str:
        def valid(data: Any) -> str:
            if not isinstance(data, dict) or not isinstance(data.get("summary"), str) or not data["summary"].strip():
                raise ValueError("expected {\"summary\": \"...\"}")
            return data["summary"].strip()[:3000]
        return self.complete_json("promote_summary", valid, promoted=_fence_events(promoted, "archived_events"),
                                  remaining=_fence_events(remaining, "remaining_events"),
                                  open_items="\n".join(f"- {i}" for i in open_items) or "(none)")


    # ---------------------------------------------------------------- organization (vault-format.md §10.5)
    def propose_organization(self, request: OrganizationRequest) -> OrganizationPlan:
        def valid(data: Any) -> list[dict]:
            if not isinstance(data, dict) or not isinstance(data.get("operations"), list):
                raise ValueError("expected a JSON object with an 'operations' list")
            return data["operations"]  # each operation is checked by organization, which logs rejections
        return OrganizationPlan(self.complete_json(
            "organize", valid, statistics=prompts.fence("usage_statistics", json.dumps(request.statistics, indent=1))))


def _fence_events(events: list[EventRecord], kind: str = "events") -> str:
    return prompts.fence(kind, "\n\n".join(f"### {e.id}\n{e.text}" for e in events) or "(none)")


# -------------------------------------------------------------------- validation

# braniac's replies are a few levels deep; a reply nested deeper is not one (and Python's own
# recursion, in the parser or in any code that walks or prints the value, would give out)
MAX_JSON_DEPTH = 32


def parse_json(raw: str) -> Any:
    """JSON from a model reply, tolerating a ```json fence around it."""
    text = raw.strip()
    fenced = re.match(r"^```(?:json)?\s*(.*?)\s*```$", text, re.S)
    if fenced:
        text = fenced.group(1)
    too_deep = f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise ValueError(too_deep) from None
    if not _shallow(value, MAX_JSON_DEPTH):
        raise ValueError(too_deep)
    return value


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


def _strings(value: Any, name: str, limit: int, max_len: int = 300) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"'{name}' must be a list of strings")
    return [" ".join(v.split())[:max_len] for v in value if v.strip()][:limit]


def _valid_queries(data: Any) -> list[str]:
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object with 'queries'")
    queries = _strings(data.get("queries"), "queries", 5, 200)
    if not queries:
        raise ValueError("'queries' is empty")
    return queries


def _valid_candidates(data: Any) -> list[Candidate]:
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
                               _strings(item.get("event_ids"), "event_ids", 500, 64)))
    return found  # bounds (paths, kinds, sources) are checked by promotion, which logs rejections


def _valid_draft(data: Any, candidate: Candidate) -> NoteDraft:
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        raise ValueError("expected a JSON object with a 'claims' list")
    claims = []
    for item in data["claims"]:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise ValueError("each claim needs a 'text' string")
        supersedes = item.get("supersedes")
        claims.append(Claim(item["text"], _strings(item.get("sources"), "sources", 50, 64),
                            supersedes if isinstance(supersedes, str) and supersedes.strip() else None))
    emotion = data.get("emotion") if isinstance(data.get("emotion"), str) else "neutral"
    summary = data.get("summary") if isinstance(data.get("summary"), str) else ""
    return NoteDraft(candidate.kind, list(candidate.folder), candidate.title, summary, claims,
                     _strings(data.get("tags"), "tags", 8, 40), emotion)


def _valid_reflection(data: Any) -> Reflection:
    if not isinstance(data, dict) or not isinstance(data.get("thoughts", ""), str):
        raise ValueError("expected a JSON object with 'thoughts'")
    return Reflection(thoughts=" ".join(data.get("thoughts", "").split())[:1000] or "(no thoughts)",
                      goals=_strings(data.get("goals"), "goals", 5), facts=_strings(data.get("facts"), "facts", 8),
                      tasks=_strings(data.get("tasks"), "tasks", 5),
                      done_tasks=_strings(data.get("done_tasks"), "done_tasks", 10))


# -------------------------------------------------------------------- errors a person understands

def explain(exc: Exception, config: ModelConfig) -> ModelUnavailable:
    kind = type(exc).__name__
    message = str(exc)
    where = f" at {config.api_base}" if config.api_base else ""
    lowered = message.lower()
    if kind in ("Timeout", "APITimeoutError") or "timed out" in lowered:
        text = f"the model {config.name}{where} did not answer within {config.timeout:g} s (model.timeout)"
    elif kind == "MidStreamFallbackError" or "peer closed connection" in lowered or "incomplete chunked read" in lowered:
        text = f"the model server{where} broke off its answer midway (connection closed)"
    elif "missing credentials" in lowered or kind == "AuthenticationError" or "api key" in lowered and "invalid" in lowered:
        text = (f"the model {config.name} needs an API key: set the provider's variable (e.g. OPENAI_API_KEY, "
                "ANTHROPIC_API_KEY) or model.api_key_env in braniac.toml")
    elif "connection error" in lowered or "connection refused" in lowered or kind == "APIConnectionError":
        text = f"could not connect to the model server{where or ' for ' + config.name}: is it running and reachable?"
    elif "expecting value" in lowered or "not a list" in lowered or "json" in lowered and "decode" in lowered:
        text = f"the model server{where} sent a reply braniac could not read (malformed response body)"
    elif kind == "NotFoundError" or "model not found" in lowered or "does not exist" in lowered:
        text = f"the model {config.name} was not found by its provider{where}; check model.name"
    elif kind == "RateLimitError":
        text = f"the provider of {config.name} is rate-limiting requests; wait a moment and try again"
    elif kind == "BadRequestError":
        text = f"the provider rejected the request for {config.name}: {_first_line(message)}"
    elif kind == "InternalServerError" or "500" in message:
        text = f"the model server{where} failed (HTTP 500): {_first_line(message)}"
    else:
        text = f"the model call failed ({kind}): {_first_line(message)}"
    return ModelUnavailable(text)


def _first_line(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else ""
    line = re.sub(r"^litellm\.\w+:\s*", "", line)
    return line[:300]
