"""POST /api/assistant/turns: the same pipeline for API clients."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from assistant.models import ChatSession
from harness.fake_openai import Reply
from tests.support.shopper_memory import memory_user_of

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


def _price_filter(number: str) -> str:
    """A turn whose catalog page filter's max_price is `number`, written as it is."""
    filters = '{"max_price": ' + number + "}"
    return '{"text": "hi", "page": {"kind": "catalog", "filters": ' + filters + "}}"


def _post(client: Client, body, **extra):
    return client.post(
        "/api/assistant/turns",
        body if isinstance(body, str | bytes) else json.dumps(body),
        content_type=extra.pop("content_type", "application/json"),
        **extra,
    )


@pytest.mark.parametrize(
    ("body", "status", "fragment"),
    [
        ({"text": "hi", "retention": ["1h"]}, 400, "retention"),
        ({"text": "hi", "retention": {"preset": "1h"}}, 400, "retention"),
        ({"text": "hi", "session_id": 7}, 400, "session_id"),
        ({"text": "hi", "session_date": ["2026-05-01"]}, 400, "session_date"),
        ({"text": "hi", "page": {"kind": "product", "sku": None}}, 400, "page.sku"),
        ({"text": "hi", "history": [{"user": "u"}]}, 400, "assistant"),
        ({"text": "\x00\udc00"}, 400, "Type a message"),
        ('{"text": ' + "[" * 5000 + "]" * 5000 + "}", 400, "JSON"),
        ('{"text": "hi"', 400, "JSON"),
        (b'{"text": "\xff"}', 400, "JSON"),
        ("[1, 2]", 400, "JSON object"),
        ("null", 400, "JSON object"),
        # Numbers no float holds: refused by the one number rule, never a 500.
        (_price_filter("9" * 400), 400, "max_price must be a number from 0 to 1,000,000"),
        (_price_filter("9" * 4000), 400, "max_price must be a number from 0 to 1,000,000"),
        (_price_filter("-1e400"), 400, "max_price"),
        (_price_filter("NaN"), 400, ""),
        ('{"text": "hi", "turn_count": ' + "9" * 400 + "}", 400, "turn_count must be a whole"),
        ('{"text": "hi", "turn_count": 1e400}', 400, "turn_count"),
    ],
)
def test_odd_input_is_a_json_400_never_a_debug_page(fake_openai, settings, body, status, fragment):
    settings.DEBUG = True  # the development default: a 500 would be Django's debug page
    response = _post(Client(), body)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    payload = response.json()
    assert fragment in (payload.get("message") or payload.get("detail") or "")
    assert fake_openai.requests == []


def test_form_encoded_bodies_are_refused(fake_openai):
    response = Client().post("/api/assistant/turns", {"text": "hi"})
    assert response.status_code == 415 and fake_openai.requests == []


def test_page_and_history_reach_the_model(fake_openai):
    fake_openai.script("assistant", Reply(text="Cheaper ones coming up."))
    response = _post(
        Client(),
        {
            "text": "cheaper please",
            "page": {"kind": "product", "sku": "JN-0043"},
            "history": [{"user": "black jeans?", "assistant": "Two.", "skus": ["JN-0049"]}],
        },
    )
    assert response.status_code == 200
    sent = json.dumps(fake_openai.requests[0]["messages"])
    assert "page-context" in sent and "JN-0043" in sent
    assert "Shopper: black jeans?" in sent and "JN-0049" in sent
    done = response.json()["events"][-1]
    assert done["type"] == "done" and done["turn_id"] is None and done["more"] is False


def test_an_unexpected_failure_is_a_json_500(fake_openai, settings, monkeypatch):
    from assistant.turn import pipeline

    async def broken():
        raise RuntimeError("boom")

    monkeypatch.setattr(pipeline, "_vocabulary", broken)
    settings.DEBUG = True
    response = _post(Client(), {"text": "hi"})
    assert response.status_code == 500 and response["Content-Type"] == "application/json"
    assert response.json() == {
        "code": 500,
        "message": "Something went wrong on our side. Please try again.",
    }


def test_a_malformed_session_id_gets_a_new_session(fake_openai, live_memory, shopper):
    client = signed_in_client(shopper[0])
    response = _post(
        client,
        {"text": "hello", "session_id": "../ben\n"},
        HTTP_X_CSRFTOKEN=csrf_token(client),
    )
    assert response.status_code == 200
    session = response.json()["events"][0]
    assert session["mode"] == "remembering" and session["created"]
    assert session["session_id"].startswith("session")


def test_model_text_that_cannot_be_encoded_is_cleaned(fake_openai):
    fake_openai.script("assistant", Reply(text="Hi\ud800 there\x00, welcome."))
    response = _post(Client(), {"text": "hello"})
    assert response.status_code == 200
    events = response.json()["events"]
    assert events[-1]["text"] == "Hi there, welcome."
    assert "".join(e["text"] for e in events if e["type"] == "token") == "Hi there, welcome."


@pytest.mark.parametrize("session_date", ["20260501", "2026-W18-5", "2026-5-1"])
def test_a_date_not_written_yyyy_mm_dd_is_422_and_writes_nothing(
    fake_openai, live_memory, session_date
):
    import uuid

    from agentmemory.exceptions import NotFoundError

    from memoryapp.clients import memory_client_sync
    from shop.services import shopper_get_or_create

    # A name of its own per date: a memory user left by another case would hide nothing.
    username = f"dated-{uuid.uuid4().hex[:12]}"
    shopper_get_or_create(username=username, display_name="Dee")
    client = signed_in_client(username)
    response = _post(
        client,
        {"text": "hello", "session_date": session_date},
        HTTP_X_CSRFTOKEN=csrf_token(client),
    )
    assert response.status_code == 422 and "YYYY-MM-DD" in response.json()["message"]
    assert fake_openai.requests == [] and not ChatSession.objects.exists()
    with memory_client_sync() as memory, pytest.raises(NotFoundError):
        memory.get_user(memory_user_of(username))


@pytest.mark.parametrize("max_price", ["NaN", "Infinity", "9" * 400])
def test_a_model_asking_for_a_price_no_float_holds_gets_invalid_arguments_and_the_turn_ends(
    fake_openai, memory_down, max_price
):
    fake_openai.script(
        "assistant",
        Reply(
            tool_calls=[("search_products", '{"query": "jeans", "max_price": ' + max_price + "}")]
        ),
        Reply(text="Which budget did you have in mind?"),
    )
    response = _post(Client(), {"text": "jeans please"})
    assert response.status_code == 200
    events = response.json()["events"]
    tool = next(e for e in events if e["type"] == "tool")
    assert tool["name"] == "search_products" and tool["summary"] == "invalid arguments"
    assert events[-1]["type"] == "done"
    assert events[-1]["text"] == "Which budget did you have in mind?"
    # What the model was told is the refusal, so it can ask again or answer without it.
    told = json.dumps(fake_openai.requests[-1]["messages"])
    assert "max_price must be a number from 0 to 1,000,000" in told
