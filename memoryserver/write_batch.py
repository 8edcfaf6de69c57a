"""Embed the texts of concurrent writes together, in the embedder's length-grouped passes.

One encoder call per write made a burst of writes (a hundred shoppers' turns at once) pay
for a hundred pairs of small forward passes: a turn block alone in its pass, its three or
four sentences of about 20 tokens in another, each pass with its fixed cost. Writes that
are waiting while the encoder is busy are handed over together instead: the embedder's
planner (`embedders.passes_planned`) groups all their blocks and sentences by length into
fewer, fuller passes. The encoder's work per token stays what it was, so the saving is the
passes' overhead: 8-17 % of the CPU a block in a burst of 100 turns (51-54 ms against
45-47 ms, `benchmarks/write_burst.py`, on a loaded 2-core machine).

A write never waits for company: a batch is whatever is waiting when an embedding thread
comes free, one write alone on an idle server. The write requests' pool is larger than the
embedding threads (`GATHERING_THREADS`), so writes can be waiting here to be batched; the
embedding threads bound the CPU a burst takes. Searches never come here: a query is
embedded on the reading thread, so it never waits behind a burst.

A text is embedded once however often it comes: writes of one batch share its repeats, and
the vectors of the latest RECENT_TEXTS texts are kept for the batches after it. Turns
repeat sentences, across visits and shoppers: the list of products an answer shows, with
its "Products shown" line (the longest sentence of a turn block), is the same for everyone
who asked for those products. A text's vector does not depend on its batch (ONNX Runtime
gives the same floats alone or padded beside longer texts; numpy the same to 1e-7).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings

from memoryserver.conf import write_threads
from memoryserver.embedders import Embedder, get_embedder

logger = logging.getLogger(__name__)

# Threads of the write requests' pool: they mostly wait here for their vectors, and as many
# writes can be gathered into one batch as there are threads waiting.
GATHERING_THREADS = 32
# Texts in one batch at most (a turn write is its block and up to four sentences): every
# write of a batch waits for the whole batch, so on a starved machine a large one pushed
# writes past their bound. With 64 texts (about 13 turns; 13-17 % less CPU a block than one
# call per write) 2-25 of 90 loaded shoppers' writes missed their 10 s bound against 0-11
# without batching; 16-32 texts still saved 8 % (`benchmarks/write_burst.py`) and a batch
# costs only about five writes' embedding.
BATCH_TEXTS = 24
# Vectors kept for the texts embedded last: 1.5 MB of MiniLM's, a few hundred turns' worth.
RECENT_TEXTS = 1024
# The embedding threads run this much nicer than the server's other threads (Linux, where a
# thread has a priority of its own): searches, listings and session opens are embedded or
# answered on the request threads, and with the writes at equal priority a burst of writes
# on both cores left them a third of the CPU (an outside read took 4.7-8.4 s in a burst).
# At 5 the kernel gives a read three times a write's share of a contended core; a write is
# not starved, since each waits for a shopper's turn and the turns wait for their writes.
WRITE_NICENESS = 5


@dataclass
class _Waiting:
    texts: list[str]
    future: Future[np.ndarray] = field(default_factory=Future)


@dataclass
class BatchStats:
    writes: int = 0
    batches: int = 0
    texts: int = 0
    embedded: int = 0  # of the texts: those that were not a repeat
    retried_alone: int = 0


class WriteBatcher:
    """Hand writes' texts to the embedder in batches, on `threads` threads of its own.

    `embedder_of` is asked for the embedder at every batch, so a server (or a test) that
    swaps the process's embedder is followed. If a batch fails, each of its writes is
    embedded alone, so one write's bad text fails that write only.
    """

    def __init__(
        self,
        embedder_of: Callable[[], Embedder],
        *,
        threads: int,
        batch_texts: int = BATCH_TEXTS,
    ) -> None:
        self.embedder_of = embedder_of
        self.threads = max(1, threads)
        self.batch_texts = max(1, batch_texts)
        self.stats = BatchStats()
        self._waiting: deque[_Waiting] = deque()
        self._cond = threading.Condition()
        self._workers: list[threading.Thread] = []
        self._closed = False
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._recent_of: Embedder | None = None  # the embedder that made them
        self._recent_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.embedder_of().name

    @property
    def dimensions(self) -> int:
        return self.embedder_of().dimensions

    def embed(self, texts: list[str]) -> np.ndarray:
        """The texts' vectors, as the embedder would return them; waits for a batch."""
        if not texts:
            return self.embedder_of().embed([])
        waiting = _Waiting(list(texts))
        with self._cond:
            if self._closed:
                raise RuntimeError("the write batcher is closed")
            self._start_workers()
            self._waiting.append(waiting)
            self._cond.notify()
        return waiting.future.result()

    def close(self) -> None:
        """Let the threads finish what is waiting, then stop them."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            workers, self._workers = self._workers, []
        for worker in workers:
            worker.join(timeout=30)

    def _start_workers(self) -> None:
        while len(self._workers) < self.threads:
            worker = threading.Thread(
                target=self._run,
                name=f"agentmemory-embed-{len(self._workers)}",
                daemon=True,
            )
            self._workers.append(worker)
            worker.start()

    def _take(self) -> list[_Waiting] | None:
        """The next batch: the oldest write and those behind it up to `batch_texts` texts."""
        with self._cond:
            while not self._waiting:
                if self._closed:
                    return None
                self._cond.wait()
            batch = [self._waiting.popleft()]
            count = len(batch[0].texts)
            while self._waiting and count + len(self._waiting[0].texts) <= self.batch_texts:
                count += len(self._waiting[0].texts)
                batch.append(self._waiting.popleft())
            self.stats.writes += len(batch)
            self.stats.batches += 1
            self.stats.texts += count
            return batch

    def _run(self) -> None:
        thread_niceness_raise(WRITE_NICENESS)
        while (batch := self._take()) is not None:
            self._embed_batch(batch)

    def _embed_batch(self, batch: list[_Waiting]) -> None:
        flat = [text for waiting in batch for text in waiting.texts]
        try:
            vectors = self._vectors(self.embedder_of(), flat)
        except BaseException as exc:
            if len(batch) == 1:
                batch[0].future.set_exception(exc)
                return
            # Which write's text failed is unknown: each is tried alone, so the others
            # are stored and only the failing one answers with the error.
            with self._cond:
                self.stats.retried_alone += len(batch)
            logger.info(
                "a batch of %d writes failed to embed (%s); embedding each alone", len(batch), exc
            )
            for waiting in batch:
                self._embed_batch([waiting])
            return
        start = 0
        for waiting in batch:
            stop = start + len(waiting.texts)
            waiting.future.set_result(vectors[start:stop])
            start = stop

    def vector_known(self, embedder: Embedder, text: str, vector: np.ndarray) -> None:
        """Keep a vector `embedder` made elsewhere for a write that repeats its text: a
        search's query, the shopper's message, is its turn block's first sentence."""
        with self._recent_lock:
            self._recent_for(embedder)
            self._recent[text] = vector.copy()
            self._recent.move_to_end(text)
            while len(self._recent) > RECENT_TEXTS:
                self._recent.popitem(last=False)

    def _recent_for(self, embedder: Embedder) -> None:
        if self._recent_of is not embedder:  # another embedder: its vectors differ
            self._recent.clear()
            self._recent_of = embedder

    def _vectors(self, embedder: Embedder, texts: list[str]) -> np.ndarray:
        """The texts' vectors, each text embedded once and only if it was not lately."""
        with self._recent_lock:
            self._recent_for(embedder)
            known = {text: self._recent[text] for text in texts if text in self._recent}
            for text in known:
                self._recent.move_to_end(text)
        missing = [text for text in dict.fromkeys(texts) if text not in known]
        if missing:
            fresh = embedder.embed(missing)
            if len(fresh) != len(missing):
                raise ValueError(
                    f"the embedder returned {len(fresh)} rows for {len(missing)} texts"
                )
            with self._recent_lock:
                self.stats.embedded += len(missing)
                for text, vector in zip(missing, fresh, strict=True):
                    known[text] = vector
                    if self._recent_of is embedder:
                        self._recent[text] = vector.copy()
                while len(self._recent) > RECENT_TEXTS:
                    self._recent.popitem(last=False)
        return np.stack([known[text] for text in texts])


def thread_niceness_raise(step: int) -> None:
    """Lower the calling thread's CPU priority by `step` (Linux only; elsewhere nothing).

    On Linux a thread's id is a process id for `setpriority`; elsewhere the same call would
    lower the whole server, so it is not made. Raising niceness needs no privilege.
    """
    if not sys.platform.startswith("linux") or step <= 0:
        return
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + step))
    except OSError as exc:  # a sandbox may forbid it; the writes still run, at equal priority
        logger.info("could not lower the embedding thread's priority: %s", exc)


_batcher: WriteBatcher | None = None
_lock = threading.Lock()


def get_write_batcher() -> WriteBatcher:
    """The process's batcher, on the configured number of embedding threads."""
    global _batcher
    with _lock:
        if _batcher is None:
            _batcher = WriteBatcher(
                get_embedder,
                threads=write_threads(
                    getattr(settings, "AGENT_MEMORY_WRITE_THREADS", 0), os.cpu_count()
                ),
            )
        return _batcher
