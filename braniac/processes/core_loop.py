"""The core loop (vault-format.md §10.3): one turn from prompt to answer.

    prompt -> working memory (identity, conversation, whole STM) -> model's search queries
           -> search + excerpts -> answer (streamed) -> access.log line per LTM file read

Reflection of the exchange into short-term memory is handed to a Reflector afterwards.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from ..vault import access_log
from ..vault.layout import SHORT_TERM
from ..infra import clock
from ..infra.config import Config
from ..infra.errors import BraniacError, ModelError
from ..infra.untrusted import checked_text
from ..infra.notices import notice
from ..model import budget
from ..model.offline import OfflineModel
from ..model.types import Excerpt, ModelUnavailable, WorkingMemory
from ..model.embeddings import Embedder
from ..search.index import SearchIndex
from ..search.meaning import Meaning
from ..search.retrieval import retrieve
from .working_memory import CHARS_PER_TOKEN, Conversation, fit, said_lately, stm_entries

if TYPE_CHECKING:
    from ..model import MemoryModel
    from ..vault.store import VaultStore


@dataclass
class Turn:
    prompt: str
    queries: list[str] = field(default_factory=list)
    excerpts: list[Excerpt] = field(default_factory=list)
    answer: str = ""
    model: str = ""
    interrupted: bool = False
    notices: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"answer": self.answer, "model": self.model, "queries": self.queries,
                "context": [{"uuid": e.uuid, "path": e.path, "excerpt": e.text} for e in self.excerpts]}


class CoreLoop:
    """Runs turns for one session. Keep one per REPL: its index stays open (warm searches)."""

    def __init__(self, vault: "VaultStore", model: "MemoryModel", config: Config, *, index: "SearchIndex | None" = None):
        self.vault = vault
        self.model = model
        self.config = config
        self.index = index or SearchIndex(vault)
        self.conversation = Conversation()
        self.changes = None   # a watch.ChangeFeed in long-lived processes (the chat)
        # meaning beside words, when braniac.toml names an embedding model (search/meaning.py)
        self.embedder = Embedder(config.embedding, vault.root) if config.embedding.name else None

    def close(self) -> None:
        self.index.close()
        if self.embedder:
            self.embedder.close()

    def prepare(self, prompt: str, *, sync: bool = True, limit: int | None = None,
                short_term_in_excerpts: bool = False) -> tuple[Turn, WorkingMemory]:
        """Steps 1–4 and 6: everything but the answer (also what the benchmark measures, and
        what a host with its own model recalls). `limit`: excerpts retrieved (default: config).
        `short_term_in_excerpts`: short-term memory's events compete as excerpts (a host that
        has not read short-term memory; a turn's working memory holds it whole)."""
        if not isinstance(prompt, str) or not prompt.strip():
            raise BraniacError("empty prompt")
        checked_text(prompt, "the prompt")
        turn = Turn(prompt=prompt, model=self.model.name)
        if sync:
            self.sync()
        identity = self.vault.read_identity()
        short_term = self.vault.read_stm().render()
        wm = WorkingMemory(identity=identity, conversation=self.conversation.summary(), short_term=short_term,
                           prompt=prompt, stm_events=stm_entries(short_term), now=clock.iso(clock.now()))
        turn.queries = self._queries(wm, turn)
        meaning = Meaning(self.embedder, prompt) if self.embedder else None
        recent = said_lately(short_term) if short_term_in_excerpts else []
        found = retrieve(self.index, turn.queries, limit=limit or self.config.search_limit, prompt=prompt,
                         meaning=meaning, recent=recent)
        wm.excerpts = found.excerpts
        fit(wm, self.conversation, self._context_budget())
        turn.excerpts = list(wm.excerpts)
        # one line per file (vault-format.md §9), though several passages of one note may be in the context
        access_log.record_turn(self.vault.access_log_path, prompt,
                               [self.vault.root / path for path in dict.fromkeys(e.path for e in turn.excerpts)
                                if path != SHORT_TERM])   # read whole every turn: no note of the access
        return turn, wm

    def _context_budget(self) -> int:
        """The working memory's token budget: memory.context_tokens, and with a language model
        no more than its context window leaves once the answer template and reply have room."""
        if not self.config.model.name:
            return self.config.context_tokens
        room = budget.answer_room_chars(self.config.model.context_tokens) // CHARS_PER_TOKEN
        return min(self.config.context_tokens, room)

    def sync(self) -> None:
        """Bring the search index up to date before a search."""
        changed = self.changes.pending() if self.changes is not None else None
        if changed is None:
            self.index.sync()          # walk everything (one-shot commands, or reconcile time)
        elif changed:
            self.index.sync(changed)   # only what the watcher saw change since the last turn

    def _queries(self, wm: WorkingMemory, turn: Turn) -> list[str]:
        try:
            queries = self.model.search_queries(wm)
        except ModelUnavailable:
            raise  # the server is down or broken: the answer call would fail (or time out) again
        except ModelError as exc:
            turn.notices.append(f"{exc}; searching with keywords from the prompt instead")
            notice(turn.notices[-1])
            queries = []
        return queries or OfflineModel().search_queries(wm) or [wm.prompt]

    def run(self, prompt: str, *, on_chunk: Callable[[str], None] | None = None) -> Turn:
        """One whole turn. Ctrl-C while streaming keeps what was said so far (turn.interrupted)."""
        turn, wm = self.prepare(prompt)
        chunks: list[str] = []
        try:
            for chunk in self.model.answer(wm):
                chunks.append(chunk)
                if on_chunk:
                    on_chunk(chunk)
        except KeyboardInterrupt:
            turn.interrupted = True
        except ModelError as exc:
            exc.partial_answer = "".join(chunks)  # already shown to the person: the session keeps it
            raise
        finally:
            turn.answer = "".join(chunks)
        if turn.interrupted:
            turn.answer += " [interrupted]"
        self.conversation.add(prompt, turn.answer)
        return turn
