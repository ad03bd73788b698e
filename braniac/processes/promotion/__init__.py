"""Promotion: consolidate short-term memory into long-term memory.

    snapshot STM (STM lock, briefly) -> analyze -> synthesize each candidate (no lock held
    while the model thinks) -> archive the raw events under events/YYYY/MM/DD/ -> write or
    merge notes -> day digests -> every _index.md up to the root -> take the promoted events out
    of STM and write the new Summary (STM lock, briefly) -> index -> one git commit

The LTM lock is held for the whole run, so two promotions never overlap (the second skips).
Every step is idempotent (deterministic ids and paths; merging a claim that is already there
changes nothing), so a run killed at any instant is completed by the next run, with no event
lost or written twice. A model's output is data: every draft is validated (kind, folder,
sources) and written by braniac's own code, never outside memory/long_term/.
"""
from .report import PromotionReport
from .run import idle_for, promote

__all__ = ["PromotionReport", "idle_for", "promote"]
