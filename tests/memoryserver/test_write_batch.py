"""Writes waiting together are embedded together, each getting its own texts' vectors.

The embedder here holds its first call until the test lets go, so the writes sent meanwhile
are all waiting when the embedding thread comes free: what they are handed over in is
asserted from the calls the embedder saw, never from how long anything took.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pytest
from django.core.handlers.asgi import ASGIHandler

from memoryserver import embedders, write_batch
from memoryserver.asgi import DirectDispatch
from memoryserver.embedders import CachedEmbedder, HashingEmbedder
from memoryserver.index.registry import get_registry
from memoryserver.index.sentences import blocks_embedded
from memoryserver.models import MemoryBlock
from memoryserver.write_batch import WriteBatcher
from tests.support.memoryserver_stock import user_stocked

HASHING = HashingEmbedder()


class HeldFirst(HashingEmbedder):
    """Hashing vectors; records each call's texts; the first call waits for `release`."""

    def __init__(self, *, refuse: str | None = None) -> None:
        super().__init__()
        self.calls: list[list[str]] = []
        self.release = threading.Event()
        self.refuse = refuse
        self.lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        with self.lock:
            self.calls.append(list(texts))
            first = len(self.calls) == 1
        if first:
            assert self.release.wait(30), "the test never released the first call"
        if self.refuse is not None and any(self.refuse in t for t in texts):
            raise ValueError("this embedder refuses that text")
        return super().embed(texts)


def _until(condition, what: str) -> None:
    event = threading.Event()
    for _ in range(600):
        if condition():
            return
        event.wait(0.05)
    raise AssertionError(f"never happened: {what}")


def _burst(batcher: WriteBatcher, held: HeldFirst, writes: list[list[str]]):
    """Send the first write, wait until it is held in the embedder, then send the rest."""
    with ThreadPoolExecutor(len(writes)) as pool:
        first = pool.submit(batcher.embed, writes[0])
        _until(lambda: len(held.calls) == 1, "the first write reached the embedder")
        rest = [pool.submit(batcher.embed, texts) for texts in writes[1:]]
        _until(lambda: len(batcher._waiting) == len(rest), "the other writes are waiting")
        held.release.set()
        return [first, *rest]


def test_writes_waiting_together_go_to_the_embedder_in_one_call_each_with_its_own_vectors():
    held = HeldFirst()
    batcher = WriteBatcher(lambda: held, threads=1, batch_texts=64)
    writes = [[f"write {n} block", f"write {n} sentence one"] for n in range(6)]
    try:
        futures = _burst(batcher, held, writes)
        vectors = [f.result(timeout=30) for f in futures]
    finally:
        batcher.close()
    assert held.calls == [writes[0], [t for texts in writes[1:] for t in texts]]
    for texts, got in zip(writes, vectors, strict=True):
        np.testing.assert_array_equal(got, HASHING.embed(texts))
    assert (batcher.stats.writes, batcher.stats.batches) == (6, 2)


def test_a_batch_holds_at_most_its_texts_and_a_larger_write_goes_alone():
    held = HeldFirst()
    batcher = WriteBatcher(lambda: held, threads=1, batch_texts=4)
    writes = [["a0"], ["b0", "b1"], ["c0", "c1"], ["d0", "d1", "d2", "d3", "d4"], ["e0"]]
    try:
        for future, texts in zip(_burst(batcher, held, writes), writes, strict=True):
            np.testing.assert_array_equal(future.result(timeout=30), HASHING.embed(texts))
    finally:
        batcher.close()
    assert held.calls == [["a0"], ["b0", "b1", "c0", "c1"], ["d0", "d1", "d2", "d3", "d4"], ["e0"]]


def test_a_text_the_embedder_refuses_fails_its_own_write_only():
    held = HeldFirst(refuse="poison")
    batcher = WriteBatcher(lambda: held, threads=1)
    writes = [["first"], ["fine one"], ["poison pill"], ["fine two", "and more"]]
    try:
        futures = _burst(batcher, held, writes)
        with pytest.raises(ValueError, match="refuses"):
            futures[2].result(timeout=30)
        for n in (0, 1, 3):
            np.testing.assert_array_equal(futures[n].result(timeout=30), HASHING.embed(writes[n]))
    finally:
        batcher.close()
    assert batcher.stats.retried_alone == 3


def test_a_text_repeated_in_a_batch_or_written_lately_is_embedded_once():
    held = HeldFirst()
    batcher = WriteBatcher(lambda: held, threads=1, batch_texts=64)
    shown = "Products shown: [JN-0041] colours black, sizes XS-XXL, €53.00"
    writes = [["first block", shown], ["second block", shown], ["third block", shown, shown]]
    try:
        futures = _burst(batcher, held, writes)
        vectors = [f.result(timeout=30) for f in futures]
        later = batcher.embed(["fourth block", shown])
    finally:
        batcher.close()
    assert held.calls == [writes[0], ["second block", "third block"], ["fourth block"]]
    for texts, got in zip([*writes, ["fourth block", shown]], [*vectors, later], strict=True):
        np.testing.assert_array_equal(got, HASHING.embed(texts))
    assert (batcher.stats.texts, batcher.stats.embedded) == (9, 5)


