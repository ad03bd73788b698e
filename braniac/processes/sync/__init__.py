from .report import SyncReport
from .run import sync

__all__ = ["SyncReport", "sync"]
