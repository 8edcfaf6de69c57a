"""The server's one source of "now", so TTL and status tests can move time."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta


class Clock:
    """Wall-clock UTC time plus an offset that tests may advance."""

    def __init__(self) -> None:
        self._offset = timedelta(0)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return datetime.now(UTC) + self._offset

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._offset += timedelta(seconds=seconds)

    def reset(self) -> None:
        with self._lock:
            self._offset = timedelta(0)


clock = Clock()
