"""The inspector's records API against the embedded Agent Memory server, through the SDK."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta
from urllib.parse import urlencode

import pytest
from agentmemory import AgentMemoryClient
from asgiref.sync import async_to_sync
from django.test import Client
from django.urls import reverse

from harness.memoryserver import start_agentmemory_server
from memoryapp.recording import facts_record, turn_record
from memoryapp.sessions import session_open
from shop.services import shopper_get_or_create
from tests.support.panels import NOBODY, PanelListener
from tests.support.shopper_memory import memory_user_of

pytestmark = [pytest.mark.django_db, pytest.mark.live_memory]

RECORDS = reverse("memoryapp:records")


def delete_url(block_id: str) -> str:
    return reverse("memoryapp:record-delete", args=[block_id])


@pytest.fixture(scope="module")
def memory_url(tmp_path_factory):
    base_url, stop = start_agentmemory_server(tmp_path_factory.mktemp("records-memory"))
    yield base_url
    stop()


@pytest.fixture
def memory(settings, memory_url):
    settings.AGENT_MEMORY_URL = memory_url
    client = AgentMemoryClient(base_url=memory_url, max_retries=0)
    yield client
    client.close()


def new_shopper():
    # The memory server outlives each test's rollback, so every test gets its own shopper.
    return shopper_get_or_create(username=f"t{uuid.uuid4().hex[:12]}")


def signed_in(user, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def seed_memories(memory: AgentMemoryClient, username: str) -> dict[str, str]:
    """One visit with a turn and a fact, then a later dated visit with a fact and an episode."""
    user = memory.create_user(memory_user_of(username), username)
    first = user.create_session("session1", memory_blocks_ttl=3600)
    turn_id = first.add_memory(
        messages=[{"user_content": "show me jeans", "assistant_content": "Here are three."}],
        annotations={"type": "turn"},
        context_required=True,
    ).block_ids[0]
    fact_id = first.add_memory(
        facts=["The shopper wears size M."],
        annotations={"type": "fact"},
        memory_block_ttl=0,
        context_required=False,
    ).block_ids[0]
    second = user.create_session("session2")
    later_fact_id = second.add_memory(
        facts=["The shopper dislikes yellow."],
        annotations={"type": "fact"},
        context_required=False,
        created_at="2026-05-01T10:00:00+00:00",
    ).block_ids[0]
    episode_id = second.add_memory(
        facts=["Looked for wedding outfits; found a suit."],
        annotations={"type": "episode", "resolved": "true"},
        context_required=False,
    ).block_ids[0]
    return {"turn": turn_id, "fact": fact_id, "later_fact": later_fact_id, "episode": episode_id}


def test_records_need_a_signed_in_shopper(memory):
    response = Client().get(RECORDS)
    assert response.status_code == 403


def test_a_signed_out_visitor_cannot_delete_a_record(memory):
    shopper = new_shopper()
    ids = seed_memories(memory, shopper.username)

    response = Client().post(delete_url(ids["fact"]), HTTP_ORIGIN="http://testserver")

    assert response.status_code == 403
    assert ids["fact"] in remaining(memory, shopper.username)


def test_records_list_newest_first_with_every_field(memory):
    shopper = new_shopper()
    ids = seed_memories(memory, shopper.username)

    response = signed_in(shopper).get(RECORDS)

    assert response.status_code == 200
    body = response.json()
    assert body["total"] == 4 and body["limit"] == 20 and body["offset"] == 0
    records = body["records"]
    # Newest write first, across both sessions.
    assert [r["block_id"] for r in records] == [
        ids["episode"],
        ids["later_fact"],
        ids["fact"],
        ids["turn"],
    ]
    by_id = {r["block_id"]: r for r in records}
    assert set(by_id[ids["turn"]]) == {
        "block_id",
        "session_id",
        "kind",
        "text",
        "created_at",
        "ingested_at",
        "expires_at",
        "status",
        "category",
        "slot",
        "superseded",
    }
    turn = by_id[ids["turn"]]
    assert turn["kind"] == "turn" and turn["session_id"] == "session1"
    assert turn["text"] == "Shopper: show me jeans\nAssistant: Here are three."
    assert by_id[ids["fact"]]["kind"] == "fact"
    assert by_id[ids["fact"]]["text"] == "The shopper wears size M."
    assert by_id[ids["episode"]]["kind"] == "episode"
    later = by_id[ids["later_fact"]]
    assert later["session_id"] == "session2" and later["created_at"].startswith("2026-05-01")
    assert later["ingested_at"] and later["status"] in {"processing", "ready"}
    assert all(r["expires_at"] is None or isinstance(r["expires_at"], str) for r in records)


def test_records_page_with_limit_and_offset(memory):
    shopper = new_shopper()
    ids = seed_memories(memory, shopper.username)

    body = signed_in(shopper).get(RECORDS, {"limit": 2, "offset": 1}).json()

    assert body["total"] == 4 and body["limit"] == 2 and body["offset"] == 1
    assert [r["block_id"] for r in body["records"]] == [ids["later_fact"], ids["fact"]]


@pytest.mark.parametrize(
    "query",
    [{"limit": 0}, {"limit": 101}, {"limit": "ten"}, {"offset": -1}],
)
def test_records_reject_bad_paging(memory, query):
    response = signed_in(new_shopper()).get(RECORDS, query)
    assert response.status_code == 400
    assert set(response.json()) <= {"limit", "offset"}


def test_records_of_a_shopper_without_memory_are_empty(memory):
    body = signed_in(new_shopper()).get(RECORDS).json()
    assert body == {"records": [], "total": 0, "limit": 20, "offset": 0}


def test_records_say_memory_is_unavailable_when_the_server_is_down(settings):
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"  # nothing listens on the discard port
    client = signed_in(new_shopper())

    assert client.get(RECORDS).status_code == 503
    assert client.get(RECORDS).json() == {"detail": "Memory is unavailable right now."}
    response = client.post(delete_url("b-123"))
    assert response.status_code == 503
    assert response.json() == {"detail": "Memory is unavailable right now."}


def remaining(memory: AgentMemoryClient, username: str) -> set[str]:
    page = memory.get_user(memory_user_of(username)).list_memories(limit=200)
    return {b.block_id for b in page.memory_blocks}


def test_delete_removes_the_shoppers_own_record_and_tells_their_panels(memory):
    shopper = new_shopper()
    ids = seed_memories(memory, shopper.username)
    client = signed_in(shopper)
    panel, bystander = PanelListener(shopper.pk), PanelListener(NOBODY)

    response = client.post(delete_url(ids["fact"]))

    assert response.status_code == 200
    assert response.json() == {"deleted": ids["fact"]}
    assert remaining(memory, shopper.username) == {ids["turn"], ids["later_fact"], ids["episode"]}
    listed = [r["block_id"] for r in client.get(RECORDS).json()["records"]]
    assert ids["fact"] not in listed and len(listed) == 3
    # The session the record was in still exists: no panel has to forget it.
    assert panel.received() == [
        {
            "type": "memory.changed",
            "reason": "record_deleted",
            "session_ids": [],
            "block_id": ids["fact"],
        }
    ]
    assert bystander.received() == []


def test_records_carry_their_expiry_derived_from_the_sessions_retention(live_memory):
    shopper = new_shopper()
    user_id = memory_user_of(shopper.username)

    async def one_minute_visit() -> tuple[str, str]:
        memory = await session_open(
            user_id=user_id, display_name="Tess", session_id=None, retention="1m"
        )
        [turn_id] = await turn_record(memory=memory, query="show me jeans", answer="Here.")
        [fact_id] = await facts_record(memory=memory, facts=["The shopper wears size M."])
        return turn_id, fact_id

    turn_id, fact_id = async_to_sync(one_minute_visit)()
    client = signed_in(shopper)

    by_id = {r["block_id"]: r for r in client.get(RECORDS).json()["records"]}
    turn, fact = by_id[turn_id], by_id[fact_id]
    written = datetime.fromisoformat(turn["ingested_at"])
    assert datetime.fromisoformat(turn["expires_at"]) == (written + timedelta(seconds=60)).replace(
        microsecond=0
    )
    assert fact["expires_at"] is None  # facts are kept whatever the session's retention

    live_memory.advance(61)
    try:
        after = [r["block_id"] for r in client.get(RECORDS).json()["records"]]
    finally:
        live_memory.advance(-61)
    assert after == [fact_id]


def test_delete_reaches_a_record_in_an_ended_session(memory):
    shopper = new_shopper()
    ids = seed_memories(memory, shopper.username)
    memory.get_user(memory_user_of(shopper.username)).get_session("session1").end()

    response = signed_in(shopper).post(delete_url(ids["turn"]))

    assert response.status_code == 200
    assert ids["turn"] not in remaining(memory, shopper.username)


def test_delete_of_another_shoppers_record_is_not_found_and_deletes_nothing(memory):
    owner, intruder = new_shopper(), new_shopper()
    owner_ids = seed_memories(memory, owner.username)
    intruder_ids = seed_memories(memory, intruder.username)
    owner_panel, intruder_panel = PanelListener(owner.pk), PanelListener(intruder.pk)

    response = signed_in(intruder).post(delete_url(owner_ids["fact"]))

    assert response.status_code == 404
    assert owner_panel.received() == [] and intruder_panel.received() == []
    assert remaining(memory, owner.username) == set(owner_ids.values())
    assert remaining(memory, intruder.username) == set(intruder_ids.values())


@pytest.mark.parametrize("block_id", ["no-such-block", "all", "%20"])
def test_delete_of_an_unknown_record_is_not_found(memory, block_id):
    shopper = new_shopper()
    ids = seed_memories(memory, shopper.username)

    response = signed_in(shopper).post(delete_url(block_id))

    assert response.status_code == 404
    assert remaining(memory, shopper.username) == set(ids.values())


def test_delete_for_a_shopper_without_memory_is_not_found(memory):
    response = signed_in(new_shopper()).post(delete_url("b-anything"))
    assert response.status_code == 404


def test_delete_needs_the_csrf_token(memory):
    shopper = new_shopper()
    ids = seed_memories(memory, shopper.username)
    client = signed_in(shopper, enforce_csrf_checks=True)

    refused = client.post(delete_url(ids["fact"]))
    assert refused.status_code == 403
    assert "CSRF" in refused.json()["detail"]
    assert ids["fact"] in remaining(memory, shopper.username)

    client.get("/")  # renders a form, which sets the csrftoken cookie
    token = client.cookies["csrftoken"].value
    accepted = client.post(
        delete_url(ids["fact"]), HTTP_X_CSRFTOKEN=token, HTTP_ORIGIN="http://testserver"
    )
    assert accepted.status_code == 200
    assert ids["fact"] not in remaining(memory, shopper.username)


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_ORIGIN": "http://evil.example"},
        {"HTTP_ORIGIN": "null"},
        {"HTTP_REFERER": "http://evil.example/page"},
        {"HTTP_ORIGIN": "https://testserver"},  # same host, other scheme: another origin
    ],
)
def test_delete_refuses_a_foreign_origin(memory, headers):
    shopper = new_shopper()
    ids = seed_memories(memory, shopper.username)

    response = signed_in(shopper).post(delete_url(ids["fact"]), **headers)

    assert response.status_code == 403
    assert ids["fact"] in remaining(memory, shopper.username)


def test_delete_is_post_only(memory):
    shopper = new_shopper()
    ids = seed_memories(memory, shopper.username)
    response = signed_in(shopper).get(delete_url(ids["fact"]))
    assert response.status_code == 405
    assert ids["fact"] in remaining(memory, shopper.username)


# Every way a client could name a shopper: none of them may choose whose records are read.
OTHER_SHOPPER_PARAMS = ["shopper", "username", "user", "user_id"]
OTHER_SHOPPER_HEADERS = ["HTTP_X_SHOPPER", "HTTP_X_USER", "HTTP_X_USERNAME", "HTTP_REMOTE_USER"]


def _naming(owner: str) -> list[tuple[dict, dict]]:
    """(query parameters, headers) pairs, each naming `owner` one way."""
    return [({param: owner}, {}) for param in OTHER_SHOPPER_PARAMS] + [
        ({}, {header: owner}) for header in OTHER_SHOPPER_HEADERS
    ]


def test_records_are_the_signed_in_shoppers_whoever_the_request_names(memory):
    owner, intruder = new_shopper(), new_shopper()
    owner_ids = seed_memories(memory, owner.username)
    intruder_ids = seed_memories(memory, intruder.username)
    client = signed_in(intruder)
    for params, headers in _naming(owner.username):
        response = client.get(RECORDS, params, **headers)
        assert response.status_code == 200, (params, headers)
        listed = {record["block_id"] for record in response.json()["records"]}
        assert listed == set(intruder_ids.values()), (params, headers)
        assert not listed & set(owner_ids.values())
    for params, headers in _naming(owner.username):
        assert Client().get(RECORDS, params, **headers).status_code == 403


def test_delete_never_reaches_another_shoppers_record_whoever_the_request_names(memory):
    owner, intruder = new_shopper(), new_shopper()
    owner_ids = seed_memories(memory, owner.username)
    intruder_ids = seed_memories(memory, intruder.username)
    client = signed_in(intruder)
    url = delete_url(owner_ids["fact"])
    for params, headers in _naming(owner.username):
        # The name in the query string, a form field, a JSON body or a header.
        attempts = [
            client.post(f"{url}?{urlencode(params)}", **headers),
            client.post(url, params, **headers),
            client.post(url, json.dumps(params), content_type="application/json", **headers),
        ]
        assert [r.status_code for r in attempts] == [404, 404, 404], (params, headers)
    assert remaining(memory, owner.username) == set(owner_ids.values())
    assert remaining(memory, intruder.username) == set(intruder_ids.values())
