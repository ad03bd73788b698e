"""Notices: what braniac tells a person while it works (an index rebuilt, a model that failed
and the offline engine that stood in, a journal replayed, what an idle run did).

They go through the standard `logging` module, as warnings of the `braniac` logger, so there
is one path for all of them: the CLI and the chat show them as `braniac: <message>` on stderr
(`show_on`), a Python program sees them once it configures logging, and tests collect them
with a handler of their own.
"""
from __future__ import annotations

import logging
import sys
from typing import TextIO

from .untrusted import printable

logger = logging.getLogger("braniac")
logger.addHandler(logging.NullHandler())   # a library prints nothing unless asked to

PREFIX = "braniac: "


def notice(message: str) -> None:
    logger.warning(message)


class _LineHandler(logging.StreamHandler):
    """One `braniac: …` line per notice, on a given stream or (None) on whatever sys.stderr
    is when the notice is given: click's test runner swaps it for each invocation."""

    def __init__(self, stream: TextIO | None):
        super().__init__(stream or sys.stderr)
        self.target = stream
        self.setFormatter(logging.Formatter(PREFIX + "%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if self.target is None:
            self.stream = sys.stderr
        super().emit(record)

    def format(self, record: logging.LogRecord) -> str:
        # a notice quotes file names, headings and model errors: shown, never obeyed by a terminal
        return printable(super().format(record))


def show_on(stream: TextIO | None = None) -> logging.Handler:
    """Print every notice on `stream` (default: stderr); returns the handler, for `hide`.
    Asking again for the same stream adds nothing, so a notice is never printed twice."""
    target = None if stream is None or stream is sys.stderr else stream
    for handler in logger.handlers:
        if isinstance(handler, _LineHandler) and handler.target is target:
            return handler
    handler = _LineHandler(target)
    logger.addHandler(handler)
    return handler


def hide(handler: logging.Handler) -> None:
    logger.removeHandler(handler)


def describe_os_error(exc: OSError) -> str:
    """An OSError in a person's words: what failed and on which file ("No space left on device:
    /vault/memory/short_term.md"), without Python's `[Errno 28]`."""
    what = exc.strerror or str(exc)
    return f"{what}: {exc.filename}" if exc.filename else what
