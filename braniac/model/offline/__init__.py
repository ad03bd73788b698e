"""The offline engine: braniac's processes without a language model.

Everything is derived from the text braniac holds (no canned replies), so the same input
always gives the same output: it is what a vault without a configured model uses, the
fallback when a model fails, and what makes tests and benchmarks reproducible.
"""
from .engine import OfflineModel

__all__ = ["OfflineModel"]
