from .report import RemoteSyncReport
from .run import sync

__all__ = ["RemoteSyncReport", "sync"]
