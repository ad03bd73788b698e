"""`braniac chat`: the interactive core loop.

The prompt appears at once: the session (index sync, and LiteLLM's slow import when a model is
configured) warms up in a background thread while the person types. Answers stream; Ctrl-C
stops a generation but keeps the session and the turn; Ctrl-D or /quit leaves, after every
pending reflection is written. Piped stdin works too (one prompt per line) for scripts.
"""
from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Callable, TextIO

from ..infra import config, notices
from ..infra.notices import describe_os_error
from ..infra.errors import BraniacError
from ..infra.untrusted import printable
from ..model.llm import preload
from ..processes.idle import IdleWorker
from ..session import Session, model_label
from .watch import ChangeFeed

if TYPE_CHECKING:
    from ..api import Vault

HELP = """commands:
  /search QUERY     search long-term and short-term memory
  /remember TEXT    add TEXT to short-term memory as an event
  /stm              show short-term memory
  /promote          consolidate short-term into long-term memory now
  /help             this list
  /quit             leave (Ctrl-D works too)
anything else is a message to the assistant; Ctrl-C stops an answer in progress."""


class Chat:
    def __init__(self, vault: "Vault", *, model: str | None = None, out: TextIO = sys.stdout, err: TextIO = sys.stderr):
        self.vault = vault
        self.out, self.err = out, err
        self._shown = notices.show_on(err)   # the library's notices, on this chat's stream
        self.session = None
        self._model = model
        self._ready = threading.Event()
        self._error: BaseException | None = None
        threading.Thread(target=self._warm_up, name="braniac-warm-up", daemon=True).start()

    def say(self, text: str = "", end: str = "\n") -> None:
        """Everything the chat prints (answers, excerpts, short-term memory): what a terminal
        would obey (ESC sequences, C1 controls) is shown, not sent."""
        self.out.write(printable(text) + end)
        self.out.flush()

    def notice(self, text: str) -> None:
        """The chat's own messages, in the same form as the library's notices."""
        self.err.write(f"{notices.PREFIX}{printable(text)}\n")
        self.err.flush()

    def _warm_up(self) -> None:
        try:
            self.session = Session(self.vault, model=self._model)
            if self.session.model.name != "offline":
                preload()
            self.session.loop.changes = ChangeFeed(self.vault)  # turns then sync only what changed
            self.session.loop.index.sync()
            self.session.loop.index.searcher()
        except BaseException as exc:  # reported when the person first needs the session
            self._error = exc
        finally:
            self._ready.set()

    def ready_session(self):
        self._ready.wait()
        if self._error is not None:
            raise self._error
        return self.session

    # ------------------------------------------------------------------ one line of input
    def handle(self, line: str) -> bool:
        """Act on one line; False means leave."""
        text = line.strip()
        if not text:
            return True
        if text.startswith("/"):
            return self._command(text)
        session = self.ready_session()
        try:
            turn = session.turn(text, on_chunk=lambda chunk: self.say(chunk, end=""))
        except BraniacError as exc:
            self.say()
            self.notice(f"{exc} (your message was kept in short-term memory)")
            return True
        except OSError as exc:   # a full disk, say: said, and the chat goes on
            self.say()
            self.notice(describe_os_error(exc))
            return True
        self.say()
        if turn.interrupted:
            self.notice("answer stopped; the turn was kept")
        return True

    def _command(self, text: str) -> bool:
        name, _, arg = text.partition(" ")
        arg = arg.strip()
        if name in ("/quit", "/exit", "/q"):
            return False
        if name == "/help":
            self.say(HELP)
        elif name == "/remember":
            if not arg:
                self.say("usage: /remember TEXT")
            else:
                self._settle()
                event = self.vault.remember(arg)
                self.say(f"remembered as event {event.id}")
        elif name == "/search":
            if not arg:
                self.say("usage: /search QUERY")
                return True
            self._settle()
            hits = self.ready_session().loop.index.search(arg, limit=8)
            if not hits:
                self.say("no matches")
            for n, hit in enumerate(hits, 1):
                self.say(f"{n}. {hit.title}  [{hit.kind}] {hit.path}")
                if hit.excerpt:
                    self.say(f"   {hit.excerpt}")
        elif name == "/stm":
            self._settle()
            self.say(self.vault.read_stm().render().rstrip())
        elif name == "/promote":
            self._promote()
        else:
            self.say(f"unknown command {name}; /help lists them")
        return True

    def _settle(self) -> None:
        """Let pending reflections land first: /stm and /search show the turn just had, and a
        /remember goes on top of it in the Event Log, not under it."""
        if self._ready.is_set() and self.session is not None:
            self.session.reflector.flush()

    def _promote(self) -> None:
        session = self.ready_session()
        session.reflector.flush()  # the turns of this session first
        report = self.vault.promote(force=True, model=session.model)
        self.say(report.describe())

    def close(self) -> None:
        if self._ready.is_set() and self.session is not None:
            if self.session.loop.changes is not None:
                self.session.loop.changes.close()
            self.session.close()
        if self._shown.target is not None:   # a stream of its own (stderr's handler is shared)
            notices.hide(self._shown)


def _read_lines(chat: Chat, prompt_text: str) -> Callable[[], str]:
    """A line reader: prompt_toolkit (history, editing) on a terminal, plain stdin otherwise."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        # imported only on a terminal: a tenth of a second scripts and pipes need not pay
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory
        chat.vault.state_dir.mkdir(parents=True, exist_ok=True)
        prompt_session = PromptSession(history=FileHistory(str(chat.vault.state_dir / "chat_history")))
        return lambda: prompt_session.prompt(prompt_text)

    def read() -> str:
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line
    return read


def run_chat(vault: "Vault", *, model: str | None = None) -> None:
    chat = Chat(vault, model=model)
    # the banner comes before the session is ready (it warms up in the background): read the
    # configuration once more here rather than wait for it
    chat.say(f"braniac chat · vault {vault.root} · model: {model_label(config.load(vault.root, model=model).model.name)}")
    chat.say("type /help for commands, Ctrl-D to leave")
    read = _read_lines(chat, "you> ")
    stop_idle = threading.Event()
    IdleWorker(vault, model=model).start_background(stop_idle)
    try:
        while True:
            try:
                line = read()
            except KeyboardInterrupt:
                continue  # Ctrl-C at the prompt clears the line
            except EOFError:
                break
            try:
                if not chat.handle(line):
                    break
            except KeyboardInterrupt:
                chat.notice("interrupted")
            except BraniacError as exc:
                chat.notice(str(exc))
            except OSError as exc:
                chat.notice(describe_os_error(exc))
    finally:
        stop_idle.set()
        chat.close()
