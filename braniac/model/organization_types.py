"""What flows between organization and a model: the vault's usage in, a plan out."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..vault.layout import FOLDER_INDEX
from ..vault.usage import Usage

if TYPE_CHECKING:
    from ..vault.store import VaultStore


@dataclass
class OrganizationRequest:
    vault: "VaultStore"
    history: Usage               # every access log kept
    recent: Usage                # only what was read since the last organization
    archive_after_days: float    # notes unread for this long may be archived

    @cached_property
    def statistics(self) -> dict:
        """The usage a language model plans from (computed once, and only if asked for)."""
        return {"most_read": self.history.reads.most_common(30),
                "read_together": [[a, b, n] for (a, b), n in self.recent.coaccess.most_common(30)],
                "folders": {str(f.relative_to(self.vault.root)): n for f, n in self._folder_sizes().most_common(30)}}

    def _folder_sizes(self) -> Counter:
        sizes: Counter = Counter()
        for path in self.vault.iter_ltm_files():
            if path.name != FOLDER_INDEX:
                sizes[path.parent] += 1
        return sizes


@dataclass
class OrganizationPlan:
    """Operations as JSON objects (`{"op": "move", "path": ..., "to": ...}`); organization
    checks each against the vault's bounds and logs what it rejects."""
    operations: list[Any]
    # braniac's own plan from the statistics is as long as the vault needs (a cut tail would
    # land over the next runs), where a model's plan is cut at organization's limit
    from_statistics_alone: bool = False
