"""Background extraction worker and expiry sweeper, both threads of the server process."""

from __future__ import annotations

import heapq
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from memoryserver.models import BlockStatus, MemoryBlock

logger = logging.getLogger(__name__)


@dataclass
class WorkerStats:
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


class ExtractionWorker:
    """A due-time queue of block pks; failed attempts come back after a short delay."""

    def __init__(self, max_size: int, retry_seconds: float) -> None:
        self.max_size = max_size
        self.retry_seconds = retry_seconds
        self.stats = WorkerStats()
        self._heap: list[_Item] = []
        self._queued: set[int] = set()
        self._active = 0
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stop = False

    # --- queue -------------------------------------------------------------------------

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

    def snapshot(self) -> dict[str, Any]:
        with self._cond:
            return {
                "size": len(self._heap),
                "queued_ids": len(self._queued),
                "processing": self._active,
                "max_size": self.max_size,
                "alive": self.alive,
                "stats": dict(self.stats.__dict__),
            }

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def idle(self) -> bool:
        with self._cond:
            return not self._queued and not self._active

    # --- thread ------------------------------------------------------------------------

    def start(self) -> None:
        if self.alive:
            return
        self._stop = False
        self._thread = threading.Thread(
            target=self._run, name="agentmemory-extraction", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def recover(self) -> int:
        """Queue again every block left `processing` by an earlier run (restart recovery)."""
        pks = list(
            MemoryBlock.objects.filter(
                status=BlockStatus.PROCESSING, fail_count__lt=settings.AGENT_MEMORY_MAX_FAIL_COUNT
            )
            .order_by("id")
            .values_list("pk", flat=True)
        )
        if pks:
            from memoryserver.services import block_mark_queued

            block_mark_queued(pks)
            self.enqueue(pks, recovered=True)
        return len(pks)

    def _next(self) -> int | None:
        with self._cond:
            while not self._stop:
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

    def _run(self) -> None:
        from memoryserver.services import block_mark_queued, extraction_attempt

        while (pk := self._next()) is not None:
            try:
                status = extraction_attempt(pk)
            except Exception:  # a broken row must not kill the worker; it is logged once
                logger.exception("extraction of block %s crashed; it stays processing", pk)
                status = None
            finally:
                close_old_connections()
            with self._cond:
                self._active -= 1
                self._queued.discard(pk)
                if status == BlockStatus.READY:
                    self.stats.total_completed += 1
                elif status == BlockStatus.EXTRACTION_FAILED:
                    self.stats.total_failed += 1
            if status == BlockStatus.PROCESSING:
                block_mark_queued([pk])
                self.enqueue([pk], delay=self.retry_seconds)


class Sweeper:
    """Delete expired blocks every AGENT_MEMORY_SWEEP_INTERVAL_SECONDS."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.swept = 0

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="agentmemory-sweeper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        from memoryserver.services import blocks_expired_sweep

        while not self._stop.wait(self.interval):
            try:
                self.swept += blocks_expired_sweep()
            except Exception:  # the next sweep retries; reads already hide expired rows
                logger.exception("expiry sweep failed")


_worker: ExtractionWorker | None = None
_sweeper: Sweeper | None = None
_lock = threading.Lock()


def get_worker() -> ExtractionWorker:
    global _worker
    with _lock:
        if _worker is None:
            _worker = ExtractionWorker(
                max_size=settings.AGENT_MEMORY_QUEUE_MAX_SIZE,
                retry_seconds=settings.AGENT_MEMORY_EXTRACTION_RETRY_SECONDS,
            )
            _worker.start()
        return _worker


def start_background() -> tuple[ExtractionWorker, Sweeper]:
    """Start the worker (recovering queued blocks) and the sweeper; call once at startup."""
    global _sweeper
    worker = get_worker()
    recovered = worker.recover()
    if recovered:
        logger.info("re-queued %d block(s) still processing from the last run", recovered)
    with _lock:
        if _sweeper is None:
            _sweeper = Sweeper(settings.AGENT_MEMORY_SWEEP_INTERVAL_SECONDS)
            _sweeper.start()
    return worker, _sweeper
