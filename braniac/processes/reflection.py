"""Reflection (vault-format.md §10.2): after each turn, record the exchange in short-term memory.

It runs in a background thread so the next prompt is never delayed. The exchange is journaled
(one small file in `.braniac/journal/`) before anything else, so a turn whose reflection has
not run yet survives the process dying; pending journals are replayed by the next braniac
process, and `flush()` drains the queue on exit. The model thinks outside the STM lock; the
lock is held only for the one atomic write of the event and its Structured Data updates.
"""
from __future__ import annotations

import json
import os
import queue
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..infra import clock, textutil
from ..infra.errors import BraniacError, InputError, LockBusy, NoteError
from ..infra.fsio import atomic_write, claim, read_bytes
from ..infra.notices import describe_os_error, notice
from ..model.offline import OfflineModel
from ..model.offline.sentences import sentences
from ..model.types import Reflection
from ..vault import key_facts, stm
from ..vault.store import MAX_EVENT_CHARS, STM_MAX_BYTES

if TYPE_CHECKING:
    from ..model import MemoryModel
    from ..vault.store import StoredEvent, VaultStore


@dataclass
class Exchange:
    user: str
    ai: str
    at: str                  # ISO time of the turn
    journal: Path | None = None
    model: "MemoryModel | None" = None   # who reflects, when not the session's model

# What short-term memory keeps of one exchange. A model's reply can be any size and contain
# anything (a NUL, a lone surrogate): stored as is, the vault would refuse the event, and its
# journal would fail again at every later start.
MAX_USER_CHARS = 150_000
MAX_AI_CHARS = 20_000

# A turn whose write finds short-term memory locked (a promotion archiving, organize, another
# chat) waits and tries again rather than leaving the person's words in a journal: pauses
# between tries, in seconds (each try already waits store.STM_LOCK_WAIT for the lock).
LOCK_RETRY_PAUSE = 1.0


def _storable(text: str, limit: int) -> str:
    text = text.replace("\x00", "").encode("utf-8", "replace").decode("utf-8")
    if len(text) > limit:
        text = text[:limit] + f" [… {len(text) - limit} more characters not kept]"
    return text


