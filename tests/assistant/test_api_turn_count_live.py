"""A REST caller that leaves out turn_count: the server bounds what it recalls."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync

from memoryapp.recording import turn_record
from memoryapp.sessions import session_open
from tests.assistant.test_api import csrf_token, signed_in_client
from tests.support.shopper_memory import memory_user_of

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_long_session_without_turn_count_is_recalled_as_window_and_search(live_memory, shopper):
    username = shopper[0]
    turns = 25
    user_id = memory_user_of(username)

    async def stock() -> str:
        memory = await session_open(user_id=user_id, display_name="Tess", session_id=None)
        for i in range(turns):
            await turn_record(memory=memory, query=f"question {i}", answer=f"answer {i}")
        return memory.session_id

    session_id = async_to_sync(stock)()
    client = signed_in_client(username)
    response = client.post(
        "/api/assistant/turns",
        {"text": "question 3", "session_id": session_id},
        content_type="application/json",
        HTTP_X_CSRFTOKEN=csrf_token(client),
    )
    assert response.status_code == 200
    events = response.json()["events"]
    assert events[0]["session_id"] == session_id and not events[0]["created"]
    searched = next(e for e in events if e["type"] == "memory.searched")
    lines = [i["line"] for i in searched["items"] if i["scope"] == "session"]
    assert lines[-3:] == [
        f"[this visit] Shopper: question {i} ‖ Assistant: answer {i}" for i in (22, 23, 24)
    ]
    # The window and the in-session search's hits, never the whole session listed.
    assert len(lines) <= 3 + 10 < turns
    assert any("question 3 " in line or line.endswith("question 3") for line in lines[:-3])
