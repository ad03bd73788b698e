"""Orient and wrap-up: the two ends of an assistant's session (brainctl's lifecycle).

`orient` reads, at the start of a session, what the assistant should know before the first
prompt: the core identity, short-term memory's Summary, the open goals and tasks, the last
session's handoff, the latest events, the decisions of the last days and the hubs of long-term
memory. `wrap_up` writes, at the end of one, what the next session needs: an event (the summary,
the open loops, the next step) and the open loops as tasks, which survive promotion's reset of
short-term memory, so that the next `orient` starts where this session stopped.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING

from ..infra import clock
from ..infra.errors import InputError, NoteError, STMError
from ..infra.fsio import read_text
from ..infra.untrusted import checked_text
from ..vault import notes, stm
from ..vault.claims import parse_fact
from ..vault.layout import event_id_of_file, event_order, is_event_id
from . import insights

if TYPE_CHECKING:
    from ..vault.store import StoredEvent, VaultStore

WRAP_UP = "Session wrap-up: "          # how a wrap-up event's User field starts
OPEN_LOOPS, NEXT_STEP = "Open loops: ", "Next step: "
THOUGHTS = "Wrap-up of an assistant's session: a handoff for the next one."
NEXT_TASK = "Next step: "
MAX_LOOPS = 20
EVENT_CHARS = 400
DIGEST_LINES = 12
MAX_ARCHIVED = 200     # archived events read per day, newest first


@dataclass
class Handoff:
    event: str
    summary: str
    open_loops: list[str] = field(default_factory=list)
    next_step: str = ""


@dataclass
class Orientation:
    """The packet an assistant reads at the start of a session."""
    vault: str
    identity: str
    summary: str
    open_goals: list[str]
    open_tasks: list[str]
    handoff: Handoff | None
    latest_events: list[dict]
    decisions: list[str]
    recent_days: list[dict]
    hubs: dict
    problems: list[str] = field(default_factory=list)   # a part that could not be read, and why

    def as_dict(self) -> dict:
        return asdict(self)

    def as_markdown(self) -> str:
        """The packet as one Markdown text: what `braniac orient` prints and a hook injects."""
        out = [f"# braniac orientation ({self.vault})", ""]
        if self.identity.strip():
            out += ["## Core identity", self.identity.strip(), ""]
        if self.handoff:
            h = self.handoff
            out += [f"## Last session's handoff ({h.event})", h.summary]
            out += [f"- open: {loop}" for loop in h.open_loops]
            out += [f"- next step: {h.next_step}"] if h.next_step else []
            out.append("")
        if self.summary:
            out += ["## Short-term summary", self.summary, ""]
        for title, items in (("Open goals", self.open_goals), ("Open tasks", self.open_tasks),
                             ("Decisions and key facts", self.decisions)):
            if items:
                out += [f"## {title}", *(f"- {i}" for i in items), ""]
        if self.latest_events:
            out += ["## Latest events"] + [f"- {e['id']}: {_one_line(e['text'])}" for e in self.latest_events] + [""]
        for day in self.recent_days:
            out += [f"## {day['day']} (digest)", *(f"- {line}" for line in day["lines"]), ""]
        hubs = [h["path"] for h in self.hubs.get("most_linked", [])] + \
               [h["path"] for h in self.hubs.get("most_read", [])]
        if hubs:
            out += ["## Hubs of long-term memory", *(f"- {p}" for p in dict.fromkeys(hubs)), ""]
        out += [f"(could not read: {p})" for p in self.problems]
        return "\n".join(out).rstrip() + "\n"


def orient(vault: "VaultStore", *, events: int = 5, days: int = 3) -> Orientation:
    problems: list[str] = []
    try:
        identity = vault.read_identity()
        identity = notes.parse(identity).body.strip() if identity else ""
    except NoteError as exc:
        identity, problems = "", problems + [str(exc)]
    try:
        doc = vault.read_stm()
    except STMError as exc:
        doc, problems = stm.parse(""), problems + [str(exc)]
    recent = [(e.id, e.fields, e.text) for e in doc.events]
    archived = _archived_events(vault, days)
    handoff = next((h for h in (_handoff(i, f) for i, f, _t in recent + archived) if h), None)
    latest = [{"id": i, "text": t[:EVENT_CHARS]} for i, _f, t in (recent + archived)[:events]]
    return Orientation(
        vault=str(vault.root), identity=identity, summary=doc.summary,
        open_goals=[i.text for i in doc.items(stm.GOALS) if i.done is False],
        open_tasks=[i.text for i in doc.items(stm.TASKS) if i.done is False],
        handoff=handoff, latest_events=latest,
        decisions=[i.text for i in doc.items(stm.FACTS)],
        recent_days=_digests(vault, days), hubs=insights.usage_stats(vault)["hubs"], problems=problems)


def wrap_up(vault: "VaultStore", summary: str, open_loops: list[str] | tuple[str, ...] = (),
            next_step: str | None = None) -> "StoredEvent":
    """Record the end of a session: one event, and each open loop (and the next step) as an
    open task of short-term memory. Nothing is written when any part is not acceptable."""
    checked_text(summary, "the summary")
    if not isinstance(summary, str) or not summary.strip():
        raise InputError("wrap-up needs a summary of the session")
    if isinstance(open_loops, str) or not all(isinstance(x, str) for x in open_loops or ()):
        raise InputError("open_loops must be a list of texts")
    loops = [_one_line(x) for x in open_loops or () if x.strip()]
    if len(loops) > MAX_LOOPS:
        raise InputError(f"at most {MAX_LOOPS} open loops")
    for loop in loops:
        checked_text(loop, "an open loop")
    if next_step is not None:
        if not isinstance(next_step, str):
            raise InputError("next_step must be text")
        checked_text(next_step, "the next step")
    step = _one_line(next_step or "")
    lines = [WRAP_UP + summary.strip()]
    lines += [OPEN_LOOPS + "; ".join(loops)] if loops else []
    lines += [NEXT_STEP + step] if step else []
    tasks = loops + ([NEXT_TASK + step] if step else [])
    return vault.append_event({"User": "\n".join(lines), "Thoughts": THOUGHTS}, tasks=tasks)


# ---------------------------------------------------------------------- reading the packet's parts

def is_wrap_up(fields: dict[str, str]) -> bool:
    """Is this event an assistant's wrap-up of a session (a handoff, not something the person said)?"""
    return fields.get("User", "").startswith(WRAP_UP) and fields.get("Thoughts", "").strip() == THOUGHTS


