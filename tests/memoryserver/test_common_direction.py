"""What all of a user's blocks share leaves the query before a fused search ranks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.test import override_settings

from memoryserver.conf import ServerSettings
from memoryserver.index import common
from memoryserver.index.rows import IndexRow, Query
from memoryserver.index.slot import UserIndex

DIMENSIONS = 6


def _unit(vector: np.ndarray) -> np.ndarray:
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def _row(n: int, vector: np.ndarray, text: str = "gina") -> IndexRow:
    at = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=n)
    return IndexRow(n, f"b{n}", f"s{n}", vector, at, at, None, "ready", None, None, None, text)


def _memory() -> tuple[UserIndex, np.ndarray]:
    """Twelve hubs: mostly the shared direction (axis 0). Two answers: half shared, half
    their own (axes 1 and 2). The query: the shared direction and both answers' topics a
    little. Every block holds the query's name, as every turn holds its speaker's; none its
    other word."""
    index = UserIndex(dimensions=DIMENSIONS)
    rng = np.random.default_rng(3)
    vectors = []
    for _ in range(12):
        vectors.append(_unit(np.r_[1.0, 0.0, 0.0, 0.1 * rng.standard_normal(3)]))
    vectors.append(_unit(np.array([0.5, 0.85, 0.1, 0.0, 0.0, 0.0])))  # b12: an answer
    vectors.append(_unit(np.array([0.5, 0.1, 0.85, 0.0, 0.0, 0.0])))  # b13: the other
    for n, vector in enumerate(vectors):
        # The answers say more than the name, so the lexical side ranks them last.
        index.upsert(_row(n, vector, "gina" if n < 12 else "gina ran far today"))
    return index, _unit(np.array([1.0, 0.3, 0.3, 0.0, 0.0, 0.0]))


def _top(index: UserIndex, query: np.ndarray, weight: float, k: int = 3) -> list[str]:
    # Near-copies not giving way (`index.spread`), so the hubs stand as they rank.
    q = Query(
        now=0.0,
        vector=query,
        terms=["gina", "active"],
        relevant_k=k,
        common_weight=weight,
        spread=False,
    )
    return [h.block_id for h in index.search(q)]


def test_both_answers_pass_the_blocks_that_only_share_the_common_direction():
    index, query = _memory()
    assert not {"b12", "b13"} & set(_top(index, query, 0.0))  # the hubs fill the top 3
    assert {"b12", "b13"} <= set(_top(index, query, 0.5))


def test_dense_search_alone_keeps_the_plain_cosine():
    index, query = _memory()
    hits = index.search(Query(now=0.0, vector=query, relevant_k=14, common_weight=0.5))
    scores = {h.block_id: h.score for h in hits}
    assert scores["b12"] == pytest.approx(float(index.vectors[12] @ query), abs=1e-6)


def test_the_common_direction_follows_every_write():
    index, _ = _memory()

    def held() -> np.ndarray:
        return index.vectors[: index.size][index.alive[: index.size]].sum(axis=0)

    np.testing.assert_allclose(index.common.total, held(), atol=1e-5)
    index.upsert(_row(3, _unit(np.ones(DIMENSIONS))))  # an update: the old vector leaves
    index.remove(["b0", "b5"])
    np.testing.assert_allclose(index.common.total, held(), atol=1e-5)
    # A user's index handed over in parts (loaded apart) starts from the same sum.
    taken = UserIndex.from_parts(index.vectors, index.parts())
    np.testing.assert_allclose(taken.common.total, held(), atol=1e-5)
    # Most blocks gone: the index compacts, and the sum still holds the live ones.
    many = UserIndex(dimensions=DIMENSIONS)
    for n in range(300):
        many.upsert(_row(n, _unit(np.r_[1.0, np.full(DIMENSIONS - 1, n % 7)])))
    many.remove([f"b{n}" for n in range(0, 300, 3)] + [f"b{n}" for n in range(1, 300, 3)])
    assert many.size == 100  # compacted
    live = many.vectors[: many.size][many.alive[: many.size]].sum(axis=0)
    np.testing.assert_allclose(many.common.total, live, atol=1e-3)


def test_the_weight_follows_the_embedder_unless_set():
    assert (
        ServerSettings(AGENT_MEMORY_EMBEDDER="minilm").knobs()["AGENT_MEMORY_SEARCH_COMMON_WEIGHT"]
        == 0.5
    )
    assert (
        ServerSettings(AGENT_MEMORY_EMBEDDER="hashing").knobs()["AGENT_MEMORY_SEARCH_COMMON_WEIGHT"]
        == 0.0
    )
    chosen = ServerSettings(AGENT_MEMORY_EMBEDDER="hashing", AGENT_MEMORY_SEARCH_COMMON_WEIGHT=0.3)
    assert chosen.knobs()["AGENT_MEMORY_SEARCH_COMMON_WEIGHT"] == 0.3
    index, query = _memory()
    with override_settings(AGENT_MEMORY_SEARCH_COMMON_WEIGHT=0.5):
        assert common.weight_default() == 0.5
        q = Query(now=0.0, vector=query, terms=["gina", "active"], spread=False)
        found = [h.block_id for h in index.search(q)]
    assert {"b12", "b13"} <= set(found[:3])
