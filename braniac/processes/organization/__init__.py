"""Organization (vault-format.md §10.5): the nightly "deep thought" that learns from use.

    read the access logs -> statistics (reads, last read, co-access, probes)
    -> a plan, proposed by the model (the offline engine plans from the statistics alone):
       link notes read together, move much-read deep notes up, split crowded folders, merge
       tiny ones, archive notes unread for long
    -> every operation typed and checked against the vault's bounds (rejections logged)
       [operations.py]
    -> the retrieval gate: the plan is applied to a staging copy and the probes (past queries
       and the notes then read) are re-run; it lands only if recall and rank do not drop
       [gate.py]
    -> applied with braniac's own code (moves repair every link), one git commit [apply.py,
       links.py, run.py]
    -> the processed access-log lines rotate into logs/access-YYYY-MM.log [rotation.py]

Nothing is deleted: archiving moves a note under memory/long_term/archive/ (still searchable
with --archived) and a merged folder's _index.md goes there too.
"""
from .report import OrganizeReport
from .run import MAX_OPERATIONS, organize

__all__ = ["organize", "OrganizeReport", "MAX_OPERATIONS"]
