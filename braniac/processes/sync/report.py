"""`RemoteSyncReport`: what one `braniac sync` did, and the exit code it means."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class RemoteSyncReport:
    # synced | up-to-date | skipped | conflicts | offline (nothing pushed: --no-push)
    status: str = "up-to-date"
    remote: str = ""
    branch: str = ""
    reason: str = ""
    committed: str | None = None           # the commit of what was uncommitted
    received: int = 0                      # commits merged in from the remote
    sent: bool = False                     # pushed
    merge: str | None = None               # the merge commit
    renumbered: dict[str, str] = field(default_factory=dict)
    resolved: list[str] = field(default_factory=list)    # conflicts braniac merged itself
    conflicts: list[str] = field(default_factory=list)   # left for the person
    renamed_twice: list[str] = field(default_factory=list)   # "their name -> ours": one note kept
    two_names: list[str] = field(default_factory=list)       # a note renamed twice, waiting for the person
    duplicates: list[str] = field(default_factory=list)  # uuids two files carry after the merge
    attempts: int = 0

    @property
    def exit_code(self) -> int:
        """0: done or skipped; 1: conflicts wait for a person (nothing pushed)."""
        return 1 if self.conflicts else 0

    def as_dict(self) -> dict:
        return {**asdict(self), "exit_code": self.exit_code}

    def describe(self) -> str:
        if self.status == "skipped":
            return f"sync skipped: {self.reason}"
        if self.conflicts:
            files = ", ".join(self.conflicts)
            renamed = (f" ({' and '.join(self.two_names)} are one note both machines renamed: keep one, "
                       "delete the other)" if self.two_names else "")
            return (f"sync stopped: {len(self.conflicts)} file(s) changed in the same lines on both machines: {files}"
                    f"{renamed}. Edit each to keep what you want (remove the <<<<<<< ======= >>>>>>> lines), "
                    "then run `braniac sync` again; nothing was pushed, and no promotion or "
                    "organization runs until then")
        where = f"{self.remote}/{self.branch}"
        parts = []
        if self.committed:
            parts.append(f"committed local changes ({self.committed})")
        if self.received:
            parts.append(f"merged {self.received} commit(s) from {where}")
        if self.renumbered:
            parts.append(f"renumbered {len(self.renumbered)} event id(s) the other machine also used")
        if self.resolved:
            parts.append(f"merged {len(self.resolved)} file(s) both machines changed")
        if self.renamed_twice:
            parts.append("kept this machine's name for a note both renamed: " + ", ".join(self.renamed_twice))
        parts.append(f"pushed to {where}" if self.sent else ("not pushed (--no-push)" if self.status == "offline"
                                                           else f"{where} up to date"))
        return "synced: " + "; ".join(parts)
