"""A burst of writes never holds up a search, a listing or a session open.

A write embeds its blocks before it stores them, the slow part of it. Here the embedder
holds every write's embedding until the test lets go, and more writes are sent than the
server has request threads: reads sent meanwhile must be answered while every write is
still held, so they cannot be waiting for a thread behind them. No timing is measured:
a read that waited for the writes could only be answered after `release`.
"""

from __future__ import annotations

import asyncio
import threading

import httpx
import numpy as np
import pytest
from django.core.handlers.asgi import ASGIHandler

from memoryserver import embedders
from memoryserver.asgi import REQUEST_THREADS, DirectDispatch
from memoryserver.embedders import CachedEmbedder, HashingEmbedder
from memoryserver.index.registry import get_registry
from tests.support.memoryserver_stock import blocks_stocked, user_stocked

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "agentmemory"])

USER = "burst-user"
WRITE_MARK = "burst write"


class HeldWrites(HashingEmbedder):
    """Hashing vectors; a write's texts wait for `release` (reads pass straight through)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.held = 0
        self.lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        if any(WRITE_MARK in t for t in texts):
            with self.lock:
                self.held += 1
            assert self.release.wait(30), "the test never released the writes"
        return super().embed(texts)


@pytest.fixture
def server(settings, monkeypatch):
    settings.ROOT_URLCONF = "memoryserver.api.urls"
    settings.MIDDLEWARE = ["memoryserver.api.middleware.DoorMiddleware"]
    settings.AGENT_MEMORY_SERVER_TOKEN = None
    settings.AGENT_MEMORY_SERVER_ALLOWED_HOSTS = ["testserver"]
    settings.AGENT_MEMORY_EXTRACT_SEMANTIC = False  # no extraction worker in this test
    held = HeldWrites()
    monkeypatch.setattr(embedders, "_embedder", CachedEmbedder(held))
    get_registry().clear()
    user_stocked(USER, name="Burst")
    blocks_stocked(USER, "s", ["Prefers red trail shoes"], annotations={"type": "fact"})
    direct = DirectDispatch(ASGIHandler())
    yield direct, held
    held.release.set()
    direct.shutdown()
    get_registry().clear()


async def _until(condition, what: str) -> None:
    for _ in range(600):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never happened: {what}")


def test_reads_are_answered_while_more_writes_than_request_threads_embed(server):
    direct, held = server
    writes_count = REQUEST_THREADS + 4
    base = f"/users/{USER}/sessions/s"

    async def go() -> None:
        transport = httpx.ASGITransport(app=direct)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", timeout=60
        ) as c:
            writes = [
                asyncio.create_task(
                    c.post(
                        f"{base}/memory",
                        json={
                            "messages": [
                                {"user_content": f"{WRITE_MARK} {n}", "assistant_content": "Noted."}
                            ]
                        },
                    )
                )
                for n in range(writes_count)
            ]
            await _until(lambda: held.held >= 1, "a write reached the embedder")
            search = await c.post(f"{base}/memory/search", json={"query": "trail shoes"})
            listing = await c.get(f"/users/{USER}/memory", params={"limit": 5})
            opened = await c.post(f"/users/{USER}/sessions", json={"session_id": "s2"})
            resumed = await c.get(f"{base}")
            # Every read was answered with every write still held in its embedding.
            assert not any(w.done() for w in writes)
            assert search.status_code == 200, search.text
            assert [r["fact"] for r in search.json()["memory_blocks"]] == [
                "Prefers red trail shoes"
            ]
            assert listing.status_code == 200 and listing.json()["total"] == 1
            assert opened.status_code == 201, opened.text
            assert resumed.status_code == 200, resumed.text
            held.release.set()
            answers = await asyncio.gather(*writes)
            assert [a.status_code for a in answers] == [201] * writes_count
            listing = await c.get(f"/users/{USER}/memory", params={"limit": 50})
            assert listing.json()["total"] == writes_count + 1

    asyncio.run(go())
