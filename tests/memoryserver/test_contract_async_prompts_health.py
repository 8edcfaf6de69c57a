"""The async SDK client, prompts and health routes against a live server."""

from __future__ import annotations

import httpx
import pytest
from agentmemory.exceptions import ConflictError, NotFoundError, ValidationError

pytestmark = pytest.mark.live_memory


async def test_async_client_covers_the_memory_cycle(aclient, user_id):
    user = await aclient.create_user(user_id, name="Bo")
    fetched = await aclient.get_user(user_id)
    assert fetched.name == "Bo"
    session = await user.create_session("async-1")
    added = await session.add_memory(
        facts=["wants a waterproof Storm Shell"], async_processing=False
    )
    turn = await session.add_memory(
        messages=[{"user_content": "size 42 please", "assistant_content": ""}]
    )
    hits = (await session.search_memory("waterproof shell")).memory_blocks
    assert hits[0].block_id == added.block_ids[0] and hits[0].summary
    listed = await user.list_memories()
    assert {b.block_id for b in listed.memory_blocks} == {*added.block_ids, *turn.block_ids}
    updated = await session.update_memory(added.block_ids[0], annotations={"k": "v"})
    assert updated.block.annotations == {"k": "v"}
    await user.modify_ttl(0, session_id="async-1")
    sessions = await user.list_sessions()
    assert [s.session_id for s in sessions.sessions] == ["async-1"]
    assert (await session.delete_memory(block_ids="all")).deleted_count == 2
    ended = await session.end()
    assert ended.end_time
    with pytest.raises(ValidationError):
        await session.add_memory(facts=["after the end"])
    with pytest.raises(ConflictError):
        await aclient.create_user(user_id, name="Bo")
    users = await aclient.list_users(name="Bo", limit=500)
    assert user_id in [u.id for u in users.users]
    await aclient.delete_user(user_id)
    with pytest.raises(NotFoundError):
        await aclient.get_user(user_id)


async def test_async_health_ping_is_all_healthy(aclient):
    ping = await aclient.health_ping()
    assert ping.server.status.value == "healthy"
    assert ping.models.embedding.status == "healthy" and ping.models.embedding.model == "hashing"
    assert ping.couchbase["status"] == "healthy"


def test_health_routes_report_real_queue_figures(client, agentmemory_server):
    ping = client.health_ping()
    assert ping.overall_status == "healthy" if hasattr(ping, "overall_status") else True
    batch = httpx.get(f"{agentmemory_server}/health/async-batch-processor").json()
    assert batch["status"] == "healthy" and batch["dispatcher_alive"] is True
    assert batch["queue"]["max_size"] == 10_000
    assert batch["statistics"]["total_enqueued"] >= batch["statistics"]["total_completed"]
    memory = httpx.get(f"{agentmemory_server}/health/memory").json()
    assert memory["accepting_requests"] is True and 0 <= memory["usage_percent"] <= 100


def test_prompt_registry_versions_archive_and_purge(client, user_id, user):
    pid = f"p-{user_id}"
    created = client.create_prompt(pid, prompt="Summarise shopping intent.", description="shop")
    assert (created.current_vid, created.version_count, created.archived) == (0, 1, False)
    with pytest.raises(ConflictError):
        client.create_prompt(pid, prompt="again", description="dup")
    updated = client.update_prompt(pid, prompt="Summarise intent, keep product names.")
    assert (updated.current_vid, updated.version_count) == (1, 2)
    assert client.get_prompt(pid).prompt.startswith("Summarise intent")
    assert client.get_prompt(pid, vid=0).prompt == "Summarise shopping intent."
    versions = client.list_prompt_versions(pid)
    assert [(v.vid, v.is_current) for v in versions.versions] == [(0, False), (1, True)]
    assert pid in [p.prompt_id for p in client.list_prompts(limit=1000).prompts]

    session = user.create_session("prompted")
    block = session.add_memory(
        facts=["likes the Canyon Pack"], prompt_id=pid, async_processing=False
    )
    stamped = session.search_memory(filters={"prompt_id": pid}).memory_blocks
    assert [(b.block_id, b.prompt_vid) for b in stamped] == [(block.block_ids[0], 1)]
    assert session.search_memory(filters={"prompt_id": pid, "prompt_vid": 0}).memory_blocks == []

    with pytest.raises(ConflictError):
        client.purge_prompt(pid, vid=1)  # the current version
    client.purge_prompt(pid, vid=0)
    client.archive_prompt(pid, vid="all")
    with pytest.raises(ConflictError):
        client.archive_prompt(pid, vid="all")
    with pytest.raises(ConflictError):
        session.add_memory(facts=["x"], prompt_id=pid)
    with pytest.raises(ConflictError):
        client.create_prompt(pid, prompt="reuse", description="archived ids stay reserved")
    client.purge_prompt(pid, vid="all")
    with pytest.raises(NotFoundError):
        client.get_prompt(pid)
    client.create_prompt(pid, prompt="fresh", description="purged ids are free")
