"""`braniac undo`: take one worker run (a promotion or an organization) back out of the vault."""
from .report import UndoReport
from .run import undo
from .runs import WorkerRun, list_runs, require_repo

__all__ = ["UndoReport", "WorkerRun", "list_runs", "require_repo", "undo"]
