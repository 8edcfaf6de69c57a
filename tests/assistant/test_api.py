"""POST /api/assistant/turns: the same pipeline for API clients."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from assistant.models import ChatSession
from tests.support.fake_openai import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def signed_in_client(username: str) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.get(username=username))
    return client


def csrf_token(client: Client) -> str:
    client.get("/")
    return client.cookies["csrftoken"].value


def test_a_signed_in_turn_needs_the_csrf_token(fake_openai, memory_down):
    client = signed_in_client("ann")
    response = client.post(
        "/api/assistant/turns", {"text": "hello"}, content_type="application/json"
    )
    assert response.status_code == 403
    assert fake_openai.requests == []


def test_a_turn_returns_the_protocol_events_in_order(fake_openai, memory_down):
    fake_openai.script("assistant", Reply(text="Hello Ann, what are you looking for?"))
    client = signed_in_client("ann")
    response = client.post(
        "/api/assistant/turns",
        {"text": "hello", "session_id": None, "turn_count": 0},
        content_type="application/json",
        HTTP_X_CSRFTOKEN=csrf_token(client),
    )
    assert response.status_code == 200
    events = response.json()["events"]
    kinds = [e["type"] for e in events if e["type"] != "token"]
    assert kinds == ["session", "done"]
    assert events[0]["mode"] == "memory_unavailable"
    assert events[-1]["text"] == "Hello Ann, what are you looking for?"


@pytest.mark.parametrize(
    ("body", "status", "fragment"),
    [
        ({"text": ""}, 400, "Type a message"),
        ({"text": "hi", "session_date": "May 1st"}, 422, "YYYY-MM-DD"),
        ({"text": "hi", "turn_count": "two"}, 400, "turn_count"),
        ({"text": "x" * 4001}, 400, "4000"),
    ],
)
def test_bad_input_gets_a_clear_error_and_writes_nothing(
    fake_openai, live_memory, body, status, fragment
):
    client = signed_in_client("ben")
    response = client.post(
        "/api/assistant/turns",
        body,
        content_type="application/json",
        HTTP_X_CSRFTOKEN=csrf_token(client),
    )
    assert response.status_code == status
    assert fragment in response.json()["message"]
    assert fake_openai.requests == [] and not ChatSession.objects.exists()


def test_signed_out_clients_get_the_stateless_assistant(fake_openai):
    fake_openai.script("assistant", Reply(text="Hi there."))
    response = Client().post(
        "/api/assistant/turns", {"text": "hi"}, content_type="application/json"
    )
    assert response.status_code == 200
    assert response.json()["events"][0]["mode"] == "stateless"
