"""Signed out, the panel sends the shopper's older messages back as `said`."""

from __future__ import annotations

import pytest

from tests.support.browser import MARKS, ScriptedSocket

pytestmark = MARKS


@pytest.fixture
def server(shop_server):
    return shop_server


STATELESS = {
    "type": "session",
    "session_id": None,
    "mode": "stateless",
    "shopper": None,
    "session_date": None,
    "retention": None,
    "retention_seconds": None,
    "created": False,
}


def test_messages_older_than_the_history_go_back_as_said(ui) -> None:
    def reply(frame: dict, n: int) -> list[dict]:
        if frame["type"] != "message":
            return []
        answer = {
            "type": "done",
            "text": f"About {frame['text']}.",
            "products": [],
            "more": False,
            "turn_id": None,
            "model": "aisle-offline",
            "spans": [],
        }
        return [STATELESS, answer]

    socket = ScriptedSocket(ui.page, reply)
    ui.goto("/")
    ui.open_panel()
    for text in ("I'm a size S", "hello", "show me jeans", "thanks"):
        ui.ask(text)
    fourth = socket.sent("message")[-1]
    assert "said" not in fourth
    ui.ask("show me t-shirts")
    fifth = socket.sent("message")[-1]
    assert fifth["said"] == ["I'm a size S"]
    assert [h["user"] for h in fifth["history"]] == ["hello", "show me jeans", "thanks"]
