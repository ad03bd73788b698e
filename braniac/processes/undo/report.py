"""`UndoReport`: what an undo changed, and what it left as it is and why."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .plan import CREATE, KEEP, MOVE_BACK, REMOVE, WRITE, Action
from .runs import WorkerRun

if TYPE_CHECKING:
    from ...vault.store import VaultStore


@dataclass
class UndoReport:
    run: WorkerRun
    dry_run: bool = False
    restored: list[str] = field(default_factory=list)      # changed back, or re-created
    removed: list[str] = field(default_factory=list)       # files the run had created
    moved_back: list[tuple[str, str]] = field(default_factory=list)   # (from, to)
    kept: list[tuple[str, str]] = field(default_factory=list)         # (path, why)
    events: list[str] = field(default_factory=list)        # back in short-term memory
    commit: str | None = None

    def add(self, vault: "VaultStore", actions: list[Action]) -> None:
        for action in actions:
            rel = vault.relative(action.path)
            if action.reason and action.kind != KEEP:
                self.kept.append((rel, action.reason))   # done, but for lines changed since
            if action.kind in (WRITE, CREATE):
                self.restored.append(rel)
            elif action.kind == REMOVE:
                self.removed.append(rel)
            elif action.kind == MOVE_BACK:
                self.moved_back.append((vault.relative(action.moved_from), rel))
            elif action.kind == KEEP:
                self.kept.append((rel, action.reason))

    def describe(self) -> str:
        verb = "would undo" if self.dry_run else "undid"
        parts = [f"{len(self.restored)} files restored", f"{len(self.removed)} removed"]
        if self.moved_back:
            parts.append(f"{len(self.moved_back)} notes moved back")
        if self.events:
            parts.append(f"{len(self.events)} events back in short-term memory")
        line = f"{verb} {self.run.kind} {self.run.short} ({self.run.subject}): " + ", ".join(parts)
        if self.commit:
            line += f"; committed {self.commit}"
        if self.kept:
            line += f"\n{len(self.kept)} files left as they are:" + "".join(
                f"\n  {path}: {why}" for path, why in self.kept)
        return line

    def as_dict(self) -> dict:
        return {"run": self.run.as_dict(), "dry_run": self.dry_run, "restored": self.restored,
                "removed": self.removed, "moved_back": [list(m) for m in self.moved_back],
                "kept": [{"path": p, "reason": r} for p, r in self.kept], "events": self.events,
                "commit": self.commit}
