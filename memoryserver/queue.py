"""The extraction queue: pks of blocks due for a summary, in due-time order.

Services put blocks on it (a write that wants extraction, restart recovery, a retry after a
failed attempt); the worker (`memoryserver.worker`) takes them off. It knows neither, so
services never depend on the worker.
"""

from __future__ import annotations

import heapq
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from memoryserver.models import BlockStatus


@dataclass
class QueueStats:
    total_enqueued: int = 0
    total_recovered: int = 0
    total_dispatched: int = 0
    total_completed: int = 0
    total_failed: int = 0
    queue_full: int = 0
    queue_duplicates: int = 0
    queue_oversized: int = 0
    recovery_duplicates: int = 0


@dataclass(order=True)
class _Item:
    due: float
    pk: int = field(compare=False)


class ExtractionQueue:
    """A due-time heap of block pks; a pk counts as queued until its attempt is done."""

    def __init__(self, max_size: int) -> None:
        self.max_size = max_size
        self.stats = QueueStats()
        self._heap: list[_Item] = []
        self._queued: set[int] = set()
        self._active = 0
        self._cond = threading.Condition()
        self._closed = False

    def has_room(self, count: int) -> bool:
        with self._cond:
            room = len(self._queued) + count <= self.max_size
            if not room:
                self.stats.queue_full += 1
            return room

    def enqueue(self, pks: list[int], *, delay: float = 0.0, recovered: bool = False) -> None:
        due = time.monotonic() + delay
        with self._cond:
            for pk in pks:
                if pk in self._queued:
                    if recovered:
                        self.stats.recovery_duplicates += 1
                    else:
                        self.stats.queue_duplicates += 1
                    continue
                self._queued.add(pk)
                heapq.heappush(self._heap, _Item(due, pk))
                self.stats.total_enqueued += 1
                self.stats.total_recovered += int(recovered)
            self._cond.notify_all()

    def take(self) -> int | None:
        """Wait for the next due pk; None once the queue is closed."""
        with self._cond:
            while not self._closed:
                if self._heap:
                    wait = self._heap[0].due - time.monotonic()
                    if wait <= 0:
                        item = heapq.heappop(self._heap)
                        self._active += 1
                        self.stats.total_dispatched += 1
                        return item.pk
                    self._cond.wait(timeout=wait)
                else:
                    self._cond.wait()
            return None

    def done(self, pk: int, status: str | None) -> None:
        """Record the end of an attempt on `pk` that `take` handed out."""
        with self._cond:
            self._active -= 1
            self._queued.discard(pk)
            if status == BlockStatus.READY:
                self.stats.total_completed += 1
            elif status == BlockStatus.EXTRACTION_FAILED:
                self.stats.total_failed += 1

    def open(self) -> None:
        with self._cond:
            self._closed = False

    def close(self) -> None:
        """Wake every `take` with None (the worker stops)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def snapshot(self) -> dict[str, Any]:
        with self._cond:
            return {
                "size": len(self._heap),
                "queued_ids": len(self._queued),
                "processing": self._active,
                "max_size": self.max_size,
                "stats": dict(self.stats.__dict__),
            }


_queue: ExtractionQueue | None = None
_lock = threading.Lock()


def get_queue() -> ExtractionQueue:
    """The process's one queue, sized by AGENT_MEMORY_QUEUE_MAX_SIZE."""
    global _queue
    with _lock:
        if _queue is None:
            _queue = ExtractionQueue(max_size=settings.AGENT_MEMORY_QUEUE_MAX_SIZE)
        return _queue
