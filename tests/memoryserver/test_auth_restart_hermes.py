"""Token auth, durability across a restart, and the SDK's bundled Hermes backend."""

from __future__ import annotations

import httpx
import pytest
from agentmemory import AgentMemoryClient
from agentmemory.exceptions import AuthenticationError

from harness.memoryserver import start_agentmemory_server
from tests.support.polling import wait_until

pytestmark = pytest.mark.live_memory


def test_token_is_required_everywhere_but_health(tmp_path):
    base_url, stop = start_agentmemory_server(tmp_path, AGENT_MEMORY_SERVER_TOKEN="s3cret")
    try:
        assert httpx.get(f"{base_url}/health").status_code == 200
        bare = httpx.get(f"{base_url}/users/x")
        assert bare.status_code == 401 and bare.json()["error"] == "AUTHENTICATION_REQUIRED"
        with AgentMemoryClient(base_url=base_url, token="wrong", max_retries=0) as c:
            with pytest.raises(AuthenticationError) as info:
                c.create_user("u", name="n")
            assert info.value.error_code == "INVALID_TOKEN"
        with AgentMemoryClient(base_url=base_url, token="s3cret", max_retries=0) as c:
            assert c.create_user("u", name="n").user_id == "u"
    finally:
        stop()


def test_blocks_survive_a_restart_and_processing_blocks_are_requeued(tmp_path):
    # The first run never finishes extraction, so its blocks are still processing at shutdown.
    base_url, stop = start_agentmemory_server(
        tmp_path, AGENT_MEMORY_EXTRACTOR="tests.support.extractors.SlowExtractor"
    )
    try:
        with AgentMemoryClient(base_url=base_url, max_retries=0) as c:
            session = c.create_user("durable", name="D").create_session("s")
            ready = session.add_memory(facts=["kept as is"], context_required=False).block_ids
            pending = session.add_memory(
                facts=["the Summit Boot in brown", "second pending"]
            ).block_ids
    finally:
        stop()

    base_url, stop = start_agentmemory_server(tmp_path)
    try:
        with AgentMemoryClient(base_url=base_url, max_retries=0) as c:
            session = c.get_user("durable").get_session("s")

            def blocks():
                return {b.block_id: b for b in session.list_memories().memory_blocks}

            assert set(blocks()) == {*ready, *pending}
            assert wait_until(lambda: all(blocks()[i].status.value == "ready" for i in pending))
            assert "Summit Boot" in blocks()[pending[0]].summary
            assert session.search_memory("summit boot").memory_blocks[0].block_id == pending[0]
            stats = httpx.get(f"{base_url}/health/async-batch-processor").json()["statistics"]
            assert stats["total_recovered"] == 2
    finally:
        stop()


def test_hermes_backend_store_and_recall(agentmemory_server):
    from agentmemory_hermes._plugin.backend import AgentMemoryBackend

    backend = AgentMemoryBackend(
        {"base_url": agentmemory_server}, {"app": "aisle"}, token=lambda: None
    )
    try:
        backend.resolve("hermes-user", "conv")
        fact = backend.add_fact("The shopper wears size 42 trail shoes").block_ids[0]
        backend.add_turn("Any rain jackets?", "The Storm Shell is waterproof.")
        hits = backend.search("what shoe size", top_k=3)
        assert hits[0].block_id == fact
        new_id = backend.update(fact, "The shopper wears size 43 trail shoes")
        assert new_id == fact
        # Ending the session makes Hermes continue under base~2 and supersede on update.
        backend.end_session()
        backend.switch_session("conv")
        assert backend.current_session().session_id == "conv~2"
        superseded = backend.update(fact, "The shopper wears size 44 trail shoes")
        assert superseded != fact
        facts = [b.fact for b in backend.list() if b.fact]
        assert facts == ["The shopper wears size 44 trail shoes"]
        backend.delete(superseded)
        assert all(b.block_id != superseded for b in backend.list())
    finally:
        backend.close()
