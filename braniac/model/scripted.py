"""A model whose replies are scripted task by task: the in-process test double for anything
that asks a model, shipped with braniac so its own tests and its users' tests share one.

    model = ScriptedModel()
    model.enqueue("search_queries", ["kayak trip"])
    model.enqueue("answer", ["You went ", "kayaking", KeyboardInterrupt()])
    model.enqueue("reflect", ModelError("the server broke off"), slow_reflection)
    Vault(root).ask("Where did I go?", model=model)
    model.history                # every call, in order: Call(task, args)
    model.calls("reflect")       # the calls of one task

Each task has its own queue, first in, first out. A reply is
    a value        the task's result; for `answer` a string is one chunk and a list the chunks
    an exception   raised when the task is called; among `answer` chunks, raised after the
                   chunks before it (Ctrl-C or a dropped connection mid-stream)
    a callable     called with the task's arguments, in order; its return value is the reply
                   (so it can append to short-term memory, sleep, or ask `model.fallback`)
A task with nothing queued is passed to the fallback model, the offline engine unless another
is given; with `fallback=None` it raises `NothingQueued`.
"""
from __future__ import annotations

import collections
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from .offline import OfflineModel
from .organization_types import OrganizationPlan, OrganizationRequest
from .types import Candidate, EventRecord, NoteDraft, Reflection, WorkingMemory

if TYPE_CHECKING:
    from . import MemoryModel

TASKS = ("search_queries", "answer", "reflect", "analyze", "synthesize", "summarize", "propose_organization")
_OFFLINE = OfflineModel()  # stateless: one serves every scripted model


class NothingQueued(LookupError):
    """A task was called with no reply queued for it and no fallback model."""


@dataclass
class Call:
    """One call of a task, with its arguments by name."""
    task: str
    args: dict[str, Any]


class ScriptedModel:
    def __init__(self, name: str = "scripted", *, fallback: "MemoryModel | None" = _OFFLINE):
        self.name = name
        self.fallback = fallback
        self.history: list[Call] = []
        self._queues: dict[str, collections.deque] = {task: collections.deque() for task in TASKS}
        self._lock = threading.Lock()  # reflection calls the model from its own thread

    def enqueue(self, task: str, *replies: Any) -> "ScriptedModel":
        """Queue replies for the next calls of `task`; returns the model, so calls chain."""
        if task not in self._queues:
            raise ValueError(f"no task named {task!r}; the tasks are {', '.join(TASKS)}")
        with self._lock:
            self._queues[task].extend(replies)
        return self

    def calls(self, task: str) -> list[Call]:
        with self._lock:
            return [call for call in self.history if call.task == task]

    def pending(self, task: str) -> int:
        """How many replies queued for `task` are still unused."""
        with self._lock:
            return len(self._queues[task])

    # ---------------------------------------------------------------- the tasks
    def search_queries(self, wm: WorkingMemory) -> list[str]:
        return self._reply("search_queries", wm=wm)

    def answer(self, wm: WorkingMemory) -> Iterator[str]:
        reply = self._reply("answer", wm=wm)
        return _stream([reply] if isinstance(reply, str) else reply)

    def reflect(self, user: str, ai: str, short_term: str) -> Reflection:
        return self._reply("reflect", user=user, ai=ai, short_term=short_term)

    def analyze(self, events: list[EventRecord], known_titles: list[str]) -> list[Candidate]:
        return self._reply("analyze", events=events, known_titles=known_titles)

    def synthesize(self, candidate: Candidate, events: list[EventRecord], existing: list[str]) -> NoteDraft:
        return self._reply("synthesize", candidate=candidate, events=events, existing=existing)

    def summarize(self, promoted: list[EventRecord], remaining: list[EventRecord], open_items: list[str]) -> str:
        return self._reply("summarize", promoted=promoted, remaining=remaining, open_items=open_items)

    def propose_organization(self, request: OrganizationRequest) -> OrganizationPlan:
        return self._reply("propose_organization", request=request)

    def _reply(self, task: str, **args: Any) -> Any:
        """Record the call, then play the next reply queued for the task (or ask the fallback)."""
        with self._lock:
            self.history.append(Call(task, args))
            queue = self._queues[task]
            scripted, reply = (True, queue.popleft()) if queue else (False, None)
        if not scripted:
            if self.fallback is None:
                raise NothingQueued(f"the scripted model {self.name!r} has no reply queued for {task} "
                                    "and no fallback model")
            return getattr(self.fallback, task)(*args.values())
        if _is_exception(reply):
            raise reply
        if callable(reply):
            return reply(*args.values())
        return reply


def _is_exception(reply: Any) -> bool:
    return isinstance(reply, BaseException) or isinstance(reply, type) and issubclass(reply, BaseException)


def _stream(chunks: Iterable[Any]) -> Iterator[str]:
    for chunk in chunks:
        if _is_exception(chunk):
            raise chunk
        yield chunk
