"""The one place braniac asks what time it is.

Processes never call datetime.now() themselves: tests and the benchmark that replays old
conversations set the clock so that timestamps are the conversation's, not today's.
"""
from __future__ import annotations

import contextlib
import threading
from datetime import date, datetime, timezone
from typing import Callable, Iterator

_lock = threading.Lock()
_source: Callable[[], datetime] | None = None


def now() -> datetime:
    """Current time, UTC, second precision unless the injected clock says otherwise."""
    source = _source
    if source is not None:
        value = source()
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return datetime.now(timezone.utc).replace(microsecond=0)


def local_day(moment: datetime) -> date:
    """The day a moment falls on where the person is: the machine's own time zone (TZ), as
    `date` shows it. Times are kept in UTC; a day the person names ("yesterday", "last Friday")
    is one of theirs: 04:00 UTC is still the evening before in California."""
    return moment.astimezone().date()


def set_clock(source: Callable[[], datetime] | datetime | None) -> None:
    """Set a fixed time, a callable, or None to return to the wall clock."""
    global _source
    with _lock:
        if isinstance(source, datetime):
            fixed = source
            _source = lambda: fixed  # noqa: E731
        else:
            _source = source


@contextlib.contextmanager
def frozen(at: datetime) -> Iterator[None]:
    previous = _source
    set_clock(at)
    try:
        yield
    finally:
        set_clock(previous)


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC with a trailing Z, the form used everywhere in the vault."""
    moment = moment.astimezone(timezone.utc)
    if moment.microsecond:
        text = moment.strftime("%Y-%m-%dT%H:%M:%S.%f").rstrip("0")
    else:
        text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    return text + "Z"


def parse_iso(text: str) -> datetime:
    """Parse an ISO 8601 timestamp; naive values are taken as UTC."""
    value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
