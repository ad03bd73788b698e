"""What flows between the processes and a model: the working memory and the model's answers."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Excerpt:
    """A piece of long-term memory placed in the working memory."""
    uuid: str
    path: str          # vault-relative
    title: str
    text: str
    score: float = 0.0


@dataclass
class STMEntry:
    """A short-term memory event, for engines that want the events rather than the raw file."""
    id: str
    text: str          # every field, "Name: value" per line
    user: str = ""     # what the person said (the User field)


@dataclass
class WorkingMemory:
    """Spec §3.1: identity, conversation summary, short-term memory, LTM excerpts, the prompt."""
    identity: str
    conversation: str
    short_term: str
    prompt: str
    excerpts: list[Excerpt] = field(default_factory=list)
    stm_events: list[STMEntry] = field(default_factory=list)
    now: str = ""


@dataclass
class Reflection:
    """What reflection adds to short-term memory for one exchange (spec §4.3)."""
    thoughts: str
    goals: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    done_tasks: list[str] = field(default_factory=list)
