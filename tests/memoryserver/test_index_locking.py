"""Per-user locking of the in-memory index.

Ordered with events, never with sleeps: a loader that blocks until the test releases it
stands in for a cold 100k-block user (seconds of SQLite reads). Thread joins carry a generous
bound only so that a broken lock fails the test instead of hanging the suite.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from datetime import UTC, datetime

import numpy as np
import pytest

from memoryserver import selectors
from memoryserver.index.registry import IndexRegistry, SlotLock
from memoryserver.index.rows import IndexRow, Query
from memoryserver.index.slot import UserIndex
from tests.support.memoryserver_stock import blocks_stocked, user_stocked

HANG_GUARD = 30.0  # seconds; only ever reached when the code under test is broken


def _row(block_id: str, vector: list[float]) -> IndexRow:
    v = np.asarray(vector, dtype=np.float32)
    at = datetime(2026, 1, 1, tzinfo=UTC)
    return IndexRow(
        1, block_id, "s", v / np.linalg.norm(v), at, None, None, "ready", None, None, None
    )


def _index(*block_ids: str) -> UserIndex:
    index = UserIndex(dimensions=2)
    for n, block_id in enumerate(block_ids):
        index.upsert(_row(block_id, [1.0, float(n)]))
    return index


def _search(index: UserIndex) -> set[str]:
    return {h.block_id for h in index.search(Query(now=0.0, vector=np.array([1.0, 0.0])))}


class BlockedLoader:
    """A loader that signals it started and then waits until the test lets it finish."""

    def __init__(self, load: Callable[[], UserIndex]) -> None:
        self.load = load
        self.started = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    def __call__(self) -> UserIndex:
        self.calls += 1
        self.started.set()
        assert self.release.wait(HANG_GUARD), "the test never released the loader"
        return self.load()


def in_thread(target: Callable[[], object]) -> tuple[threading.Thread, dict[str, object]]:
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = target()
        except BaseException as exc:  # handed back to the test to assert on
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def search_in(registry: IndexRegistry, user_id: str, loader: Callable[[], UserIndex]) -> set[str]:
    with registry.reading(user_id, loader) as index:
        return _search(index)


def never_called() -> UserIndex:
    raise AssertionError("this user is loaded already")


@pytest.fixture
def registry() -> IndexRegistry:
    registry = IndexRegistry(max_blocks=1000)
    assert search_in(registry, "warm", lambda: _index("w1")) == {"w1"}
    return registry


def test_a_cold_user_loading_holds_up_no_other_users_search(registry):
    cold = BlockedLoader(lambda: _index("c1"))
    loading, _ = in_thread(lambda: search_in(registry, "cold", cold))
    assert cold.started.wait(HANG_GUARD)

    searching, outcome = in_thread(lambda: search_in(registry, "warm", never_called))
    searching.join(HANG_GUARD)

    assert not searching.is_alive(), "a search of a loaded user waited for another user's load"
    assert outcome == {"value": {"w1"}}
    assert loading.is_alive() and not cold.release.is_set()
    cold.release.set()
    loading.join(HANG_GUARD)


def test_a_write_to_a_loading_user_does_not_wait_and_is_not_lost(registry):
    # The loader's read of SQLite happened before this write committed: the write is queued
    # and replayed on the loaded index instead of waiting seconds for the load.
    cold = BlockedLoader(lambda: _index("c1"))
    loading, outcome = in_thread(lambda: search_in(registry, "cold", cold))
    assert cold.started.wait(HANG_GUARD)

    writing, _ = in_thread(
        lambda: registry.change("cold", lambda index: index.upsert(_row("written", [1.0, 0.0])))
    )
    writing.join(HANG_GUARD)
    other, _ = in_thread(lambda: registry.change("warm", lambda index: index.remove(["w1"])))
    other.join(HANG_GUARD)

    assert not writing.is_alive() and not other.is_alive(), "a write waited for a load"
    assert loading.is_alive()
    cold.release.set()
    loading.join(HANG_GUARD)
    assert outcome == {"value": {"c1", "written"}}
    assert search_in(registry, "warm", never_called) == set()


def test_concurrent_first_searches_of_one_user_share_one_load(registry):
    cold = BlockedLoader(lambda: _index("c1"))
    first, first_outcome = in_thread(lambda: search_in(registry, "cold", cold))
    assert cold.started.wait(HANG_GUARD)
    second, second_outcome = in_thread(lambda: search_in(registry, "cold", cold))
    cold.release.set()
    first.join(HANG_GUARD)
    second.join(HANG_GUARD)
    assert first_outcome == second_outcome == {"value": {"c1"}}
    assert cold.calls == 1


def test_a_failed_load_reaches_its_caller_and_the_next_search_loads_again(registry):
    def broken() -> UserIndex:
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        search_in(registry, "cold", broken)
    assert search_in(registry, "cold", lambda: _index("c1")) == {"c1"}


def test_least_recently_used_users_are_dropped_past_the_vector_budget():
    registry = IndexRegistry(max_blocks=3)
    search_in(registry, "a", lambda: _index("a1", "a2"))
    search_in(registry, "b", lambda: _index("b1"))
    search_in(registry, "a", never_called)  # a is now the most recently used
    search_in(registry, "c", lambda: _index("c1"))
    assert search_in(registry, "a", never_called) == {"a1", "a2"}
    assert search_in(registry, "b", lambda: _index("b-reloaded")) == {"b-reloaded"}


def test_a_steady_stream_of_readers_does_not_starve_a_writer():
    """Two readers hand the read lock to each other so that it is never free; a writer
    that starts waiting must still get in while the stream would go on.

    Each reader takes the lock without blocking before the other lets go. A lock that
    preferred readers would let the hand-over go on for ever (here: up to LIMIT rounds)
    and the writer would only get in once the stream ran out.
    """
    lock = SlotLock()
    limit = 20_000
    writer_in = threading.Event()
    stream_over = threading.Event()
    rounds = 0

    first = lock.gen_rlock()
    assert first.acquire(blocking=False)

    def writer() -> None:
        with lock.gen_wlock():
            writer_in.set()

    def stream(held) -> None:
        nonlocal rounds
        while rounds < limit and not writer_in.is_set():
            nxt = lock.gen_rlock()
            if not nxt.acquire(blocking=False):
                break  # a writer is waiting: new readers queue behind it
            held.release()
            held = nxt
            rounds += 1
        held.release()
        stream_over.set()

    writing, _ = in_thread(writer)
    streaming, _ = in_thread(lambda: stream(first))
    writing.join(HANG_GUARD)
    streaming.join(HANG_GUARD)

    assert writer_in.is_set()
    assert rounds < limit, "the writer only got in after the readers ran out"


@pytest.mark.django_db(transaction=True, databases=["default", "agentmemory"])
def test_the_search_path_loads_a_cold_user_without_holding_up_others(monkeypatch):
    """Through `selectors.blocks_search`, as a request runs it."""
    from memoryserver.index.registry import get_registry

    get_registry().clear()
    for user_id in ("warm-user", "cold-user"):
        user_stocked(user_id)
        blocks_stocked(user_id, "s", [f"{user_id} likes red boots"])

    def search(user_id: str) -> list[str]:
        found = selectors.blocks_search(
            user_id=user_id, session_id="s", query="red boots", filters={}
        )
        return [b["fact"] for b in found]

    assert search("warm-user") == ["warm-user likes red boots"]
    real_load = selectors.load_user_index
    cold = BlockedLoader(lambda: real_load("cold-user"))
    monkeypatch.setattr(selectors, "load_user_index", lambda user_id: cold())
    loading, cold_outcome = in_thread(lambda: search("cold-user"))
    assert cold.started.wait(HANG_GUARD)
    searching, warm_outcome = in_thread(lambda: search("warm-user"))
    searching.join(HANG_GUARD)
    assert not searching.is_alive(), "a warm user's search waited for a cold user's load"
    assert warm_outcome == {"value": ["warm-user likes red boots"]}
    cold.release.set()
    loading.join(HANG_GUARD)
    assert cold_outcome == {"value": ["cold-user likes red boots"]}
    get_registry().clear()


def test_concurrent_searches_of_one_query_embed_it_once(monkeypatch):
    """A recall's fact and turn searches carry the same text and arrive together."""

    class BlockedEmbedder:
        def __init__(self) -> None:
            self.calls = 0
            self.started = threading.Event()
            self.release = threading.Event()

        def embed_query(self, text: str) -> np.ndarray:
            self.calls += 1
            self.started.set()
            assert self.release.wait(HANG_GUARD)
            return np.array([1.0, 0.0], dtype=np.float32)

    waiting = threading.Event()

    class WatchedFuture(Future):
        def result(self, timeout=None):
            waiting.set()  # the second search is now waiting for the first one's vector
            return super().result(timeout)

    embedder = BlockedEmbedder()
    monkeypatch.setattr(selectors, "get_embedder", lambda: embedder)
    monkeypatch.setattr(selectors, "Future", WatchedFuture)
    first, first_outcome = in_thread(lambda: selectors.query_vector("red boots"))
    assert embedder.started.wait(HANG_GUARD)
    second, second_outcome = in_thread(lambda: selectors.query_vector("red boots"))
    assert waiting.wait(HANG_GUARD)
    embedder.release.set()
    first.join(HANG_GUARD)
    second.join(HANG_GUARD)
    assert embedder.calls == 1
    assert first_outcome["value"].tolist() == second_outcome["value"].tolist() == [1.0, 0.0]
    assert selectors.query_vector("red boots").tolist() == [1.0, 0.0]  # none left pending
    assert embedder.calls == 2
