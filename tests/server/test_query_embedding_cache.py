"""The server's query-vector cache: a query embedded once, even when two searches ask at once."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from memoryserver.embedders import CachedEmbedder


class GatedEmbedder:
    """Counts its calls; the first one waits at a gate, so another can arrive meanwhile."""

    name = "gated"
    dimensions = 3

    def __init__(self, *, fail_first: bool = False) -> None:
        self.calls: list[str] = []
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.fail_first = fail_first

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.extend(texts)
        if len(self.calls) == 1:
            self.entered.set()
            assert self.gate.wait(10)
            if self.fail_first:
                raise RuntimeError("embedder down")
        return np.array([[len(self.calls), 0.0, 0.0]], dtype=np.float32)


def _in_thread(target) -> tuple[threading.Thread, dict]:
    out: dict = {}

    def run() -> None:
        try:
            out["vector"] = target()
        except Exception as exc:
            out["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def test_two_searches_of_one_new_query_embed_it_once() -> None:
    inner = GatedEmbedder()
    cached = CachedEmbedder(inner)
    first, first_out = _in_thread(lambda: cached.embed_query("black boots"))
    assert inner.entered.wait(10)
    second, second_out = _in_thread(lambda: cached.embed_query("black boots"))
    # The second search waits for the first one's vector instead of embedding again.
    second.join(0.2)
    assert second.is_alive()
    inner.gate.set()
    first.join(10)
    second.join(10)
    assert inner.calls == ["black boots"]
    np.testing.assert_array_equal(first_out["vector"], second_out["vector"])
    # And afterwards it is a plain cache hit.
    np.testing.assert_array_equal(cached.embed_query("black boots"), first_out["vector"])
    assert inner.calls == ["black boots"]


def test_other_queries_do_not_wait_for_an_embedding_in_flight() -> None:
    inner = GatedEmbedder()
    cached = CachedEmbedder(inner)
    first, _ = _in_thread(lambda: cached.embed_query("black boots"))
    assert inner.entered.wait(10)
    other, other_out = _in_thread(lambda: cached.embed_query("linen shirts"))
    other.join(10)
    assert not other.is_alive() and "vector" in other_out
    inner.gate.set()
    first.join(10)
    assert inner.calls == ["black boots", "linen shirts"]


def test_a_failed_embedding_fails_its_waiters_and_the_next_search_tries_again() -> None:
    inner = GatedEmbedder(fail_first=True)
    cached = CachedEmbedder(inner)
    first, first_out = _in_thread(lambda: cached.embed_query("black boots"))
    assert inner.entered.wait(10)
    second, second_out = _in_thread(lambda: cached.embed_query("black boots"))
    second.join(0.2)
    inner.gate.set()
    first.join(10)
    second.join(10)
    assert str(first_out["error"]) == "embedder down"
    assert str(second_out["error"]) == "embedder down"
    # Nothing was cached and nothing is left in flight: the next search embeds afresh.
    assert cached.embed_query("black boots")[0] == pytest.approx(2.0)
    assert inner.calls == ["black boots", "black boots"]
