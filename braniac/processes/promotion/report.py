"""What a promotion did, for a person (one line) and for programs (a dict), and the log of
what it refused."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...infra import clock
from ...infra.fsio import append_line

if TYPE_CHECKING:
    from ...vault.store import VaultStore


@dataclass
class PromotionReport:
    status: str = "done"                  # done | skipped | nothing | dry-run
    reason: str = ""
    events: list[str] = field(default_factory=list)
    notes_created: list[str] = field(default_factory=list)
    notes_updated: list[str] = field(default_factory=list)
    claims: dict[str, int] = field(default_factory=lambda: {"added": 0, "strengthened": 0, "superseded": 0})
    rejected: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    plan: list[dict] = field(default_factory=list)
    commit: str | None = None

    def as_dict(self) -> dict:
        return dict(self.__dict__)

    def describe(self) -> str:
        """One line for a person (CLI, chat, watch)."""
        if self.status in ("skipped", "nothing"):
            return f"promotion {self.status}: {self.reason}"
        if self.status == "dry-run":
            return f"would promote {len(self.events)} events into {len(self.plan)} notes"
        c = self.claims
        return (f"promoted {len(self.events)} events: {len(self.notes_created)} new notes, "
                f"{len(self.notes_updated)} updated; claims {c['added']} added, {c['strengthened']} strengthened, "
                f"{c['superseded']} superseded" + (f"; commit {self.commit}" if self.commit else ""))


def reject(vault: "VaultStore", report: PromotionReport, reason: str) -> None:
    """Record something the promotion refused, in the report and in logs/promotion.log."""
    report.rejected.append(reason)
    log = vault.logs_dir / "promotion.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    append_line(log, f"{clock.iso(clock.now())} | REJECTED | {reason}")
