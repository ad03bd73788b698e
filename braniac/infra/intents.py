"""Which files a worker is about to change: inside `announcing(callback)`, every fsio primitive
(and checked.py's removals) first tells `callback` the path it is about to write, create,
rename or remove, so a worker can record it before the change (what a killed run changed is
then still committed by the next run)."""
from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Callable, Iterator

_intent = threading.local()


@contextlib.contextmanager
def announcing(callback: Callable[[Path], None]) -> Iterator[None]:
    """While inside, every change this thread makes through fsio is first announced to `callback`."""
    previous = getattr(_intent, "callback", None)
    _intent.callback = callback
    try:
        yield
    finally:
        _intent.callback = previous


def announce(*paths: Path) -> None:
    callback = getattr(_intent, "callback", None)
    if callback is not None:
        for path in paths:
            callback(Path(path))
