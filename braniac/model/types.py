"""What flows between the processes and a model: the working memory and the model's answers."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..infra.errors import ModelError


class ModelUnavailable(ModelError):
    """The model could not be reached or its server failed (HTTP error, timeout, unreadable
    response), as opposed to a reply that was merely unusable. The core loop gives up on the
    turn at once rather than wait on the same dead server a second time."""


@dataclass
class Excerpt:
    """A piece of long-term memory placed in the working memory."""
    uuid: str
    path: str          # vault-relative
    title: str
    text: str
    score: float = 0.0
    # when a passage that cites no event was last written (a note the person keeps), spelled as
    # an event id: what a later statement can make history, or what can make an earlier one so
    written: str | None = None


@dataclass
class STMEntry:
    """A short-term memory event, for engines that want the events rather than the raw file."""
    id: str
    text: str          # every field, "Name: value" per line
    user: str = ""     # what the person said (the User field)


@dataclass
class WorkingMemory:
    """What a turn puts before the model: identity, conversation summary, short-term memory, LTM excerpts, the prompt."""
    identity: str
    conversation: str
    short_term: str
    prompt: str
    excerpts: list[Excerpt] = field(default_factory=list)
    stm_events: list[STMEntry] = field(default_factory=list)
    now: str = ""


@dataclass
class Reflection:
    """What reflection adds to short-term memory for one exchange (vault-format.md §10.2)."""
    thoughts: str
    goals: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    done_tasks: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------- promotion (vault-format.md §10.4)

@dataclass
class EventRecord:
    """One short-term-memory event as promotion sees it."""
    id: str
    fields: dict[str, str]

    @property
    def user(self) -> str:
        return self.fields.get("User", "")

    @property
    def ai(self) -> str:
        return self.fields.get("AI", "")

    @property
    def text(self) -> str:
        return "\n".join(f"{k}: {v}" for k, v in self.fields.items())


@dataclass
class Candidate:
    """Analyze's output: something worth a long-term note, and the events it rests on."""
    kind: str                 # "concrete" or "skills"
    folder: list[str]         # topic path below the tier, most general first, e.g. ["people"]
    title: str
    event_ids: list[str]


@dataclass
class Claim:
    text: str
    sources: list[str]        # event ids
    supersedes: str | None = None


@dataclass
class NoteDraft:
    """Synthesize's output: one note's content, which braniac's own code then writes."""
    kind: str
    folder: list[str]
    title: str
    summary: str
    claims: list[Claim]
    tags: list[str] = field(default_factory=list)
    emotion: str = "neutral"
    related: list[str] = field(default_factory=list)   # titles of other drafts in this promotion
