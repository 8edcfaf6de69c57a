"""axe-core's audit of the shop's pages and the open panel, desktop and phone: no violations.

The panel is audited in its fullest state: greeted, an answer with cards and "Show more",
a stopped answer, the confirmation of ✕, the inspector with recalled lines and records
of every kind (expiring, kept, replaced), and the panel once its sign-in ended. Skipped with one line when axe-core is missing
(scripts/ensure-axe installs it).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.support.browser import (
    DESKTOP,
    MARKS,
    PHONE,
    ScriptedSocket,
    catalog_product,
    record,
    records_route,
)

pytestmark = MARKS

SESSION = {
    "type": "session",
    "session_id": "session3",
    "mode": "remembering",
    "shopper": "Ann",
    "session_date": None,
    "retention": "1m",
    "retention_seconds": 60,
    "created": True,
}


@pytest.fixture
def server(shop_server):
    return shop_server


def card(sku: str) -> dict:
    product = catalog_product(sku)
    return {
        "sku": sku,
        "name": product["name"],
        "brand": product["brand"],
        "price_eur": float(product["price"]),
        "colours": [product["colour"], "white"],
        "sizes_in_stock": ["S", "M", "L"],
        "url": product["url"],
        "blurb": "Light enough for summer holidays and the beach.",
    }


def reply(frame: dict, n: int) -> list[dict]:
    if frame["type"] == "hello":
        return [
            {
                "type": "welcome",
                "greeting": "Welcome back, Ann! What can I find for you today?",
                "suggestions": [
                    "Show me jeans in M",
                    "A dress for a wedding",
                    "Sneakers under €80",
                ],
                "mode": "remembering",
            }
        ]
    if frame["type"] == "stop":
        return [{"type": "stopped", "turn_id": 2}]
    if frame["type"] != "message":
        return []
    if frame["text"] == "and shoes?":
        return [SESSION, {"type": "token", "text": "Let me look at **sneakers"}]
    cards = [card(sku) for sku in ("TS-0001", "TS-0002", "JN-0043", "DR-0060")]
    text = "Here are 4 of 9 picks:\n" + "\n".join(f"- **{c['name']}** — a good fit." for c in cards)
    return [
        SESSION,
        {
            "type": "memory.searched",
            "counts": {"fact": 1, "turn": 1},
            "failed": ["episode"],
            "duration_ms": 8,
            "items": [
                {
                    "block_id": "f1",
                    "scope": "fact",
                    "score": 0.9,
                    "line": "The shopper wears **M**.",
                },
                {"block_id": "t1", "scope": "turn", "score": 0.4, "line": "Shopper asked: jeans"},
            ],
        },
        {
            "type": "tool",
            "name": "search_products",
            "arguments": "{}",
            "summary": "4 of 9 products",
            "duration_ms": 5,
            "items": [],
        },
        {
            "type": "done",
            "text": text,
            "products": cards,
            "more": True,
            "turn_id": 1,
            "model": "aisle-offline",
            "spans": [{"name": "model.round1", "start_ms": 9, "duration_ms": 20}],
        },
        {
            "type": "memory.added",
            "block_ids": {"turn": ["t9"], "fact": []},
            "facts": [],
            "duration_ms": 4,
        },
    ]


def assert_clean(ui, where: str) -> None:
    violations = ui.audit()
    assert violations == [], f"{where}: {violations}"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_pages_and_the_open_panel_with_the_inspector_pass_the_audit(ui) -> None:
    now = datetime.now(UTC)
    records_route(
        ui.page,
        [
            record(
                "t9",
                "Shopper: tees\nAssistant: Here are **4** — [see](/products/x/).",
                kind="turn",
                expires_at=(now + timedelta(seconds=55)).isoformat(),
            ),
            record("e1", "A visit about jeans.", kind="episode", expires_at="2027-02-27T10:00:00Z"),
            record("f1", "The shopper wears size M.", category="size", slot="size/clothing"),
            record("f0", "The shopper wears size S.", category="size", superseded=True),
        ],
    )
    socket = ScriptedSocket(ui.page, reply)
    ui.goto("/?category=t-shirts")
    assert_clean(ui, "catalog")
    ui.goto(catalog_product("JN-0043")["url"])
    assert_clean(ui, "product page")
    ui.goto("/signin/")
    assert_clean(ui, "sign-in page")

    ui.sign_in("Ann")
    ui.open_panel()
    ui.by("greeting-text").wait_for()
    assert_clean(ui, "greeted panel")
    ui.ask("show me tees")
    ui.send("and shoes?")
    ui.by("chat-stop").click()
    ui.by("chat-stopped").wait_for()
    ui.by("chat-close").click()
    assert_clean(ui, "panel with answers, a stopped one and the close confirmation")
    ui.by("chat-confirm-cancel").click()
    ui.by("inspector-toggle").click()
    ui.by("inspector-turn").select_option(index=0)
    ui.by("record").first.wait_for()
    assert ui.by("record").count() == 4
    assert_clean(ui, "panel with the inspector")
    # Signed out in another tab: the ended panel, with its way back in.
    socket.emit({"type": "signed_out", "reason": "signed_out"})
    ui.by("chat-ended").wait_for()
    assert ui.focused()["testid"] == "chat-signin"
    assert_clean(ui, "ended panel")
    assert ui.errors == []
