"""Background extraction worker and expiry sweeper, both threads of the server process.

The worker takes block pks off `memoryserver.queue` and runs the extraction service on
each; the sweeper runs the expiry service. Both depend on services, never the reverse.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import close_old_connections

from memoryserver.models import BlockStatus
from memoryserver.queue import ExtractionQueue, get_queue
from memoryserver.services.extraction import (
    block_mark_queued,
    extraction_attempt,
    extraction_recover,
)
from memoryserver.services.ttl import blocks_expired_sweep

logger = logging.getLogger(__name__)


class ExtractionWorker:
    """One thread draining the queue; a failed attempt comes back after a short delay."""

    def __init__(self, queue: ExtractionQueue, retry_seconds: float) -> None:
        self.queue = queue
        self.retry_seconds = retry_seconds
        self._thread: threading.Thread | None = None

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.alive:
            return
        self.queue.open()
        self._thread = threading.Thread(
            target=self._run, name="agentmemory-extraction", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self.queue.close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while (pk := self.queue.take()) is not None:
            try:
                status = extraction_attempt(pk)
            except Exception:  # a broken row must not kill the worker; it is logged once
                logger.exception("extraction of block %s crashed; it stays processing", pk)
                status = None
            finally:
                close_old_connections()
            self.queue.done(pk, status)
            if status == BlockStatus.PROCESSING:
                block_mark_queued([pk])
                self.queue.enqueue([pk], delay=self.retry_seconds)


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
        while not self._stop.wait(self.interval):
            try:
                self.swept += blocks_expired_sweep()
            except Exception:  # the next sweep retries; reads already hide expired rows
                logger.exception("expiry sweep failed")


_worker: ExtractionWorker | None = None
_sweeper: Sweeper | None = None
_lock = threading.Lock()


def get_worker() -> ExtractionWorker:
    """The process's one worker, started on first use."""
    global _worker
    with _lock:
        if _worker is None:
            _worker = ExtractionWorker(
                get_queue(), retry_seconds=settings.AGENT_MEMORY_EXTRACTION_RETRY_SECONDS
            )
            _worker.start()
        return _worker


def worker_alive() -> bool:
    """Whether the extraction worker is running; asking never starts one."""
    return _worker is not None and _worker.alive


def start_background() -> tuple[ExtractionWorker, Sweeper]:
    """Start the worker (recovering queued blocks) and the sweeper; call once at startup."""
    global _sweeper
    worker = get_worker()
    recovered = extraction_recover()
    if recovered:
        logger.info("re-queued %d block(s) still processing from the last run", recovered)
    with _lock:
        if _sweeper is None:
            _sweeper = Sweeper(settings.AGENT_MEMORY_SWEEP_INTERVAL_SECONDS)
            _sweeper.start()
    return worker, _sweeper
