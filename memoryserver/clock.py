"""The server's one source of "now", so TTL and status tests can move time."""

from __future__ import annotations

import os
import threading
from datetime import UTC, datetime, timedelta


class Clock:
    """Wall-clock UTC time plus an offset that tests may advance.

    A test driving the server in another process moves its time by writing seconds into
    the file named by AGENT_MEMORY_CLOCK_OFFSET_FILE (read when the file changes).
    """

    def __init__(self) -> None:
        self._offset = timedelta(0)
        self._lock = threading.Lock()
        self._offset_file = os.environ.get("AGENT_MEMORY_CLOCK_OFFSET_FILE") or None
        self._file_stamp: float | None = None
        self._file_offset = timedelta(0)

    def _offset_from_file(self) -> timedelta:
        if self._offset_file is None:
            return timedelta(0)
        try:
            stamp = os.stat(self._offset_file).st_mtime_ns
        except OSError:
            return timedelta(0)
        if stamp != self._file_stamp:
            self._file_stamp = stamp
            try:
                with open(self._offset_file) as handle:
                    self._file_offset = timedelta(seconds=float(handle.read().strip() or 0))
            except (OSError, ValueError):
                self._file_offset = timedelta(0)
        return self._file_offset

    def now(self) -> datetime:
        with self._lock:
            extra = self._offset_from_file() if self._offset_file else timedelta(0)
            return datetime.now(UTC) + self._offset + extra

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._offset += timedelta(seconds=seconds)

    def reset(self) -> None:
        with self._lock:
            self._offset = timedelta(0)


clock = Clock()
