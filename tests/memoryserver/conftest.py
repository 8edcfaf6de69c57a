"""A live embedded Agent Memory server for the contract suite, driven by the real SDK."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from agentmemory import AgentMemoryClient, AsyncAgentMemoryClient

from harness.memoryserver import start_agentmemory_server


@pytest.fixture(scope="session")
def agentmemory_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server process for the session; tests isolate themselves by unique user ids."""
    base_url, stop = start_agentmemory_server(
        tmp_path_factory.mktemp("agentmemory"),
        AGENT_MEMORY_EXTRACTOR="tests.support.extractors.FlakyExtractor",
        AGENT_MEMORY_MAX_FAIL_COUNT="3",
    )
    yield base_url
    stop()


@pytest.fixture
def client(agentmemory_server: str) -> Iterator[AgentMemoryClient]:
    with AgentMemoryClient(base_url=agentmemory_server, timeout=10, max_retries=0) as c:
        yield c


@pytest.fixture
async def aclient(agentmemory_server: str):
    async with AsyncAgentMemoryClient(base_url=agentmemory_server, timeout=10, max_retries=0) as c:
        yield c


@pytest.fixture
def user_id() -> str:
    return f"u-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def user(client: AgentMemoryClient, user_id: str):
    return client.create_user(user_id, name="Ada")


@pytest.fixture
def session(user):
    return user.create_session("s1")
