"""The LLM engine: every model call braniac makes goes through LiteLLM, here and only here.

LiteLLM costs 4.5–8 s to import, so it is imported lazily (and `preload()` lets the REPL do it
in the background while the person types).

A task whose reply is JSON (everything but the answer) sends its JSON Schema (schemas.py) the
strongest way the provider accepts: `response_format` with `json_schema`, else `json_object`,
else the schema shown in the prompt; a provider that refuses one is remembered for the rest
of the process. The reply is read tolerantly (json_reply.py), validated, retried once with the
problem explained, and otherwise raises ModelError: the calling process then uses the offline
engine for that task, says so in one notice, and no event is lost. Every call that was not
accepted as it came is a line in the vault's logs/model.log (what the model did wrong). Every
prompt fits `model.context_tokens` (budget.py).
"""
from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from . import budget, prompts, schemas
from ..infra import clock
from ..infra.config import ModelConfig
from ..infra.errors import BraniacError, ModelError
from ..infra.fsio import append_line, read_text
from ..vault.layout import IDENTITY
from .json_reply import MAX_JSON_DEPTH, parse_json, read_reply
from .organization_types import OrganizationPlan, OrganizationRequest
from .provider_errors import explain, first_line, is_refusal
from .task_replies import valid_candidates, valid_draft, valid_queries, valid_reflection
from .types import Candidate, EventRecord, ModelUnavailable, NoteDraft, Reflection, WorkingMemory

__all__ = ["LLMModel", "CallRecord", "MAX_JSON_DEPTH", "parse_json", "preload", "explain", "TASK_HEADER"]

# Every request names its task (the prompt template's name): a proxy or a test server can
# route and count requests by it without reading the prompt.
TASK_HEADER = "X-Braniac-Task"

MODEL_LOG = "model.log"   # in the vault's logs/: one line per JSON call a model got wrong

# how JSON is asked for, strongest first; a provider that refuses one gets the next
MODES = ("json_schema", "json_object", "prompt")
# providers that run on the person's machine and enforce a schema (llama.cpp's grammar, Ollama's
# format, LM Studio, vLLM); LiteLLM's model list knows the hosted ones
LOCAL_SCHEMA_PROVIDERS = {"ollama", "ollama_chat", "lm_studio", "llamafile", "hosted_vllm", "openai"}

_import_lock = threading.Lock()
_litellm_module = None
_refused_lock = threading.Lock()
_mode_in_use: dict[tuple[str, str], str] = {}   # (model, api_base) -> mode, after a refusal


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


def forget_refusals() -> None:
    """Ask every provider the strongest way again (tests, and a server swapped for another)."""
    with _refused_lock:
        _mode_in_use.clear()


def preload() -> threading.Thread:
    thread = threading.Thread(target=_litellm, name="braniac-litellm-import", daemon=True)
    thread.start()
    return thread


@dataclass
class Reply:
    text: str | None
    finish_reason: str | None = None

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


@dataclass
class CallRecord:
    """What one JSON task's calls came to: accepted (first reply as it came), repaired (first
    reply, after a tolerant reading), retried (the second reply served), fell back."""
    task: str
    mode: str = ""
    outcome: str = ""
    seconds: list[float] = field(default_factory=list)   # one per HTTP call
    problems: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    reply: str = ""                                        # the start of the last unusable reply


class _Refused(Exception):
    """The provider refused the way JSON was asked for (not the reply's content)."""


def provider_kwargs(config: ModelConfig, task: str, table: str = "model") -> dict[str, Any]:
    """What every LiteLLM call sends, whatever it asks: the model, its timeout, the server, the
    key, and the task's name (a proxy or a test server routes by it). `table`: where in
    braniac.toml these settings come from, for the message when the key is missing."""
    kwargs: dict[str, Any] = {"model": config.name, "timeout": config.timeout, "extra_headers": {TASK_HEADER: task}}
    if config.api_base:
        kwargs["api_base"] = config.api_base
    if config.api_key_env:
        key = os.environ.get(config.api_key_env)
        if not key:
            raise ModelUnavailable(f"the API key variable {config.api_key_env} ({table}.api_key_env) is not set")
        kwargs["api_key"] = key
    elif config.api_base and config.name.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
        kwargs["api_key"] = "none"  # local OpenAI-compatible servers often need no key, but the client wants one
    return kwargs


