"""Undoing a promotion in short-term memory: its events and the Structured Data it recorded come
back, the Summary it wrote goes back to the one before if nobody has changed it since. Every
event and item added after the promotion stays where it is."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...infra import git
from ...infra.fsio import locked, update_text
from ...vault import stm
from ..promotion.short_term import set_summary
from ..sync.renumber import replaced
from .runs import WorkerRun

if TYPE_CHECKING:
    from ...vault.store import VaultStore


@dataclass
class ShortTermChange:
    events: list[stm.Event] = field(default_factory=list)     # taken out by the run, oldest first
    items: list[tuple[str, stm.Item]] = field(default_factory=list)
    summary_before: str | None = None
    summary_after: str | None = None

    @property
    def empty(self) -> bool:
        return not self.events and not self.items


def what_the_run_took(vault: "VaultStore", run: WorkerRun, renamed: dict[str, str] | None = None) -> ShortTermChange:
    """`renamed`: event ids sync renumbered since the run; its events come back under the new ones
    (the old id may name another machine's event now)."""
    rel = vault.relative(vault.stm_path)
    before_text = git.show(vault.root, f"{run.commit}^", rel)
    after_text = git.show(vault.root, run.commit, rel)
    if before_text is None or after_text is None:
        return ShortTermChange()
    if renamed:
        before_text, after_text = replaced(before_text, renamed), replaced(after_text, renamed)
    before, after = stm.parse(before_text), stm.parse(after_text)
    kept_ids = {e.id for e in after.events}
    change = ShortTermChange(events=[e for e in reversed(before.events) if e.id not in kept_ids],
                             summary_before=before.summary, summary_after=after.summary)
    for name in stm.LISTS:
        still = {(i.text, i.done) for i in after.items(name)}
        change.items += [(name, i) for i in before.items(name) if (i.text, i.done) not in still]
    return change


def give_back(vault: "VaultStore", change: ShortTermChange) -> list[str]:
    """Put the events and items back into short_term.md as it is now; the ids restored."""
    restored: list[str] = []

    def edit(text: str) -> str:
        restored.clear()
        doc = stm.parse(text)
        present = {e.id for e in doc.events}
        for event in change.events:
            if event.id not in present:
                doc.restore_event(event)
                restored.append(event.id)
        for name, item in change.items:
            known = {i.text: i.done for i in doc.items(name)}
            if item.text not in known:
                doc.add_item(name, item.text, done=item.done)
            elif item.done and known[item.text] is False:
                doc.set_item_done(name, item.text)
        if change.summary_before is not None and doc.summary == change.summary_after:
            set_summary(doc, change.summary_before)
        return doc.render()

    with locked(vault.lock_path("stm"), what="short-term memory"):
        update_text(vault.stm_path, edit)
    return restored

