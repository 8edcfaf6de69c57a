"""Request limits of the live server: each answers its code in the spec's envelope and
leaves nothing written. Every bound sits above what the SDK's legitimate use sends."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from memoryserver.limits import (
    MAX_BLOCKS_PER_REQUEST,
    MAX_BODY_BYTES,
    MAX_IDS_PER_REQUEST,
    MAX_JSON_DEPTH,
    MAX_OFFSET,
    MAX_TTL_SECONDS,
)

HUGE = 10**30


@pytest.fixture
def raw(agentmemory_server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=agentmemory_server, timeout=60) as client:
        yield client


@pytest.fixture
def path(user_id, session) -> str:
    return f"/users/{user_id}/sessions/s1"


def refused(response: httpx.Response, status: int, code: str = "INVALID_REQUEST") -> str:
    """Assert the status and the envelope; return the message for further checks."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "message", "details"} and body["error"] == code
    assert "Traceback" not in response.text
    return body["message"]


def stored(raw: httpx.Client, user_id: str) -> list[dict]:
    listed = raw.get(f"/users/{user_id}/memory", params={"limit": 200, "offset": 0})
    assert listed.status_code == 200
    return listed.json()["memory_blocks"]


def test_a_body_over_the_size_limit_is_413_and_nothing_is_written(raw, path, user_id):
    facts = ["size " * 1000] * (MAX_BODY_BYTES // 5000 + 10)
    body = json.dumps({"facts": facts}).encode()
    assert len(body) > MAX_BODY_BYTES
    message = refused(
        raw.post(f"{path}/memory", content=body, headers={"Content-Type": "application/json"}),
        413,
        "PAYLOAD_TOO_LARGE",
    )
    assert str(MAX_BODY_BYTES) in message

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit holds while reading
        for start in range(0, len(body), 65536):
            yield body[start : start + 65536]

    refused(
        raw.post(f"{path}/memory", content=chunks(), headers={"Content-Type": "application/json"}),
        413,
        "PAYLOAD_TOO_LARGE",
    )
    assert stored(raw, user_id) == []


def test_json_nested_too_deep_is_400_and_creates_nothing(raw, user_id):
    for depth in (50_000, MAX_JSON_DEPTH):  # deep past Python's recursion limit, and just past ours
        metadata = "[" * depth + "]" * depth
        body = f'{{"user_id": "{user_id}", "name": "Ada", "metadata": {{"k": {metadata}}}}}'
        message = refused(
            raw.post("/users", content=body, headers={"Content-Type": "application/json"}), 400
        )
        assert f"deeper than {MAX_JSON_DEPTH}" in message
        assert raw.get(f"/users/{user_id}").status_code == 404
    nested: dict = {"leaf": "x"}
    for _ in range(10):
        nested = {"k": nested}
    created = raw.post("/users", json={"user_id": user_id, "name": "Ada", "metadata": nested})
    assert created.status_code == 201 and created.json()["metadata"] == nested


def test_ttls_past_the_bound_are_400_and_change_nothing(raw, path, user_id):
    message = refused(
        raw.post(f"{path}/memory", json={"facts": ["kept"], "memory_block_ttl": 10**18}), 400
    )
    assert "memory_block_ttl" in message and str(MAX_TTL_SECONDS) in message
    assert stored(raw, user_id) == []

    refused(
        raw.post(
            f"/users/{user_id}/sessions", json={"session_id": "s2", "memory_blocks_ttl": 10**18}
        ),
        400,
    )
    assert raw.get(f"/users/{user_id}/sessions/s2").status_code == 404

    added = raw.post(
        f"{path}/memory",
        json={"facts": ["kept"], "memory_block_ttl": MAX_TTL_SECONDS, "context_required": False},
    )
    assert added.status_code == 201
    expires = stored(raw, user_id)[0]["expires_at"]
    assert expires is not None
    refused(raw.put(f"/users/{user_id}/ttl", json={"new_ttl": 10**12}), 400)
    assert stored(raw, user_id)[0]["expires_at"] == expires


def test_times_past_the_calendar_are_refused_and_write_nothing(raw, path, user_id):
    for when in ("9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59"):
        added = raw.post(f"{path}/memory", json={"facts": ["kept"], "created_at": when})
        assert added.status_code == 422 and added.json()["error"] == "VALIDATION_ERROR", when
        searched = raw.post(f"{path}/memory/search", json={"filters": {"start_time": when}})
        assert searched.status_code == 422, when
    assert stored(raw, user_id) == []


def test_offsets_versions_and_k_past_their_bounds_are_400(raw, user_id, session):
    prompt = raw.post(
        "/prompts", json={"prompt_id": f"p-{user_id}", "prompt": "Be brief.", "description": ""}
    )
    assert prompt.status_code == 201
    for url in (
        "/users",
        f"/users/{user_id}/sessions",
        f"/users/{user_id}/memory",
        "/prompts",
        f"/prompts/p-{user_id}/versions",
    ):
        refused(raw.get(url, params={"limit": 10, "offset": HUGE}), 400)
        page = raw.get(url, params={"limit": 10, "offset": MAX_OFFSET})
        assert page.status_code == 200 and page.json()["count"] == 0, url
    refused(raw.get(f"/prompts/p-{user_id}", params={"vid": str(HUGE)}), 400)
    search = f"/users/{user_id}/sessions/s1/memory/search"
    for filters in (
        {"prompt_id": f"p-{user_id}", "prompt_vid": HUGE},
        {"relevant_k": HUGE},
    ):
        refused(raw.post(search, json={"query": "q", "filters": filters}), 400)


def test_more_blocks_or_ids_than_one_request_may_carry_are_400(raw, path, user_id):
    too_many = [f"fact {n}" for n in range(MAX_BLOCKS_PER_REQUEST + 1)]
    message = refused(raw.post(f"{path}/memory", json={"facts": too_many}), 400)
    assert f"at most {MAX_BLOCKS_PER_REQUEST}" in message
    messages = [{"user_content": t} for t in too_many]
    refused(raw.post(f"{path}/memory", json={"messages": messages}), 400)
    assert stored(raw, user_id) == []

    added = raw.post(f"{path}/memory", json={"facts": too_many[:-1], "context_required": False})
    assert added.status_code == 201 and added.json()["accepted_count"] == MAX_BLOCKS_PER_REQUEST
    ids = [*added.json()["block_ids"], *(f"gone-{n}" for n in range(MAX_IDS_PER_REQUEST))]
    refused(raw.request("DELETE", f"{path}/memory", json={"block_ids": ids}), 400)
    refused(
        raw.put(
            f"/users/{user_id}/ttl", json={"new_ttl": 60, "session_id": "s1", "block_ids": ids}
        ),
        400,
    )
    assert len(stored(raw, user_id)) == MAX_BLOCKS_PER_REQUEST
    assert all(b["expires_at"] is None for b in stored(raw, user_id))
