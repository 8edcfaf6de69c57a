"""Users and sessions through the unmodified sync SDK against a live server."""

from __future__ import annotations

import pytest
from agentmemory.exceptions import (
    ConflictError,
    NotFoundError,
    ValidationError,
)

pytestmark = pytest.mark.live_memory


def test_user_create_get_update_delete(client, user_id):
    created = client.create_user(user_id, name="Ada", metadata={"tier": "gold", "visits": 3})
    assert (created.user_id, created.name) == (user_id, "Ada")

    created.create_session("s1")
    created.create_session("s2")
    fetched = client.get_user(user_id)
    assert fetched.name == "Ada"
    assert fetched.metadata == {"tier": "gold", "visits": 3}
    assert fetched.sessions == ["s1", "s2"]

    # Metadata is replaced, not merged; a field left out keeps its value.
    fetched.update(metadata={"tier": "silver"})
    again = client.get_user(user_id)
    assert (again.name, again.metadata) == ("Ada", {"tier": "silver"})

    client.delete_user(user_id)
    with pytest.raises(NotFoundError):
        client.get_user(user_id)
    with pytest.raises(NotFoundError):
        client.delete_user(user_id)


def test_duplicate_user_is_a_conflict(client, user):
    with pytest.raises(ConflictError) as info:
        client.create_user(user.user_id, name="Other")
    assert info.value.error_code == "USER_ALREADY_EXISTS"


def test_bad_user_input_is_a_validation_error_with_the_envelope(client, agentmemory_server):
    import httpx

    with pytest.raises(ValidationError):
        client.create_user("  ", name="x")  # SDK refuses blank ids itself
    # Past the SDK: the server's own rules answer in the spec's envelope.
    response = httpx.post(f"{agentmemory_server}/users", json={"user_id": "a/b", "name": 3})
    body = response.json()
    assert response.status_code == 422
    assert body["error"] == "VALIDATION_ERROR"
    assert set(body["details"]) == {"user_id", "name"}
    missing = httpx.get(f"{agentmemory_server}/no/such/route")
    assert missing.status_code == 404 and missing.json()["error"] == "NOT_FOUND"
    wrong_method = httpx.patch(f"{agentmemory_server}/users")
    assert wrong_method.status_code == 405 and wrong_method.json()["error"] == "METHOD_NOT_ALLOWED"
    broken = httpx.post(
        f"{agentmemory_server}/users",
        content=b"{nope",
        headers={"content-type": "application/json"},
    )
    assert broken.status_code == 400 and broken.json()["error"] == "INVALID_REQUEST"


def test_list_users_filters_and_pages(client, user_id):
    tag = user_id
    for n in range(3):
        client.create_user(f"{tag}-{n}", name=f"name-{tag}", metadata={"team": tag, "n": n})
    page = client.list_users(name=f"name-{tag}", limit=2, offset=0)
    assert [u.id for u in page.users] == [f"{tag}-0", f"{tag}-1"]
    assert (page.count, page.total, page.has_more) == (2, 3, True)
    # Metadata values are compared as strings.
    one = client.list_users(metadata={"team": tag, "n": "2"})
    assert [u.id for u in one.users] == [f"{tag}-2"]
    assert client.list_users(name="nobody-has-this-name").users == []


def test_sessions_lifecycle(client, user):
    session = user.create_session(
        "base~2", annotations={"channel": "web"}, metadata={"device": "phone"}, memory_blocks_ttl=60
    )
    assert session.start_time and session.end_time is None
    assert session.blocks_ttl == 60

    got = user.get_session("base~2")
    assert got.annotations == {"channel": "web"} and got.metadata == {"device": "phone"}
    got.update(annotations={"channel": "app"})
    assert user.get_session("base~2").annotations == {"channel": "app"}

    with pytest.raises(ConflictError):
        user.create_session("base~2")

    listing = user.list_sessions(limit=10, offset=0)
    assert [s.session_id for s in listing.sessions] == ["base~2"]
    assert listing.total == 1

    ended = got.end()
    assert ended.end_time is not None
    with pytest.raises(ValidationError) as info:
        got.end()
    assert info.value.error_code == "SESSION_ALREADY_ENDED"
    with pytest.raises(ValidationError) as info:
        got.add_memory(facts=["too late"])
    assert info.value.error_code == "SESSION_ALREADY_ENDED"

    got.delete()
    with pytest.raises(NotFoundError):
        user.get_session("base~2")


def test_session_routes_of_unknown_user_are_not_found(agentmemory_server, user_id):
    import httpx

    response = httpx.post(
        f"{agentmemory_server}/users/{user_id}/sessions", json={"session_id": "s"}
    )
    assert response.status_code == 404
    assert response.json()["error"] == "USER_NOT_FOUND"
