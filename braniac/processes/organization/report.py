"""What an organization run did, for the CLI, the Python API and `braniac organize --json`."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .operations import Operation


@dataclass
class OrganizeReport:
    status: str = "done"           # done | skipped | dry-run | gated
    reason: str = ""
    operations: list[Operation] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    gate: dict = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    commit: str | None = None
    log_lines: int = 0
    malformed_log_lines: int = 0
    adopted: list[str] = field(default_factory=list)   # notes written by hand made memories first

    def as_dict(self) -> dict:
        return {**self.__dict__, "operations": [op.as_dict() for op in self.operations]}

    def describe(self) -> str:
        if self.status == "skipped":
            return f"organize skipped: {self.reason}"
        counts = Counter(op.kind for op in self.operations)
        summary = ", ".join(f"{n} {name}" for name, n in sorted(counts.items())) or "no changes"
        if self.status == "dry-run":
            return f"organize would apply: {summary}"
        if self.status == "gated":
            return f"organize plan discarded by the retrieval gate: {self.reason}"
        adopted = f"adopted {len(self.adopted)} note(s) written by hand; " if self.adopted else ""
        return f"{adopted}organized: {summary}" + (f"; commit {self.commit}" if self.commit else "")
