"""A working session over one vault: the composition root shared by `ask`, `chat` and the API.

It reads the configuration once, picks the model, and wires the core loop to reflection.
"""
from __future__ import annotations

from typing import Callable

from .infra.errors import BraniacError
from .infra.notices import notice
from .model import MemoryModel, configured_model
from .model.offline import OfflineModel
from .processes.core_loop import CoreLoop, Turn
from .processes.reflection import Reflector
from .vault.links import rebase
from .vault.store import VaultStore


class Session:
    def __init__(self, vault: VaultStore, *, model: "str | MemoryModel | None" = None):
        self.vault = vault
        self.config, self.model = configured_model(vault.root, model)
        self.loop = CoreLoop(vault, self.model, self.config)
        self.reflector = Reflector(vault, self.model)
        recovered = self.reflector.recover()
        if recovered:
            notice(f"recorded {recovered} exchange(s) left unreflected by an earlier session")

    @property
    def model_label(self) -> str:
        return model_label(self.model.name)

    def turn(self, prompt: str, *, on_chunk: Callable[[str], None] | None = None, background: bool = True) -> Turn:
        """One core-loop turn, then reflection. If the turn fails, the prompt (and any part of
        the answer already streamed) is still recorded in short-term memory, with the error,
        before the error is raised."""
        try:
            turn = self.loop.run(prompt, on_chunk=on_chunk)
        except Exception as exc:
            # whatever failed (the model, a prompt template, the index, a bug of ours), the
            # person's words are kept; read by the offline engine, as the model may be what
            # just failed
            if prompt.strip():
                said = getattr(exc, "partial_answer", "")  # the stream broke after some text
                ai = f"{said.rstrip()} [cut off: {exc}]" if said.strip() else f"[no answer: {exc}]"
                try:
                    self.reflector.reflect_now(prompt, ai, model=OfflineModel())
                except (BraniacError, OSError) as kept:
                    notice(f"could not record your message in short-term memory either ({kept})")
            raise
        # an answer quoting a note carries that note's relative links: aimed from short_term.md
        quoted = [self.vault.root / path for path in dict.fromkeys(e.path for e in turn.excerpts)]
        stored = rebase(turn.answer, quoted, self.vault.stm_path)
        if background:
            self.reflector.submit(prompt, stored)
        else:
            self.reflector.reflect_now(prompt, stored)
        return turn

    def close(self) -> None:
        self.reflector.flush()
        self.loop.close()


def model_label(name: str | None) -> str:
    """How the chat banner (and anyone else) names the model in use."""
    if not name or name == "offline":
        return "offline (no language model configured: answers quote your memory)"
    return name
