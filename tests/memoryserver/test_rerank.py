"""The second stage: the fused top ranked again by each candidate's best sentence."""

from __future__ import annotations

import numpy as np
from django.test import override_settings

from memoryserver.conf import ServerSettings
from memoryserver.index import rerank
from memoryserver.index.rows import IndexRow, Query
from memoryserver.index.slot import UserIndex


def test_a_candidate_whose_own_sentence_says_it_passes_one_that_ranked_by_its_company():
    chosen = np.array([7, 3, 5, 9])
    fused = np.array([1.0, 0.9, 0.89, 0.5])
    # Position 5's best sentence is the closest to the query, position 3's the furthest.
    own = np.zeros(10)
    own[[7, 3, 5, 9]] = [0.8, 0.2, 0.9, 0.1]
    positions, scores = rerank.reranked(chosen, fused, own)
    assert positions.tolist() == [7, 5, 3, 9]
    assert sorted(positions.tolist()) == sorted(chosen.tolist())  # none from outside
    assert scores.tolist() == sorted(scores.tolist(), reverse=True)
    assert scores.min() >= 0.0 and scores.max() <= 1.0


def test_only_the_top_depth_moves():
    n = rerank.DEPTH + 5
    chosen = np.arange(n)
    fused = np.linspace(1.0, 0.95, n)
    own = np.linspace(0.0, 1.0, n)  # the later, the closer
    positions, _ = rerank.reranked(chosen, fused, own)
    assert positions[rerank.DEPTH :].tolist() == chosen[rerank.DEPTH :].tolist()
    assert positions[: rerank.DEPTH].tolist() != chosen[: rerank.DEPTH].tolist()


def test_it_follows_the_embedder_unless_set_and_the_setting_decides(monkeypatch):
    assert ServerSettings(AGENT_MEMORY_EMBEDDER="minilm").knobs()["AGENT_MEMORY_SEARCH_RERANK"]
    assert not ServerSettings(AGENT_MEMORY_EMBEDDER="hashing").knobs()["AGENT_MEMORY_SEARCH_RERANK"]
    assert not ServerSettings(
        AGENT_MEMORY_EMBEDDER="minilm", AGENT_MEMORY_SEARCH_RERANK=False
    ).knobs()["AGENT_MEMORY_SEARCH_RERANK"]
    index = UserIndex(dimensions=3)
    for n in range(4):
        vector = np.array([1.0, n / 4, 0.0], dtype=np.float32)
        row = IndexRow(n, f"b{n}", f"s{n}", vector / np.linalg.norm(vector), None, None,
                       None, "ready", None, None, None, "word")  # fmt: skip
        index.upsert(row)
    calls = []
    monkeypatch.setattr(
        rerank, "reranked", lambda chosen, scores, own: calls.append(1) or (chosen, scores)
    )
    query = Query(now=0.0, vector=np.array([1.0, 0.0, 0.0], dtype=np.float32), terms=["word"])
    for on in (True, False):
        with override_settings(AGENT_MEMORY_SEARCH_RERANK=on):
            calls.clear()
            index.search(query)
            assert bool(calls) == on
