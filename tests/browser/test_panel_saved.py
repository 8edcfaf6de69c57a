"""What the inspector says a turn saved, and where its time went, its websocket scripted.

A lost write is not a turn with nothing to save: `memory.added.failed` names the writes that
failed, and the inspector says "not saved" for them with the reason, never "none". The
timeline draws the answer's spans and the memory writes that follow it.
"""

from __future__ import annotations

import pytest

from tests.support.browser import MARKS, ScriptedSocket, records_route

pytestmark = MARKS


@pytest.fixture
def server(shop_server):
    return shop_server


SESSION = {
    "type": "session",
    "session_id": "session7",
    "mode": "remembering",
    "shopper": "Ann",
    "session_date": "2026-05-01",
    "retention": "1h",
    "retention_seconds": 3600,
    "created": True,
}
SEARCHED = {"type": "memory.searched", "counts": {}, "failed": [], "duration_ms": 12, "items": []}
SPANS = [
    {"name": "memory.session", "start_ms": 0, "duration_ms": 8},
    {"name": "memory.recall", "start_ms": 8, "duration_ms": 12},
    {"name": "model.round1", "start_ms": 20, "duration_ms": 300},
    {"name": "tool.search_products", "start_ms": 320, "duration_ms": 40},
    {"name": "model.round2", "start_ms": 360, "duration_ms": 240},
]


def done(text: str, turn_id: int) -> dict:
    return {
        "type": "done",
        "text": text,
        "products": [],
        "more": False,
        "turn_id": turn_id,
        "model": "aisle-offline",
        "spans": SPANS,
    }


def added(turn: list[str], fact: list[str], facts: list[str], failed: list[str]) -> dict:
    return {
        "type": "memory.added",
        "block_ids": {"turn": turn, "fact": fact},
        "facts": facts,
        "failed": failed,
        "duration_ms": 400,
    }


def test_failed_writes_read_not_saved_with_the_reason_and_the_timeline_ends_with_them(ui):
    answers = {
        1: [SESSION, SEARCHED, done("Here are two.", 1)],
        2: [SESSION, SEARCHED, done("Noted, size M.", 2)],
    }

    def reply(frame: dict, n: int) -> list[dict] | None:
        if frame["type"] == "message":
            return answers[len(socket.sent("message"))]
        return None

    socket = ScriptedSocket(ui.page, reply)
    records_route(ui.page, [])
    ui.sign_in("Ann")
    ui.open_panel()
    ui.send("show me jeans")
    ui.wait_for_answer(1)
    # The exchange was lost and the judge found nothing: not "Turn block: none".
    socket.emit(added([], [], [], ["turn"]))
    ui.by("inspector-toggle").click()
    saved = ui.by("inspector-saved")
    saved.filter(has_text="not saved").wait_for()
    assert ui.by("saved-turn").inner_text() == "Turn block: not saved — memory unavailable"
    assert ui.by("saved-facts").inner_text() == "Fact blocks: none"

    # The timeline: the answer's spans as the server timed them, then the memory writes,
    # which begin once the answer is done.
    spans = ui.by("timeline-span")
    assert spans.evaluate_all("els => els.map(e => e.dataset.name)") == [
        "memory.session",
        "memory.recall",
        "model.round1",
        "tool.search_products",
        "model.round2",
        "memory.added",
    ]
    assert spans.locator(".span-ms").all_inner_texts() == [
        "8 ms",
        "12 ms",
        "300 ms",
        "40 ms",
        "240 ms",
        "400 ms",
    ]
    bars = spans.locator(".bar")
    # Each bar starts where its span starts, as a share of the whole turn (1,000 ms).
    assert bars.evaluate_all("els => els.map(e => e.style.marginLeft)") == [
        "0%",
        "0.8%",
        "2%",
        "32%",
        "36%",
        "60%",
    ]
    kinds = bars.evaluate_all("els => els.map(e => e.className)")
    assert kinds == [
        "bar bar-memory",
        "bar bar-memory",
        "bar",
        "bar bar-tool",
        "bar",
        "bar bar-memory",
    ]

    # One fact kept, another lost: both said.
    ui.send("I'm a size M, and I hate yellow")
    ui.wait_for_answer(2)
    socket.emit(added(["t2"], ["f1"], ["The shopper wears size M."], ["facts"]))
    ui.by("saved-turn").filter(has_text="t2").wait_for()
    assert ui.by("saved-facts").inner_text() == "Fact blocks: f1; not saved — memory unavailable"
    assert ui.by("saved-fact").all_inner_texts() == ["The shopper wears size M."]
    assert "No new facts" not in ui.by("inspector-saved").inner_text()
    assert ui.by("saved-turn").get_attribute("class") == "saved-ids save-failed"

    # The first turn still says what it lost when it is picked again.
    ui.by("inspector-turn").select_option(index=0)
    assert ui.by("saved-turn").inner_text() == "Turn block: not saved — memory unavailable"
    assert ui.errors == []