def test_a_searchs_query_vector_serves_a_write_of_the_same_text():
    held = HeldFirst()
    held.release.set()
    batcher = WriteBatcher(lambda: held, threads=1)
    query = "show me jeans in size M"
    try:
        batcher.vector_known(held, query, HASHING.embed([query])[0])
        got = batcher.embed(["a turn block", query])
    finally:
        batcher.close()
    assert held.calls == [["a turn block"]]
    np.testing.assert_array_equal(got, HASHING.embed(["a turn block", query]))


def test_the_vectors_kept_are_another_embedders_no_longer():
    first, second = HeldFirst(), HeldFirst()
    first.release.set()
    second.release.set()
    current = [first]
    batcher = WriteBatcher(lambda: current[0], threads=1)
    try:
        batcher.embed(["a turn block"])
        current[0] = second
        batcher.embed(["a turn block"])
    finally:
        batcher.close()
    assert first.calls == second.calls == [["a turn block"]]


def test_no_texts_ask_for_no_batch():
    held = HeldFirst()
    held.release.set()
    batcher = WriteBatcher(lambda: held, threads=1)
    assert batcher.embed([]).shape == (0, HASHING.dimensions)
    assert batcher.stats.batches == 0


@pytest.mark.django_db(transaction=True, databases=["default", "agentmemory"])
def test_concurrent_adds_through_the_server_are_batched_and_stored_with_their_vectors(
    settings, monkeypatch
):
    settings.ROOT_URLCONF = "memoryserver.api.urls"
    settings.MIDDLEWARE = ["memoryserver.api.middleware.DoorMiddleware"]
    settings.AGENT_MEMORY_SERVER_TOKEN = None
    settings.AGENT_MEMORY_SERVER_ALLOWED_HOSTS = ["testserver"]
    settings.AGENT_MEMORY_EXTRACT_SEMANTIC = False
    held = HeldFirst()
    monkeypatch.setattr(embedders, "_embedder", CachedEmbedder(held))
    batcher = WriteBatcher(embedders.get_embedder, threads=1, batch_texts=64)
    monkeypatch.setattr(write_batch, "_batcher", batcher)
    get_registry().clear()
    user_stocked("batch-user", name="Batch")
    direct = DirectDispatch(ASGIHandler())
    turns = [
        (f"Do you have shoes in size {n}?", f"Yes. Size {n} is in stock. It ships today. Enjoy.")
        for n in range(36, 44)
    ]

    async def go() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=direct)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", timeout=60
        ) as c:
            await c.post("/users/batch-user/sessions", json={"session_id": "s"})

            def add(user: str, assistant: str):
                return asyncio.create_task(
                    c.post(
                        "/users/batch-user/sessions/s/memory",
                        json={"messages": [{"user_content": user, "assistant_content": assistant}]},
                    )
                )

            first = add(*turns[0])
            while not held.calls:
                await asyncio.sleep(0.05)
            rest = [add(*turn) for turn in turns[1:]]
            while len(batcher._waiting) < len(rest):
                await asyncio.sleep(0.05)
            held.release.set()
            return await asyncio.gather(first, *rest)

    try:
        answers = asyncio.run(go())
    finally:
        held.release.set()
        direct.shutdown()
        batcher.close()
        get_registry().clear()
    assert [a.status_code for a in answers] == [201] * len(turns)
    assert len(held.calls) == 2  # the first write alone, the seven waiting behind it together
    for user, assistant in turns:
        block = MemoryBlock.objects.get(user_content=user)
        vector, sentences = blocks_embedded(HASHING, [f"{user}\n{assistant}"])[0]
        assert bytes(block.embedding) == vector.tobytes()
        assert sentences is not None
        assert bytes(block.sentence_embeddings) == sentences.astype(np.float32).tobytes()


class PriorityNoted(HashingEmbedder):
    """Hashing vectors; notes the niceness of the thread each call runs on."""

    def __init__(self) -> None:
        super().__init__()
        self.niceness: list[int] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.niceness.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return super().embed(texts)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own priority")
def test_writes_embed_at_a_lower_priority_than_the_threads_that_read():
    embedder = PriorityNoted()
    batcher = WriteBatcher(lambda: embedder, threads=1)
    try:
        batcher.embed(["a turn to store"])
    finally:
        batcher.close()
    reader = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert embedder.niceness == [min(19, reader + write_batch.WRITE_NICENESS)]
    # The reading thread itself keeps its priority.
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == reader
