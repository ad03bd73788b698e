"""Meaning beside words: with an embedding model configured (`[embedding]`, model/embeddings.py),
a passage close in meaning to the prompt scores more, though it shares no word with it.

"What is Caroline excited about in the adoption process?" shares nothing but a name with "I'm
thrilled to make a family for kids who need one"; a question about a person's activities shares
nothing with "we went camping with the kids". Words rank such evidence far down the list.
A passage whose cosine with the prompt is above the mean of the passages scored gets WEIGHT
times the difference added to its word match: it can enter with no word in common, and rises
when it means what the prompt asks, while the words still decide among passages that mean the
same. Measured from the pool's mean, not from zero, because models differ in where unrelated
texts' cosines sit (near 0 for some, near 0.4 for others).

A turn asks the model for at most NEW_PER_TURN passages it has no vector for yet (a big vault's
first turns fill the cache); the others get no term that turn. When the model cannot be reached
the turn ranks by words alone and says so once.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from ..infra.notices import notice
from ..model.embeddings import cosine
from ..model.types import ModelUnavailable
from .documents import answers, kind_of
from .passages import note_passages

if TYPE_CHECKING:
    from ..model.embeddings import Embedder
    from ..vault.store import VaultStore
    from .index import SearchIndex
    from .passages import Passage

# Measured on the LoCoMo dev split with all-MiniLM-L6-v2 (bench/README.md, "Recall by meaning"): weights
# 6-20 over raw cosines, over cosines less the pool's mean, or over standard scores all gain 2-2.5
# points at 750 words. A word of the prompt matched once in a passage adds about 1-3.
WEIGHT = 10.0
NEW_PER_TURN = 512

_EVENT_LINK = re.compile(r"\(?\[?\[?\d{4}-\d{2}-\d{2}T[\d:.\-]+Z\]?\]?(\([^)]*\))?\)?")
_MARKS = re.compile(r"\*\*(User|AI):\*\*|^#+ |^> ?|^- |\\\[|\\\]", re.M)


class Meaning:
    """The prompt's closeness to each passage, for one retrieval."""

    def __init__(self, embedder: "Embedder", prompt: str):
        self.embedder = embedder
        self.prompt = " ".join(prompt.split())
        self.closeness: dict[str, float] = {}   # passage text -> cosine with the prompt
        self.off = not self.prompt
        self.room = NEW_PER_TURN   # passages this retrieval may still ask the model for

    def lift(self, passages: list["Passage"], note_prior: Callable[["Passage"], float]) -> None:
        """Add the term to each passage's match and score; `note_prior(p)` is the score a
        passage's note rank gives it, which a passage entering on meaning alone gets too."""
        self._measure(passages)
        known = [self.closeness[p.text] for p in passages if p.text in self.closeness]
        if len(known) < 2:
            return
        mean = sum(known) / len(known)
        for p in passages:
            if p.text not in self.closeness:
                continue
            extra = WEIGHT * (self.closeness[p.text] - mean)
            if extra <= 0:
                continue
            if p.match <= 0:
                p.match, p.score = extra, extra + note_prior(p)
            else:
                p.match += extra
                p.score += extra

    def _measure(self, passages: list["Passage"]) -> None:
        if self.off:
            return
        plain = {p.text: plain_words(p.text) for p in passages if p.text not in self.closeness}
        if not plain:
            return
        try:
            vectors = self.embedder.vectors([self.prompt, *plain.values()], most_new=self.room + 1)
            self.room = max(0, self.room - self.embedder.last_new)
        except ModelUnavailable as exc:
            notice(f"ranking by words alone this turn: {exc}")
            self.off = True
            return
        question = vectors.get(self.prompt)
        if question is None:   # the model is resting after a failure, and never saw this prompt
            self.off = True
            return
        for text, words in plain.items():
            vector = vectors.get(words)
            if vector is not None:
                self.closeness[text] = cosine(question, vector)


def plain_words(text: str) -> str:
    """A passage as the words a person reads: no event ids or links, no Markdown marks."""
    return " ".join(_MARKS.sub(" ", _EVENT_LINK.sub(" ", text)).split())


def fill(index: "SearchIndex", embedder: "Embedder", progress: Callable[[int, int], None] | None = None) -> tuple[int, int]:
    """`braniac reindex --vectors`: ask for the vector of every long-term passage not kept yet,
    so that no turn waits for them. (passages, asked for); ModelUnavailable if the model fails
    (what it answered before that stays kept)."""
    index.sync()
    ordered, asked = passage_texts(index.vault, sorted(index.files())), 0
    for start in range(0, len(ordered), NEW_PER_TURN):
        embedder.vectors(ordered[start:start + NEW_PER_TURN])
        asked += embedder.last_new
        if progress:
            progress(min(start + NEW_PER_TURN, len(ordered)), len(ordered))
    return len(ordered), asked


def fill_notes(vault: "VaultStore", notes: list[str], embedder: "Embedder", most: int = NEW_PER_TURN) -> list[str]:
    """The idle worker's share of `fill`: the vectors of these notes' passages (vault-relative
    paths, one after the other), asking the model for at most `most` new ones. Returns the notes
    still waiting: those past `most`, and all from the first one the model left unanswered (it
    is resting after a failure). ModelUnavailable if the model fails."""
    waiting = list(notes)
    while waiting and most > 0:
        texts = passage_texts(vault, waiting[:1])
        got = embedder.vectors(texts, most_new=most)
        most -= embedder.last_new
        if len(got) < len(texts):
            break
        waiting.pop(0)
    return waiting


def passage_texts(vault: "VaultStore", notes: list[str]) -> list[str]:
    """The distinct texts that retrieval asks vectors for, of these notes' passages (memory
    notes only: the passages a turn scores)."""
    texts: dict[str, None] = {}
    for rel in notes:
        if answers(kind_of(rel), rel):
            texts.update(dict.fromkeys(plain_words(p.text) for p in note_passages(vault, rel, 0)))
    return list(texts)