class LLMModel:
    def __init__(self, config: ModelConfig, *, vault_root: Path | None = None):
        if not config.name:
            raise ModelError("no model configured")
        self.config = config
        self.name = config.name
        self.vault_root = vault_root
        self.calls: list[CallRecord] = []   # this object's JSON tasks, for benchmarks and tests

    # ---------------------------------------------------------------- calls
    def _kwargs(self, task: str) -> dict[str, Any]:
        return {**provider_kwargs(self.config, task), "num_retries": self.config.retries,
                "temperature": self.config.temperature}

    def _request(self, messages: list[dict], task: str, *, mode: str = "prompt", schema: dict | None = None) -> Reply:
        """One non-streamed call; `mode` is how JSON is asked for ("prompt": not at all)."""
        litellm = _litellm()
        kwargs = self._kwargs(task)
        kwargs["max_tokens"] = budget.reply_tokens(task, self.config.context_tokens)
        if mode == "json_schema":
            kwargs["response_format"] = schemas.response_format(task, schema)
        elif mode == "json_object":
            kwargs["response_format"] = {"type": "json_object"}
            if self._local_openai():   # llama-cpp-python's server enforces a schema given here
                kwargs["response_format"]["schema"] = schema or schemas.schema_for(task)
        try:
            response = litellm.completion(messages=messages, **kwargs)
            choice = response.choices[0]
            return Reply(choice.message.content, getattr(choice, "finish_reason", None))
        except Exception as exc:  # LiteLLM's errors all derive from openai.APIError, and more
            if mode != "prompt" and is_refusal(exc):
                raise _Refused(first_line(str(exc))) from None
            raise explain(exc, self.config) from None

    def _first_mode(self) -> str:
        """How this provider is asked for JSON: the setting, a refusal remembered, else what
        LiteLLM knows of the provider."""
        if self.config.structured_output != "auto":
            return self.config.structured_output
        with _refused_lock:
            remembered = _mode_in_use.get(self._key())
        if remembered:
            return remembered
        litellm = _litellm()
        name = self.config.name or ""
        try:
            if litellm.supports_response_schema(model=name):
                return "json_schema"
        except Exception:  # noqa: BLE001 - an unknown model is not an error, only unknown
            pass
        provider = name.split("/", 1)[0] if "/" in name else ""
        if provider in LOCAL_SCHEMA_PROVIDERS and (provider != "openai" or self.config.api_base):
            return "json_schema"
        try:
            supported = litellm.get_supported_openai_params(model=name) or []
        except Exception:  # noqa: BLE001
            supported = []
        return "json_object" if "response_format" in supported else "prompt"

    def _local_openai(self) -> bool:
        """An OpenAI-compatible server named by its URL (llama.cpp, llama-cpp-python, LM Studio…)."""
        return bool(self.config.api_base) and (self.config.name or "").startswith("openai/")

    def _key(self) -> tuple[str, str]:
        return (self.config.name or "", self.config.api_base or "")

    def _downgrade(self, mode: str, why: str) -> str:
        weaker = MODES[MODES.index(mode) + 1]
        with _refused_lock:
            _mode_in_use[self._key()] = weaker
        self._log("(any)", f"refused response_format {mode} ({why}); asking with {weaker} from now on")
        return weaker

    def stream(self, messages: list[dict], *, task: str) -> Iterator[str]:
        litellm = _litellm()
        said = False
        try:
            response = litellm.completion(messages=messages, stream=True, **self._kwargs(task),
                                          max_tokens=budget.reply_tokens(task, self.config.context_tokens))
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

    def _render(self, prompt_name: str, **values: str) -> str:
        values.setdefault("identity", self.identity())
        return prompts.render(prompt_name, self.vault_root, **values)

    def _room(self, prompt_name: str, **values: str) -> int:
        """Tokens left for memory once the prompt's other parts (given in `values`) are in."""
        return budget.room(prompt_name, self.config.context_tokens, self._render(prompt_name, **values))

    def complete_json(self, prompt_name: str, validate: Callable[[Any], Any], json_schema: dict | None = None,
                      **values: str) -> Any:
        """Ask for JSON (`json_schema`, else the task's schema), read it tolerantly, validate it;
        one retry with the problem explained; then ModelError (the caller falls back to the
        offline engine for this task)."""
        record = CallRecord(prompt_name, mode=self._first_mode())
        self.calls.append(record)
        prompt = self._render(prompt_name, **values)
        schema = json_schema or schemas.schema_for(prompt_name)
        messages = [{"role": "user", "content": prompt + (schemas.in_prompt(prompt_name, schema)
                                                          if record.mode == "prompt" else "")}]
        for attempt in range(2):
            reply = self._ask(messages, prompt_name, record, schema)
            try:
                reading = read_reply(reply.text, schema, truncated=reply.truncated)
                value = validate(reading.value)
            except (ValueError, TypeError, KeyError) as exc:
                problem = _one_line(str(exc)) or type(exc).__name__
                record.problems.append(problem)
                record.reply = _one_line(reply.text or "")[:300]
                again = ("Reply again, shorter, with the JSON object only." if reply.truncated
                         else "Reply again with the JSON object only.")
                messages = messages + [{"role": "assistant", "content": (reply.text or "")[:2000]},
                                       {"role": "user", "content": f"That reply was not usable ({problem}). {again}"}]
                continue
            record.repairs = reading.repairs
            record.outcome = "retried" if attempt else ("repaired" if reading.repairs else "accepted")
            if record.outcome != "accepted":
                self._log(prompt_name, f"{record.outcome}: " + "; ".join(record.problems + reading.repairs))
            return value
        record.outcome = "fell back"
        self._log(prompt_name, "fell back to the offline engine: " + "; ".join(record.problems) +
                  f" | last reply: {record.reply!r}")
        raise ModelError(f"the model {self.name} returned unusable output for '{prompt_name}' twice "
                         f"({record.problems[-1]})")

    def _ask(self, messages: list[dict], task: str, record: CallRecord, schema: dict) -> Reply:
        """One call, stepping down from json_schema to json_object to the prompt as long as the
        provider refuses the request itself (a refusal costs no retry)."""
        while True:
            started = time.monotonic()
            try:
                return self._request(messages, task, mode=record.mode, schema=schema)
            except _Refused as refusal:
                record.mode = self._downgrade(record.mode, str(refusal))
                if record.mode == "prompt":
                    messages[0] = {**messages[0], "content": messages[0]["content"] + schemas.in_prompt(task, schema)}
            finally:
                record.seconds.append(time.monotonic() - started)

    def _log(self, task: str, what: str) -> None:
        """A line in logs/model.log: how to see what a model did wrong."""
        if self.vault_root is None:
            return
        line = f"{clock.iso(clock.now())} | {self.name} | {task} | {_one_line(what)[:1500]}"
        try:
            path = Path(self.vault_root) / "logs" / MODEL_LOG
            path.parent.mkdir(parents=True, exist_ok=True)
            append_line(path, line)
        except (OSError, BraniacError):
            pass  # a log that cannot be written must not cost the task (the notice still says it)

    # ---------------------------------------------------------------- the tasks
    def search_queries(self, wm: WorkingMemory) -> list[str]:
        ctx = prompts.fenced_context(wm)
        values = dict(now=wm.now, identity=ctx["identity"], conversation=ctx["conversation"], prompt=wm.prompt)
        room = self._room("search_queries", short_term="", **values)
        short_term = prompts.fence("short_term_memory", budget.short_term_that_fits(wm.short_term, room))
        return self.complete_json("search_queries", valid_queries, short_term=short_term, **values)

    def answer(self, wm: WorkingMemory) -> Iterator[str]:
        ctx = prompts.fenced_context(wm)
        system = prompts.render("answer", self.vault_root, now=wm.now, **ctx)
        return self.stream([{"role": "system", "content": system}, {"role": "user", "content": wm.prompt}],
                           task="answer")

    def reflect(self, user: str, ai: str, short_term: str) -> Reflection:
        # the exchange sits inside <exchange> tags: a closing tag in it must not end them early
        user, ai = (text.replace("</exchange", "<\\/exchange") for text in (user, ai))
        room = self._room("reflect", user=user, ai=ai, short_term="")
        return self.complete_json("reflect", valid_reflection, user=user, ai=ai,
                                  short_term=prompts.fence("short_term_memory",
                                                           budget.short_term_that_fits(short_term, room)))

    # ---------------------------------------------------------------- promotion (vault-format.md §10.4)
    def analyze(self, events: list[EventRecord], known_titles: list[str]) -> list[Candidate]:
        """Candidates for all the events: in as many calls as it takes for each to fit."""
        room = self._room("promote_analyze", known_titles="", events="")
        titles = budget.first_that_fit(known_titles[:300], room // 4)
        listed = "\n".join(f"- {t}" for t in titles) or "(none yet)"
        found: dict[tuple[str, str], Candidate] = {}
        for group in budget.batches(events, room - budget.tokens(listed)):
            cite = schemas.citing(schemas.CANDIDATES, [e.id for e in group], ("candidates", "event_ids"))
            for c in self.complete_json("promote_analyze", _citing(group), cite, known_titles=listed,
                                        events=_fence_events(group)):
                same = found.setdefault((c.kind, c.title.strip().lower()), c)
                if same is not c:   # one topic in two groups: one note citing both groups' events
                    same.event_ids += [i for i in c.event_ids if i not in same.event_ids]
        return list(found.values())

    def synthesize(self, candidate: Candidate, events: list[EventRecord], existing: list[str]) -> NoteDraft:
        def valid(data: Any) -> NoteDraft:
            return valid_draft(data, candidate)
        claims = prompts.fence("existing_claims", "\n".join(existing) or "(none)")
        room = self._room("promote_synthesize", title=candidate.title, kind=candidate.kind, existing=claims,
                          events="")
        # the newest events that fit: the others are archived and in the day's digest all the same
        shown, _left_out = budget.newest_that_fit(events, room)
        cite = schemas.citing(schemas.DRAFT, [e.id for e in shown], ("claims", "sources"))
        return self.complete_json("promote_synthesize", valid, cite, title=candidate.title, kind=candidate.kind,
                                  existing=claims, events=_fence_events(shown))

    def summarize(self, promoted: list[EventRecord], remaining: list[EventRecord], open_items: list[str]) -> str:
        def valid(data: Any) -> str:
            if not isinstance(data, dict) or not isinstance(data.get("summary"), str) or not data["summary"].strip():
                raise ValueError("expected {\"summary\": \"...\"}")
            return data["summary"].strip()[:3000]
        items = "\n".join(f"- {i}" for i in open_items) or "(none)"
        room = self._room("promote_summary", promoted="", remaining="", open_items=items)
        # what stays in short-term memory matters most to its summary: it gets the room first
        still, _ = budget.newest_that_fit(remaining, room // 2) if remaining else ([], 0)
        used = sum(budget.event_tokens(e) for e in still)
        gone, _ = budget.newest_that_fit(promoted, room - used) if promoted else ([], 0)
        return self.complete_json("promote_summary", valid, promoted=_fence_events(gone, "archived_events"),
                                  remaining=_fence_events(still, "remaining_events"), open_items=items)

    # ---------------------------------------------------------------- organization (vault-format.md §10.5)
    def propose_organization(self, request: OrganizationRequest) -> OrganizationPlan:
        def valid(data: Any) -> list[dict]:
            if not isinstance(data, dict) or not isinstance(data.get("operations"), list):
                raise ValueError("expected a JSON object with an 'operations' list")
            return data["operations"]  # each operation is checked by organization, which logs rejections
        return OrganizationPlan(self.complete_json(
            "organize", valid, statistics=prompts.fence("usage_statistics", json.dumps(request.statistics, indent=1))))


def _citing(group: list[EventRecord]) -> Callable[[Any], list[Candidate]]:
    """The analysis check for one group of events: a reply whose candidates cite none of them
    (an empty list, or ids the model made up) would leave every event out of long-term memory,
    so it is a problem the model is told of, and then a fall back to the offline analysis."""
    ids = {e.id for e in group}

    def valid(data: Any) -> list[Candidate]:
        found = valid_candidates(data)
        if ids and not any(i in ids for c in found for i in c.event_ids):
            raise ValueError("no candidate cites any of the events by the id in its ### heading; "
                             "every event that states a fact belongs in a note")
        return found
    return valid


def _fence_events(events: list[EventRecord], kind: str = "events") -> str:
    return prompts.fence(kind, "\n\n".join(f"### {e.id}\n{e.text}" for e in events) or "(none)")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
