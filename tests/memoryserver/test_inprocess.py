"""In-process checks of search, TTL and extraction logic (no HTTP, injectable clock)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import numpy as np
import pytest
from django.db import connections

from memoryserver import selectors
from memoryserver.clock import clock
from memoryserver.db import db_alias
from memoryserver.embedders import HashingEmbedder
from memoryserver.extractors import ExtractionError, ExtractiveExtractor, ModelExtractor
from memoryserver.index.context import CONTEXT_DENSE_RANGE, CONTEXT_DENSE_WEIGHT
from memoryserver.index.registry import get_registry
from memoryserver.index.rows import IndexRow, Query
from memoryserver.index.slot import UserIndex
from memoryserver.models import MemoryBlock
from memoryserver.payloads import BLOCK_PAYLOAD_COLUMNS, block_payload, block_payload_from_row
from memoryserver.services.blocks import NewBlock, block_update, blocks_add, blocks_delete
from memoryserver.services.extraction import block_mark_queued, extraction_attempt
from memoryserver.services.sessions import session_create
from memoryserver.services.ttl import blocks_expired_sweep, ttl_modify
from memoryserver.services.users import user_create, user_delete
from tests.support.memoryserver_stock import blocks_stocked, user_stocked

DB = ["default", "agentmemory"]  # agentmemory test DB depends on default


def _row(n: int, vector: np.ndarray, session: str = "s", ann: dict | None = None) -> IndexRow:
    at = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=n)
    return IndexRow(n, f"b{n}", session, vector, at, None, None, "ready", ann, None, None)


def test_index_ranks_by_cosine_and_survives_growth_and_compaction():
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(600, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = UserIndex(dimensions=8)
    for n, v in enumerate(vectors):
        index.upsert(_row(n, v, session="even" if n % 2 == 0 else "odd", ann={"m": str(n % 3)}))
    index.remove([f"b{n}" for n in range(0, 400)])  # forces a compaction
    # The first ranking itself: near-copies not giving way (`index.spread`).
    query = Query(now=0.0, vector=vectors[500], relevant_k=5, spread=False)
    hits = index.search(query)
    # Each block's cosine beside that of the block before it in its session (n - 2, once
    # compaction has moved them all): the context survives the compaction too.
    own = vectors @ vectors[500]
    context = np.array([own[n - 2] if n >= 402 else own[n] for n in range(600)])
    weight = CONTEXT_DENSE_WEIGHT * CONTEXT_DENSE_RANGE[1]  # blocks without text: the most
    blended = (own + weight * context) / (1 + weight)
    expected = np.argsort(-blended[400:])[:5] + 400
    assert [h.block_id for h in hits] == [f"b{n}" for n in expected]
    scoped = index.search(
        Query(now=0.0, vector=vectors[500], session_ids=["odd"], annotations={"m": "1"})
    )
    assert all(int(h.block_id[1:]) % 2 == 1 and int(h.block_id[1:]) % 3 == 1 for h in scoped)
    assert len(index) == 200


def test_hashing_embedder_is_deterministic_normalised_float32():
    a, b = HashingEmbedder().embed(["red running shoes", "red running shoes"])
    assert a.dtype == np.float32 and a.shape == (384,)
    assert np.allclose(a, b) and abs(float(np.linalg.norm(a)) - 1.0) < 1e-5


def test_extractive_summary_keeps_product_names():
    result = ExtractiveExtractor().extract("I bought the Trail Runner 2 for 89 EUR. It fits well.")
    assert result.summary == "I bought the Trail Runner 2 for 89 EUR."
    assert any("Trail Runner 2" in c for c in result.contexts)


class _FakeCompletions:
    def __init__(self, replies: list[str]) -> None:
        self.replies, self.calls = replies, []

    async def create(self, **kwargs):
        self.calls.append(kwargs)
        return SimpleNamespace(
            choices=[SimpleNamespace(message=SimpleNamespace(content=self.replies.pop(0)))]
        )


def test_model_extractor_parses_json_and_counts_bad_json_as_failure(monkeypatch):
    completions = _FakeCompletions(
        ["not json", json.dumps({"summary": "Wants boots.", "contexts": ["Summit Boot"]})]
    )
    fake_client = SimpleNamespace(chat=SimpleNamespace(completions=completions))
    monkeypatch.setattr("llm.factory.chat_client", lambda: fake_client, raising=False)
    monkeypatch.setattr("llm.factory.model_for", lambda role: f"{role}-model", raising=False)
    monkeypatch.setattr(
        "llm.prompts.extraction_messages",
        lambda text: [{"role": "user", "content": text}],
        raising=False,
    )
    extractor = ModelExtractor()
    with pytest.raises(ExtractionError):
        extractor.extract("I want the Summit Boot")
    result = extractor.extract("I want the Summit Boot", prompt="Be terse.")
    assert (result.summary, result.contexts) == ("Wants boots.", ["Summit Boot"])
    call = completions.calls[-1]
    assert call["model"] == "extraction-model" and call["response_format"] == {
        "type": "json_object"
    }
    assert call["messages"][0] == {"role": "system", "content": "Be terse."}


@pytest.mark.django_db(databases=DB)
def test_ttl_follows_the_injected_clock_and_the_sweeper_deletes():
    get_registry().clear()
    user_stocked("clock-user", name="C", blocks_ttl=60)
    session_ttl = blocks_stocked("clock-user", "s", ["session ttl"])
    block_ttl = blocks_stocked("clock-user", "s", ["block ttl"], block_ttl=600)
    never = blocks_stocked("clock-user", "s", ["never"], block_ttl=0)

    def visible() -> set[str]:
        found = selectors.blocks_search(
            user_id="clock-user", session_id="s", query=None, filters={}
        )
        return {b["block_id"] for b in found}

    try:
        assert len(visible()) == 3
        clock.advance(61)
        assert visible() == {*block_ttl, *never}
        listed, total = selectors.blocks_list(
            user_id="clock-user", session_ids=None, order_by="ingested_at", limit=20, offset=0
        )
        assert total == 2 and session_ttl[0] not in {b["block_id"] for b in listed}
        assert blocks_expired_sweep() == 1
        clock.advance(600)
        assert visible() == set(never)
    finally:
        clock.reset()


@pytest.mark.django_db(databases=DB)
def test_deleting_a_user_leaves_every_other_users_blocks():
    get_registry().clear()
    for user_id in ("leaving", "staying"):
        blocks_stocked(user_stocked(user_id), "s", [f"a fact of {user_id}"])
    user_delete(user_id="leaving")
    get_registry().clear()  # read back from SQLite, as after a restart
    listed, total = selectors.blocks_list(
        user_id="staying", session_ids=None, order_by="ingested_at", limit=20, offset=0
    )
    assert total == 1 and listed[0]["fact"] == "a fact of staying"
    assert not MemoryBlock.objects.filter(user_key="leaving").exists()


@pytest.mark.django_db(databases=DB)
def test_search_payload_cache_follows_every_kind_of_block_change():
    get_registry().clear()
    user_stocked("cache-user", name="C")
    first, second = blocks_stocked(
        "cache-user", "s", ["I like the Summit Boot", "other"], context_required=True
    )

    def found() -> dict[str, dict]:
        hits = selectors.blocks_search(
            user_id="cache-user",
            session_id="s",
            query="Summit Boot",
            filters={},
        )
        return {b["block_id"]: b for b in hits}

    before = found()  # caches both payloads
    assert before[first]["status"] == "processing" and before[first]["summary"] is None
    assert before[first]["rel_score"] > before[second]["rel_score"]
    block = MemoryBlock.objects.get(block_id=first)

    block_mark_queued([block.pk])
    assert found()[first]["last_queued_at"] != before[first]["last_queued_at"]

    assert extraction_attempt(block.pk) == "ready"
    extracted = found()[first]
    assert extracted["status"] == "ready" and extracted["summary"]

    ttl_modify(user_id="cache-user", new_ttl=3600, session_id=None, block_ids=[first])
    assert found()[first]["expires_at"] is not None

    block_update(
        user_id="cache-user",
        session_id="s",
        block_id=first,
        content=None,
        annotations={"k": "v"},
        block_ttl=None,
        async_processing=True,
        context_required=None,
        prompt_id=None,
        prompt_vid=None,
    )
    assert found()[first]["annotations"] == {"k": "v"}

    blocks_delete(user_id="cache-user", session_id="s", block_ids=[first])
    assert set(found()) == {second}


@pytest.mark.django_db(databases=DB)
def test_payloads_read_with_a_bare_cursor_equal_the_model_payload():
    user_create(user_id="raw-user", name="R", metadata=None)
    session_create(
        user_id="raw-user", session_id="s", annotations=None, metadata=None, blocks_ttl=3600
    )
    common = dict(
        user_id="raw-user",
        session_id="s",
        block_ttl=None,
        async_processing=True,
        prompt_id=None,
        prompt_vid=None,
    )
    blocks_add(
        items=[NewBlock(fact="a fact ü")],
        annotations={"k": "v", "x": ""},
        context_required=True,
        created_at=datetime(2025, 5, 6, 7, 8, 9, 123456, tzinfo=UTC),
        **common,
    )
    blocks_add(
        items=[NewBlock(user_content="hi", assistant_content="")],
        annotations=None,
        context_required=False,
        created_at=None,
        **common,
    )
    blocks = list(MemoryBlock.objects.filter(user_key="raw-user"))
    extraction_attempt(blocks[0].pk)  # summary and contexts filled in
    block_mark_queued([blocks[1].pk])
    for block in MemoryBlock.objects.filter(user_key="raw-user"):
        with connections[db_alias()].cursor() as cursor:
            cursor.execute(
                f"SELECT {BLOCK_PAYLOAD_COLUMNS} FROM {MemoryBlock._meta.db_table} "
                "WHERE block_id = %s",
                [block.block_id],
            )
            raw = block_payload_from_row(cursor.fetchone())
        expected = block_payload(block)
        assert raw == expected and list(raw) == list(expected)
        assert json.dumps(raw) == json.dumps(expected)
