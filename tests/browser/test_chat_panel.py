"""The chat panel in a real browser, its websocket scripted by the test.

A hand-written server speaking docs/protocol.md replaces the websocket inside the page, and
the inspector's record list is served by the test, to pin down how each event and each
record is shown: streaming, Stop, cards and links, modes, the greeting, `memory.changed`,
expiry, focus, the keyboard. The whole stack is tested in test_panel_live.py.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from tests.support.browser import (
    MARKS,
    PHONE,
    ScriptedSocket,
    catalog_product,
    record,
    records_route,
)

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
CARD = {
    "sku": "JN-0041",
    "name": "Fjord & Pine High-Rise Wide Jeans",
    "brand": "Fjord & Pine",
    "category": "jeans",
    "price_eur": 53.0,
    "colours": ["black", "blue"],
    "sizes_in_stock": ["M", "L"],
    "url": "/products/fjord-pine-high-rise-wide-jeans/",
    "blurb": "Sharp enough for a casual Friday at the office.",
}
HOSTILE_CARD = {**CARD, "sku": "JN-9", "name": "<b>Trap</b>", "url": "javascript:alert(1)"}
HOSTILE_TEXT = (
    "Here are **two** picks:\n"
    "- [Wide jeans](/products/fjord-pine-high-rise-wide-jeans/)\n"
    "- [Not shown](/products/some-other-product/) and [staff](/admin/) pages\n"
    "- [Elsewhere](https://evil.example/x) <img src=x onerror=window.pwned=1>\n"
    "Enjoy."
)


def done(text: str, products=(), **fields) -> dict:
    return {
        "type": "done",
        "text": text,
        "products": list(products),
        "more": False,
        "turn_id": 1,
        "model": "aisle-offline",
        "spans": [],
        **fields,
    }


def test_answers_stream_formatted_with_cards_links_and_recall(ui) -> None:
    def reply(frame: dict, n: int) -> list[dict]:
        if frame["type"] != "message":
            return []
        return [
            SESSION,
            {
                "type": "memory.searched",
                "counts": {"fact": 1},
                "failed": ["turn"],
                "duration_ms": 12.5,
                "items": [
                    {
                        "block_id": "b1",
                        "scope": "fact",
                        "score": 0.91,
                        "line": "[fact · stated 2026-05-01] The shopper wears **size M**.",
                    }
                ],
            },
            {
                "type": "tool",
                "name": "recall_memory",
                "arguments": '{"query": "colours"}',
                "summary": "1 line",
                "duration_ms": 4,
                "items": [
                    {
                        "block_id": "b2",
                        "scope": "turn",
                        "score": 0.5,
                        "line": "[earlier visit · 2026-04-02] Shopper asked: no yellow please",
                    }
                ],
            },
            {
                "type": "tool",
                "name": "search_products",
                "arguments": "{}",
                "summary": "2 of 9 products",
                "duration_ms": 9,
                "items": [],
            },
            {"type": "token", "text": "Here are "},
            {"type": "token", "text": "**two** pi"},
        ]

    socket = ScriptedSocket(ui.page, reply)
    ui.sign_in("Ann")
    ui.open_panel()
    ui.by("controls-toggle").click()
    ui.page.fill('[data-testid="control-date"]', "2026-05-01")
    ui.by("control-retention").select_option("1h")
    ui.send("I'm a size M, show me jeans")

    # Streaming: the text is formatted as it arrives, while the turn is still open.
    pending = ui.page.locator("li.chat-msg-assistant.pending .chat-bubble")
    pending.locator("strong", has_text="two").wait_for()
    assert "**" not in pending.inner_text()
    assert pending.get_attribute("aria-busy") == "true"
    assert ui.by("chat-stop").is_visible() and ui.by("chat-send").is_hidden()
    assert ui.by("tool-activity").all_inner_texts() == [
        "Looked through your memory · 1 line",
        "Searched the catalog · 2 of 9 products",
    ]
    # A recall that partly failed says so, in the words of the mode line too.
    assert ui.by("chat-mode").inner_text() == (
        "Remembering you as Ann — part of your memory could not be read this turn"
    )
    (frame,) = socket.sent("message")
    assert frame == {
        "type": "message",
        "text": "I'm a size M, show me jeans",
        "session_id": None,
        "turn_count": 0,
        "session_date": "2026-05-01",
        "retention": "1h",
        "page": {"kind": "catalog", "filters": {}},
    }, "signed in, the browser's copy of the conversation never goes along"

    socket.emit(done(HOSTILE_TEXT, [CARD, HOSTILE_CARD], more=True))
    ui.wait_for_answer(1)
    bubble = ui.answers().last.locator(".chat-bubble")
    assert bubble.locator("strong").inner_text() == "two"
    links = bubble.locator("a")
    assert links.count() == 1, "only the product page of this answer's own card is a link"
    assert links.get_attribute("href") == CARD["url"]
    text = bubble.inner_text()
    for words in ("Not shown", "staff", "Elsewhere", "<img src=x"):
        assert words in text  # the words stay, as text; no target, no markup
    assert ui.page.locator("#chat-panel img").count() == 0
    assert ui.page.evaluate("window.pwned") is None

    cards = ui.by("product-card")
    assert cards.count() == 2
    first = cards.first.inner_text()
    for shown in ("€53.00", "Fjord & Pine", "Sizes M L", CARD["blurb"]):
        assert shown in first
    assert cards.first.locator(".card-swatch").evaluate_all(
        "els => els.map(e => e.textContent)"
    ) == ["black", "blue"]
    art = cards.first.locator("svg.card-art")
    assert art.get_attribute("data-shape") == "trousers"
    assert art.locator("rect").evaluate_all("els => els.map(e => e.getAttribute('class'))") == [
        "art-fill fill-black",
        "art-fill fill-blue",
    ]
    assert cards.first.locator("a").get_attribute("href") == CARD["url"]
    assert cards.nth(1).locator("a").count() == 0
    assert cards.nth(1).inner_text().startswith("<b>Trap</b>")
    assert ui.by("chat-announcer").inner_text().startswith("Assistant: Here are")
    assert ui.by("chat-send").is_visible() and ui.by("chat-stop").is_hidden()

    # The session's own values lock the controls; the exchange counts.
    date = ui.by("control-date")
    assert date.is_disabled() and date.input_value() == "2026-05-01"
    assert ui.by("control-retention").input_value() == "1h"
    assert ui.storage("session_id") == "session7" and ui.storage("turn_count") == 1

    # The inspector lists what the turn recalled, and what recall_memory found, formatted.
    records_route(ui.page, [])
    socket.emit(
        {
            "type": "memory.added",
            "block_ids": {"turn": ["t1"], "fact": ["f1"]},
            "facts": ["The shopper wears size M."],
            "duration_ms": 30,
        }
    )
    ui.by("inspector-toggle").click()
    recalled = ui.by("recalled-item")
    assert recalled.count() == 2
    assert recalled.first.locator("strong").inner_text() == "size M"
    assert "**" not in recalled.first.inner_text()
    assert recalled.nth(1).get_attribute("data-source") == "recall_memory"
    assert "no yellow please" in recalled.nth(1).inner_text()
    assert "earlier visits" in ui.by("recall-failed").inner_text()
    assert ui.by("saved-fact").inner_text() == "The shopper wears size M."

    # More than the cards: one button asks for the next ones.
    ui.by("inspector-toggle").first.click()
    ui.by("show-more").click()
    socket.wait_for("message", 2)
    assert socket.sent("message")[-1]["text"] == "Show me more"
    assert socket.sent("message")[-1]["turn_count"] == 1
    assert ui.by("show-more").count() == 0
    assert ui.errors == []


def test_error_retry_and_ending_a_conversation_asks_first(ui) -> None:
    messages = 0

    def reply(frame: dict, n: int) -> list[dict]:
        nonlocal messages
        if frame["type"] == "close":
            return [{"type": "closed", "session_id": frame["session_id"], "episode_block_id": None}]
        if frame["type"] != "message":
            return []
        messages += 1
        if messages == 1:
            return [
                {"type": "error", "code": 504, "message": "The model timed out.", "retryable": True}
            ]
        return [SESSION, {"type": "token", "text": "Found them."}, done("Found them.")]

    socket = ScriptedSocket(ui.page, reply)
    ui.goto("/")
    ui.open_panel()
    assert ui.focused()["id"] == "chat-input"
    ui.send("black jeans")
    error = ui.by("chat-error")
    error.wait_for()
    assert "The model timed out." in error.inner_text()
    assert ui.answers().count() == 0

    ui.by("chat-retry").click()
    ui.wait_for_answer(1)
    assert ui.by("chat-error").count() == 0
    assert ui.page.locator("li.chat-msg-user").count() == 1  # not asked twice
    assert [f["text"] for f in socket.sent("message")] == ["black jeans", "black jeans"]

    # ✕ with a conversation in progress asks first; keeping it changes nothing.
    ui.by("chat-close").click()
    assert ui.by("chat-confirm").is_visible()
    assert ui.focused()["testid"] == "chat-confirm-cancel"
    ui.page.keyboard.press("Escape")
    assert ui.by("chat-confirm").is_hidden() and ui.page.is_visible("#chat-panel")
    assert ui.focused()["testid"] == "chat-close"
    assert socket.sent("close") == []

    ui.by("chat-close").click()
    ui.by("chat-confirm-close").click()
    ui.page.wait_for_function("() => document.getElementById('chat-panel').hidden")
    assert socket.frames[-1] == {"type": "close", "session_id": "session7"}
    assert ui.focused()["id"] == "chat-launcher"
    assert ui.storage("session_id") is None and ui.storage("conversation") is None
    hellos = len(socket.sent("hello"))
    ui.open_panel()
    assert ui.page.locator("#chat-panel .chat-msg").count() == 0
    assert not ui.by("control-date").is_disabled()
    assert ui.by("control-retention").input_value() == "default"
    socket.wait_for("hello", hellos + 1)  # a new conversation is greeted again

    # With nothing said yet there is nothing to lose: ✕ closes at once.
    ui.by("chat-close").click()
    assert ui.page.is_hidden("#chat-panel")


def test_memory_modes_are_named_and_the_session_survives_an_outage(ui) -> None:
    unavailable = {
        **SESSION,
        "mode": "memory_unavailable",
        "session_date": None,
        "retention": None,
        "created": False,
    }
    memory_off = {**unavailable, "session_id": None, "mode": "memory_off"}
    script = {
        1: [SESSION, done("First.")],
        2: [unavailable, done("Without memory.")],
        3: [{**SESSION, "created": False}, done("Remembering again.")],
        4: [memory_off, done("Memory is off.")],
    }
    messages = 0

    def reply(frame: dict, n: int) -> list[dict]:
        nonlocal messages
        if frame["type"] != "message":
            return []
        messages += 1
        if messages == 5:
            socket.emit(memory_off)
            socket.route.close()  # the connection dies mid-turn
            return []
        return script.get(messages, [memory_off, done("Back again.")])

    socket = ScriptedSocket(ui.page, reply)
    records_route(ui.page, [])
    ui.sign_in("Ann")
    ui.open_panel()
    ui.ask("first")
    ui.ask("second")
    # Memory is down for a turn: the words say so, and the session id stays.
    assert ui.by("chat-mode").inner_text() == (
        "Memory is unavailable right now — answering without it"
    )
    assert ui.storage("session_id") == "session7"
    ui.by("inspector-toggle").click()
    note = ui.by("recall-note").inner_text()
    assert note == "Memory could not be reached: this answer came without it."
    assert "signed out" not in ui.by("inspector").inner_text()
    ui.page.keyboard.press("Escape")

    ui.ask("third")
    third = socket.sent("message")[2]
    assert third["session_id"] == "session7", "the next healthy turn resumes the same session"
    assert third["turn_count"] == 1, "a turn without memory is no exchange of the session"

    ui.ask("fourth")
    assert ui.by("chat-mode").inner_text() == "Memory is switched off — this chat is not remembered"
    assert "Not signed in" not in ui.by("chat-mode").inner_text()

    ui.send("fifth")
    ui.by("chat-error").filter(has_text="Connection to the assistant was lost").wait_for()
    ui.page.wait_for_selector('#chat-panel[data-connected="true"]')
    ui.by("chat-retry").click()
    ui.wait_for_answer(5)
    assert ui.last_answer() == "Back again."
    assert [f["text"] for f in socket.sent("message")][-2:] == ["fifth", "fifth"]
    assert socket.sent("message")[-1]["session_id"] == "session7"
    assert ui.errors == []


def test_stop_history_and_page_context_signed_out(ui) -> None:
    jeans = catalog_product("JN-0043")
    card = {**CARD, "sku": jeans["sku"], "name": jeans["name"], "url": jeans["url"]}

    def reply(frame: dict, n: int) -> list[dict]:
        if frame["type"] == "stop":
            return [{"type": "stopped", "turn_id": None}]
        if frame["type"] != "message":
            return []
        stateless = {**SESSION, "session_id": None, "mode": "stateless", "shopper": None}
        if frame["text"] == "tell me everything":
            return [stateless, {"type": "token", "text": "Well, **first"}]  # stalls
        return [stateless, done(f"About {frame['text']}.", [card])]

    socket = ScriptedSocket(ui.page, reply)
    ui.goto("/?category=jeans&colour=black&max_price=80&q=wide")
    ui.open_panel()
    assert socket.wait_for("hello") == [
        {
            "type": "hello",
            "page": {
                "kind": "catalog",
                "filters": {"q": "wide", "category": "jeans", "colour": "black", "max_price": 80},
            },
        }
    ]
    ui.ask("show me black jeans")
    first = socket.sent("message")[0]
    assert first["history"] == [] and first["page"]["kind"] == "catalog"

    # On a product page the page names the product; the conversation comes along.
    ui.goto(jeans["url"])
    ui.wait_for_panel()
    ui.ask("cheaper please")
    second = socket.sent("message")[1]
    assert second["page"] == {"kind": "product", "sku": "JN-0043"}
    assert second["history"] == [
        {
            "user": "show me black jeans",
            "assistant": "About show me black jeans.",
            "skus": ["JN-0043"],
        }
    ]

    # Stop: the button replaces Send while the turn runs; the answer says Stopped.
    ui.send("tell me everything")
    ui.page.locator("li.chat-msg-assistant.pending strong", has_text="first").wait_for()
    ui.by("chat-stop").click()
    stopped = ui.by("chat-stopped")
    stopped.wait_for()
    assert socket.frames[-1] == {"type": "stop"}
    assert "Well, first" in ui.answers().last.inner_text()
    assert ui.by("chat-send").is_visible() and ui.by("chat-stop").is_hidden()
    assert not ui.by("chat-input").is_disabled()
    assert ui.focused()["id"] == "chat-input", "focus follows the Stop button it replaced"
    assert ui.by("show-more").count() == 0

    # A stopped answer is no exchange: it never goes back as history.
    ui.ask("thanks")
    fourth = socket.sent("message")[-1]
    assert [h["user"] for h in fourth["history"]] == ["show me black jeans", "cheaper please"]
    assert ui.storage("conversation")[-3]["stopped"] is True

    # The conversation, Stopped and all, survives navigation.
    ui.goto("/")
    ui.wait_for_panel()
    assert ui.by("chat-stopped").count() == 1
    assert ui.page.locator("li.chat-msg-user").count() == 4
    assert ui.errors == []


def test_a_returning_shoppers_greeting_and_suggestions(ui) -> None:
    def reply(frame: dict, n: int) -> list[dict]:
        if frame["type"] == "hello":
            return [
                {
                    "type": "welcome",
                    "greeting": "Welcome back, Ann! What can I find for you today?",
                    "suggestions": [
                        "Do you have this in M?",
                        "Show me jeans in M",
                        "A dress for a wedding",
                    ],
                    "mode": "remembering",
                }
            ]
        if frame["type"] == "message":
            return [SESSION, done("Yes, in M.", [CARD])]
        return []

    socket = ScriptedSocket(ui.page, reply)
    ui.sign_in("Ann")
    ui.goto(catalog_product("TS-0002")["url"])
    ui.open_panel()
    greeting = ui.by("greeting-text")
    greeting.wait_for()
    assert greeting.inner_text() == "Welcome back, Ann! What can I find for you today?"
    assert socket.sent("hello") == [
        {"type": "hello", "page": {"kind": "product", "sku": "TS-0002"}}
    ]
    assert ui.by("suggestion").all_inner_texts() == [
        "Do you have this in M?",
        "Show me jeans in M",
        "A dress for a wedding",
    ]
    ui.by("suggestion").first.click()
    ui.wait_for_answer(1)
    assert socket.sent("message")[0]["text"] == "Do you have this in M?"
    assert ui.by("suggestion").count() == 0, "the suggestions go once the conversation starts"
    assert ui.by("greeting-text").is_visible()
    assert ui.focused()["id"] == "chat-input"

    # The greeting stays with the conversation; no second hello once it has started.
    ui.goto("/")
    ui.wait_for_panel()
    assert ui.by("greeting-text").is_visible() and ui.by("suggestion").count() == 0
    assert len(socket.sent("hello")) == 1


def test_memory_changed_elsewhere_forgets_the_session_and_refreshes_records(ui) -> None:
    socket = ScriptedSocket(
        ui.page,
        lambda frame, n: (
            [
                SESSION,
                {
                    "type": "memory.searched",
                    "counts": {"fact": 1},
                    "failed": [],
                    "duration_ms": 3,
                    "items": [
                        {"block_id": "f1", "scope": "fact", "score": 0.9, "line": "Wears M."}
                    ],
                },
                done("Noted."),
            ]
            if frame["type"] == "message"
            else []
        ),
    )
    records = [record("f1", "The shopper wears size M.")]
    records_route(ui.page, records)
    ui.sign_in("Ann")
    ui.open_panel()
    ui.ask("I'm a size M")
    ui.by("inspector-toggle").click()
    ui.by("record").wait_for()

    # Another tab erased the shopper's memory.
    records.clear()
    with ui.page.expect_response(lambda r: "/api/memory/records" in r.url):
        socket.emit(
            {
                "type": "memory.changed",
                "reason": "erased",
                "session_ids": ["session7"],
                "block_id": None,
            }
        )
    ui.by("record").wait_for(state="detached")
    assert ui.by("records-status").inner_text() == "Nothing remembered yet."
    assert ui.by("recalled-item").inner_text().count("(deleted)") == 1
    assert "Wears M." not in ui.by("inspector").inner_text()
    assert "next message starts a new conversation" in ui.by("chat-note").inner_text()
    assert ui.storage("session_id") is None
    assert not ui.by("control-date").is_disabled(), "the next session takes the controls again"
    ui.page.keyboard.press("Escape")
    ui.send("hello again")
    last = socket.wait_for("message", 2)[-1]
    assert last["session_id"] is None and last["turn_count"] == 0


def test_a_panel_left_open_for_days_still_drops_a_record_whose_time_came(ui) -> None:
    now = datetime(2026, 5, 1, 12, 0, 0, tzinfo=UTC)
    ui.page.clock.install(time=now)
    records = [
        record(
            "t1",
            "Shopper: jeans?\nAssistant: Try the **Wide Jeans**.",
            kind="turn",
            expires_at=(now + timedelta(days=2)).isoformat(),
        ),
        record("f4", "The shopper dislikes yellow.", category="colour"),
    ]
    records_route(ui.page, records)
    ui.sign_in("Ann")
    ui.open_panel()
    ui.by("inspector-toggle").click()
    turn = ui.page.locator('[data-testid="record"][data-block-id="t1"]')
    turn.wait_for()
    assert turn.get_by_test_id("record-expiry").inner_text() == "kept until 2026-05-03"

    # Nothing reloads the list; the laptop sleeps a day and a half, then two days.
    ui.page.clock.fast_forward("36:00:00")
    turn.get_by_test_id("record-expiry").filter(has_text="expires in 12 h").wait_for()
    ui.page.clock.fast_forward("13:00:00")
    turn.wait_for(state="detached")
    assert ui.by("record").count() == 1


def test_records_show_expiry_history_and_markdown_and_keep_focus_on_delete(ui) -> None:
    now = datetime(2026, 5, 1, 12, 0, 0, tzinfo=UTC)
    ui.page.clock.set_fixed_time(now)
    records = [
        record(
            "t1",
            "Shopper: jeans?\nAssistant: Try the **Wide Jeans** — [see them](/products/x/).",
            kind="turn",
            expires_at=(now + timedelta(seconds=52)).isoformat(),
        ),
        record(
            "f2",
            "The shopper wears size M.",
            category="size",
            slot="size/clothing",
            expires_at="2027-02-27T12:00:00+00:00",
        ),
        record("f3", "The shopper wears size S.", category="size", superseded=True),
        record("f4", "The shopper dislikes yellow.", category="colour"),
    ]
    deleted = records_route(ui.page, records)
    ui.page.on("dialog", lambda dialog: dialog.accept())
    ui.sign_in("Ann")
    ui.open_panel()
    ui.by("inspector-toggle").click()
    ui.by("record").first.wait_for()

    expiry = {
        r.get_attribute("data-block-id"): r.get_by_test_id("record-expiry").inner_text()
        for r in ui.by("record").all()
    }
    assert expiry == {
        "t1": "expires in 52 s",
        "f2": "kept until 2027-02-27",
        "f3": "kept",
        "f4": "kept",
    }
    turn = ui.page.locator('[data-testid="record"][data-block-id="t1"]')
    assert turn.locator("strong").inner_text() == "Wide Jeans"
    assert "**" not in turn.inner_text() and turn.locator("a").count() == 0
    history = ui.page.locator('[data-testid="record"][data-block-id="f3"]')
    assert history.get_attribute("data-superseded") == "true"
    assert "replaced fact" in history.inner_text() and "never recalled" in history.inner_text()
    assert "size · clothing" in ui.page.locator('[data-block-id="f2"]').inner_text()

    # A one-minute record counts down, then leaves the list.
    ui.page.clock.set_fixed_time(now + timedelta(seconds=40))
    turn.get_by_test_id("record-expiry").filter(has_text="expires in 12 s").wait_for()
    ui.page.clock.set_fixed_time(now + timedelta(seconds=53))
    turn.wait_for(state="detached")
    assert ui.by("records-range").inner_text() == "1\u20133 of 3"

    # Deleting from the keyboard leaves focus on the next record, then on the list.
    ui.page.locator('[data-block-id="f2"] [data-testid="record-delete"]').focus()
    ui.page.keyboard.press("Enter")
    ui.page.locator('[data-testid="record"][data-block-id="f2"]').wait_for(state="detached")
    ui.page.wait_for_function("() => document.activeElement.dataset.blockId === 'f3'")
    ui.page.keyboard.press("Tab")
    assert ui.focused()["testid"] == "record-delete"
    ui.page.keyboard.press("Enter")
    ui.page.wait_for_function("() => document.activeElement.dataset.blockId === 'f4'")
    ui.page.keyboard.press("Tab")
    ui.page.keyboard.press("Enter")
    ui.by("record").wait_for(state="detached")
    ui.page.wait_for_function("() => document.activeElement.dataset.testid === 'records-list'")
    assert deleted == ["f2", "f3", "f4"]
    assert ui.by("records-status").inner_text() == "Record deleted. Nothing remembered yet."


def test_keyboard_only_from_page_load_to_a_sent_message(ui) -> None:
    socket = ScriptedSocket(
        ui.page,
        lambda frame, n: [SESSION, done("Here you go.")] if frame["type"] == "message" else [],
    )
    ui.goto("/")
    # The assistant is two Tab presses from the top of the page.
    ui.page.keyboard.press("Tab")
    ui.page.keyboard.press("Tab")
    assert ui.focused()["testid"] == "skip-to-chat"
    assert "Alt+Shift+A" in ui.focused()["text"]
    ui.page.keyboard.press("Enter")
    ui.wait_for_panel()
    assert ui.focused()["id"] == "chat-input"

    # The input grows with its text up to five lines, then scrolls.
    heights = []
    for line in range(7):
        if line:
            ui.page.keyboard.press("Shift+Enter")
        ui.page.keyboard.type(f"line {line + 1}")
        heights.append(ui.by("chat-input").evaluate("e => e.getBoundingClientRect().height"))
    assert heights[0] < heights[1] < heights[2] < heights[3] < heights[4]
    assert heights[4] == heights[5] == heights[6]
    assert socket.sent("message") == []
    ui.page.keyboard.press("Enter")
    ui.wait_for_answer(1)
    assert socket.sent("message")[0]["text"] == "\n".join(f"line {n}" for n in range(1, 8))
    assert ui.by("chat-input").evaluate("e => e.getBoundingClientRect().height") == heights[0]

    # Escape hides the panel and gives focus back; the shortcut brings it back.
    ui.page.keyboard.press("Escape")
    assert ui.page.is_hidden("#chat-panel")
    assert ui.focused()["id"] == "chat-launcher"
    ui.page.keyboard.press("Tab")
    ui.page.keyboard.press("Alt+Shift+A")
    ui.wait_for_panel()
    assert ui.focused()["id"] == "chat-input"
    assert "Alt+Shift+A" in ui.by("chat-launcher").get_attribute("aria-keyshortcuts")


@pytest.mark.parametrize("viewport", [PHONE], ids=["phone"])
def test_phone_card_tap_shows_the_product_and_keeps_the_conversation(ui) -> None:
    product = catalog_product("JN-0043")
    card = {**CARD, "sku": product["sku"], "name": product["name"], "url": product["url"]}
    ScriptedSocket(
        ui.page,
        lambda frame, n: [SESSION, done("One pair.", [card])] if frame["type"] == "message" else [],
    )
    ui.goto("/")
    ui.open_panel()
    ui.ask("black jeans")
    assert ui.page.evaluate("innerWidth") == PHONE["width"]
    # Full screen: the panel covers the page.
    box = ui.page.locator("#chat-panel").bounding_box()
    assert box["width"] == PHONE["width"] and box["height"] == PHONE["height"]

    ui.by("product-card").first.tap()
    ui.page.wait_for_url(ui.url(product["url"]))
    ui.page.wait_for_selector('#chat-panel[data-ready="true"]', state="attached")
    assert ui.page.is_hidden("#chat-panel")
    assert ui.page.locator("h1", has_text=product["name"]).is_visible()
    assert ui.by("chat-launcher").is_visible()

    ui.by("chat-launcher").tap()
    ui.wait_for_panel()
    assert ui.page.locator("li.chat-msg-user").inner_text() == "black jeans"
    assert ui.by("product-card").count() == 1
    assert json.loads(ui.page.evaluate("sessionStorage.getItem('aisle.chat.open')")) is True


@pytest.mark.parametrize("viewport", [PHONE], ids=["phone"])
def test_on_a_phone_the_launcher_never_covers_the_end_of_a_page(ui) -> None:
    product = catalog_product("JN-0043")
    ui.goto(product["url"])
    ui.page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    launcher = ui.by("chat-launcher").bounding_box()
    for selector in ("table.variants tbody tr:last-child", "footer.site-footer"):
        row = ui.page.locator(selector).bounding_box()
        assert row["y"] + row["height"] <= launcher["y"], selector


def test_a_session_started_without_a_date_shows_today_once_locked(ui) -> None:
    def reply(frame: dict, n: int) -> list[dict]:
        if frame["type"] != "message":
            return []
        return [{**SESSION, "session_date": None}, done("Hello.")]

    ScriptedSocket(ui.page, reply)
    ui.sign_in("Ann")
    ui.open_panel()
    ui.by("controls-toggle").click()
    ui.ask("hello")
    date = ui.by("control-date")
    assert date.is_disabled()
    # The browser's own today: the field holds what the session runs on, never nothing.
    today = ui.page.evaluate(
        "() => { const d = new Date(); return [d.getFullYear(),"
        " String(d.getMonth() + 1).padStart(2, '0'), String(d.getDate()).padStart(2, '0')].join('-'); }"
    )
    assert date.input_value() == today
    assert "dated today" in ui.by("controls-note").inner_text()