class Reflector:
    def __init__(self, vault: "VaultStore", model: "MemoryModel"):
        self.vault = vault
        self.model = model
        self.dir = vault.state_dir / "journal"
        self._queue: queue.Queue[Exchange | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._give_up_at: float | None = None     # set by flush: stop retrying a locked write then
        self._pending: set[Path] = set()          # this session's journals not yet recorded

    # ---------------------------------------------------------------- public
    def submit(self, user: str, ai: str, *, at: datetime | None = None) -> None:
        """Journal the exchange now; reflect on it in the background."""
        exchange = Exchange(user, ai, clock.iso(at or clock.now()))
        exchange.journal = self._journal(exchange)
        self._pending.add(exchange.journal)
        self._queue.put(exchange)
        self._ensure_thread()

    def reflect_now(self, user: str, ai: str, *, at: datetime | None = None,
                    model: "MemoryModel | None" = None) -> "StoredEvent":
        """The same, synchronously (one-shot commands, the benchmark). `model` overrides the
        session's (a turn whose model just failed is recorded by the offline engine)."""
        exchange = Exchange(user, ai, clock.iso(at or clock.now()), model=model)
        exchange.journal = self._journal(exchange)
        return self._process(exchange)

    def flush(self, timeout: float | None = 60.0) -> int:
        """Wait until every submitted exchange is in short-term memory, up to `timeout` seconds
        (a locked short-term memory is waited for until then). Returns how many are still only
        journaled, and says so: the next braniac session records them."""
        if self._thread is not None and self._thread.is_alive():
            self._give_up_at = None if timeout is None else time.monotonic() + timeout
            self._queue.put(None)
            self._thread.join(timeout)
            if not self._thread.is_alive():
                self._give_up_at = None   # the session goes on (/stm, /promote): wait again
            self._thread = None
        waiting = [path for path in list(self._pending) if path.exists()]
        self._pending = set(waiting)
        if waiting:
            notice(f"{len(waiting)} exchange(s) of this session are journaled in {self.dir} but not yet in "
                   "short-term memory; the next braniac session (`braniac chat` or `braniac ask`) records them")
        return len(waiting)

    def recover(self) -> int:
        """Replay journals left by a process that died before reflecting (oldest first)."""
        if not self.dir.is_dir():
            return 0
        done = 0
        for path in sorted(self.dir.glob("*.json")):
            claimed = path.with_suffix(f".{os.getpid()}.work")
            if not claim(path, claimed):  # another process took it first
                continue
            try:
                data = json.loads(claimed.read_text(encoding="utf-8"))
                exchange = Exchange(data["user"], data["ai"], data["at"], claimed)
            except (OSError, ValueError, KeyError):
                claim(claimed, claimed.with_suffix(".broken"))
                continue
            try:
                if self._already_recorded(exchange):
                    claimed.unlink(missing_ok=True)
                    continue
                self._process(exchange)
            except InputError as exc:  # the vault can never accept it: _process set it aside
                notice(f"a journaled exchange could not be recorded and was set aside ({exc})")
                continue
            except BraniacError as exc:
                # never let a journal stop the session from starting: keep it for the next run
                claim(claimed, path)
                notice(f"could not record a journaled exchange yet ({exc})")
                break
            done += 1
        for stale in self.dir.glob("*.work"):  # claimed by a process that died
            pid = stale.suffixes[-2].lstrip(".") if len(stale.suffixes) >= 2 else ""
            if pid.isdigit() and not _alive(int(pid)):
                claim(stale, stale.with_name(stale.name.split(".")[0] + ".json"))
        return done

    # ---------------------------------------------------------------- internals
    def _journal(self, exchange: Exchange) -> Path:
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / f"{exchange.at.replace(':', '')}-{secrets.token_hex(3)}.json"
        atomic_write(path, json.dumps({"user": exchange.user, "ai": exchange.ai, "at": exchange.at}))
        return path

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="braniac-reflection", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            exchange = self._queue.get()
            if exchange is None:
                return
            try:
                self._process_waiting(exchange)
            except BraniacError as exc:
                notice(f"reflection failed, the exchange stays journaled for the next run: {exc}")
            except OSError as exc:   # a full disk, say: the chat goes on, the journal stays
                notice(f"could not write the exchange to short-term memory ({describe_os_error(exc)}); "
                       "it stays journaled for the next run")
            except Exception as exc:  # noqa: BLE001 - a bug must not end the thread (and the chat's memory)
                notice(f"reflection failed ({type(exc).__name__}: {exc}); the exchange stays journaled for the next run")

    def _process_waiting(self, exchange: Exchange) -> "StoredEvent":
        """_process, tried again while short-term memory is locked by another braniac process,
        until flush's deadline (none before the session closes)."""
        while True:
            try:
                return self._process(exchange)
            except LockBusy:
                if self._give_up_at is not None and time.monotonic() >= self._give_up_at:
                    raise
                time.sleep(LOCK_RETRY_PAUSE)

    def _process(self, exchange: Exchange) -> "StoredEvent":
        short_term = _short_term_text(self.vault)
        user, ai = _storable(exchange.user, MAX_USER_CHARS), _storable(exchange.ai, MAX_AI_CHARS)
        try:
            reflection = (exchange.model or self.model).reflect(user, ai, short_term)
        except BraniacError as exc:
            notice(f"the model could not reflect ({exc}); recorded the exchange verbatim")
            reflection = OfflineModel().reflect(user, ai, short_term)
        changed, facts = _changed_facts(short_term, user, reflection.facts, clock.parse_iso(exchange.at))
        try:
            event = self.vault.append_event(
                {k: v for k, v in (("User", user), ("AI", ai), ("Thoughts", reflection.thoughts)) if v.strip()},
                at=clock.parse_iso(exchange.at), goals=reflection.goals, facts=facts,
                tasks=reflection.tasks, done_tasks=reflection.done_tasks, changed_facts=changed)
        except InputError:
            if exchange.journal is not None and exchange.journal.exists():
                claim(exchange.journal, exchange.journal.with_suffix(".broken"))  # would fail forever
            raise
        if exchange.journal is not None:
            exchange.journal.unlink(missing_ok=True)
            self._pending.discard(exchange.journal)
        return event

    def _already_recorded(self, exchange: Exchange) -> bool:
        """A journal whose event is already in short-term memory (died between write and cleanup)."""
        second = exchange.at[:19]
        for event in self.vault.read_stm().events:
            if event.id.startswith(second):
                fields = event.fields
                if fields.get("User") == _storable(exchange.user, MAX_USER_CHARS).strip() and \
                        fields.get("AI") == _storable(exchange.ai, MAX_AI_CHARS).strip():
                    return True
        return False


def remember(vault: "VaultStore", text: str) -> "StoredEvent":
    """`braniac remember`: store the person's words verbatim, and pick up any goal, task or
    decision they state (the offline engine's reading, no model call)."""
    if not text.strip():
        raise InputError("nothing to remember: the text is empty")
    if len(text) > MAX_EVENT_CHARS:   # refused before reading it: a huge text takes the reflection seconds
        raise InputError(f"text too large to remember ({len(text)} characters; the limit is {MAX_EVENT_CHARS}); "
                         "save long documents as notes instead")
    short_term = _short_term_text(vault)
    reflection = OfflineModel().reflect(text, "", short_term)
    changed, facts = _changed_facts(short_term, text, reflection.facts, clock.now())
    return vault.append_event({"User": text, "Thoughts": "Asked to remember this. " + reflection.thoughts},
                              goals=reflection.goals, facts=facts, tasks=reflection.tasks,
                              done_tasks=reflection.done_tasks, changed_facts=changed)


def _changed_facts(short_term: str, said: str, facts: list[str], at: datetime) -> tuple[list[tuple[str, str]], list[str]]:
    """(key fact, what it now reads) for each key fact of short-term memory that the person's
    words replace on the day of `at` (key_facts.py), and the new key facts left to add: one that
    the replacing statement states is in the rewritten item."""
    doc = stm.parse(short_term)
    statements = [s for s in sentences(said, any_case=True) if not s.rstrip().endswith("?")]
    said_terms = textutil.terms(" ".join(statements))
    # (only an item that shares a word with what was said may be replaced: most turns read none)
    items = [item.text for item in doc.items(stm.FACTS) if textutil.terms(key_facts.current(item.text)) & said_terms]
    if not items:
        return [], facts
    stated_in, events = {}, doc.events
    for item in items:
        now = key_facts.current(item).lower()
        event = next((e for e in events if now in e.raw.lower()), None)
        told = sentences(event.fields.get("User", ""), any_case=True) if event else []
        stated_in[item] = next((s for s in told if now in s.lower()), "")
    changed = key_facts.replaced(stated_in, statements)
    return [(item, key_facts.changed(item, statement, at)) for item, statement in changed], \
        [f for f in facts if not any(f.lower() in statement.lower() for _, statement in changed)]


def _short_term_text(vault: "VaultStore") -> str:
    """short_term.md as context for reflecting, or '' when it cannot be read (the write that
    follows says clearly why: a FIFO, a symlink out, a binary file)."""
    try:
        return read_bytes(vault.stm_path, limit=STM_MAX_BYTES).decode("utf-8", errors="replace")
    except (OSError, NoteError):
        return ""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


__all__ = ["Reflector", "Reflection", "Exchange"]