def _handoff(event_id: str, fields: dict[str, str]) -> Handoff | None:
    if not is_wrap_up(fields):
        return None
    said = fields.get("User", "")
    summary, loops, step = [], [], ""
    for line in said[len(WRAP_UP):].split("\n"):
        if line.startswith(OPEN_LOOPS):
            loops = [x.strip() for x in line[len(OPEN_LOOPS):].split("; ") if x.strip()]
        elif line.startswith(NEXT_STEP):
            step = line[len(NEXT_STEP):].strip()
        else:
            summary.append(line)
    return Handoff(event_id, "\n".join(summary).strip(), loops, step)


def _day_folders(vault: "VaultStore", days: int):
    today = clock.now()
    for back in range(max(days, 0)):
        day = today - timedelta(days=back)
        folder = vault.ltm_root / "events" / f"{day:%Y}" / f"{day:%m}" / f"{day:%d}"
        if folder.is_dir() and not folder.is_symlink():
            yield f"{day:%Y-%m-%d}", folder


def _archived_events(vault: "VaultStore", days: int) -> list[tuple[str, dict, str]]:
    """Events promotion archived in the last days, newest first (the latest events, and the
    handoff, once short-term memory was promoted)."""
    found = []
    for _day, folder in _day_folders(vault, days):
        for path in sorted(folder.glob("*.md"), key=lambda p: event_order(event_id_of_file(p.name) or p.stem),
                           reverse=True)[:MAX_ARCHIVED]:
            if path.name == "digest.md":
                continue
            try:
                body = notes.parse(read_text(path, root=vault.root)).body.lstrip()
            except NoteError:
                continue
            event = stm.Event(body.split("\n", 1)[0][4:].strip(), body) if body.startswith("### ") else None
            if event is not None and is_event_id(event.id):
                found.append((event.id, event.fields, event.text))
    found.sort(key=lambda e: event_order(e[0]), reverse=True)
    return found


def _digests(vault: "VaultStore", days: int) -> list[dict]:
    out = []
    for day, folder in _day_folders(vault, days):
        try:
            text = read_text(folder / "digest.md", root=vault.root)
        except (NoteError, OSError):
            continue
        lines = [fact.text for fact in map(parse_fact, text.splitlines()) if fact and fact.text]
        if lines:
            out.append({"day": day, "lines": lines[:DIGEST_LINES]})
    return out


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
