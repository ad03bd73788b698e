"""Telling a damaged index from a bug of ours, and what to say when rebuilding it."""
from __future__ import annotations

import os

from .filelist import CorruptIndex


def from_index(exc: BaseException) -> bool:
    """Did this error come from reading the index (whoosh or its files), not from a bug of ours?"""
    if isinstance(exc, (OSError, EOFError, CorruptIndex)):
        return True
    tb = exc.__traceback__
    while tb is not None:
        if f"{os.sep}whoosh{os.sep}" in tb.tb_frame.f_code.co_filename:
            return True
        tb = tb.tb_next
    return False


def rebuild_notice(exc: BaseException) -> str:
    """The one-line notice for rebuilding an index that failed with `exc`."""
    if isinstance(exc, CorruptIndex):
        return f"search index {exc}; rebuilding it"
    return f"search index was damaged ({type(exc).__name__}); rebuilding it"
