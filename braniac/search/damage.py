"""Telling a damaged index from a bug of ours, and from a disk that cannot take a write now;
and what to say about each."""
from __future__ import annotations

import errno
import os

from ..infra.errors import IndexError_
from ..infra.notices import describe_os_error
from .filelist import CorruptIndex

# A full disk, a quota, a read-only mount or a permission: the index is as it was, it only
# cannot be written now. Rebuilding would fail the same way (and throw away a good index).
NOT_DAMAGE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM})


def from_index(exc: BaseException) -> bool:
    """Did this error come from reading the index (whoosh or its files), not from a bug of ours
    nor from a disk that cannot take a write?"""
    if unwritable(exc) is not None:
        return False
    if isinstance(exc, (OSError, EOFError, CorruptIndex)):
        return True
    tb = exc.__traceback__
    while tb is not None:
        if f"{os.sep}whoosh{os.sep}" in tb.tb_frame.f_code.co_filename:
            return True
        tb = tb.tb_next
    return False


def unwritable(exc: BaseException) -> IndexError_ | None:
    """The error to give for a write the disk refused (None for any other error)."""
    if isinstance(exc, OSError) and exc.errno in NOT_DAMAGE:
        return IndexError_(f"the search index could not be updated ({describe_os_error(exc)}); it is left as it "
                           "was, and the next command catches up once the disk can take it")
    return None


def rebuild_notice(exc: BaseException) -> str:
    """The one-line notice for rebuilding an index that failed with `exc`."""
    if isinstance(exc, CorruptIndex):
        return f"search index {exc}; rebuilding it"
    return f"search index was damaged ({type(exc).__name__}); rebuilding it"
