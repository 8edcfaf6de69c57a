"""The panel on the whole stack: daphne, the consumer, the offline model, the memory server.

One server pair serves the module; each test signs in a shopper of its own name, so no test
meets another's memory.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest

from tests.support.browser import MARKS, PHONE, catalog_product

pytestmark = MARKS


@pytest.fixture
def server(memory_live_server):
    return memory_live_server


def consistent(ui) -> list[dict]:
    """The last answer names in bold exactly the products on its cards; returns the cards."""
    cards = ui.cards()
    assert len(cards) <= 4
    assert ui.bold_names() == [card["name"] for card in cards], ui.last_answer()
    return cards


def sizes_said(text: str) -> set[str]:
    said = re.search(r"sizes ((?:[A-Z0-9]+, )*[A-Z0-9]+(?: and [A-Z0-9]+)?)", text)
    return set(re.findall(r"\b[A-Z]{1,3}\b|\b\d{2}\b", said.group(1))) if said else set()


def test_a_return_visit_greets_answers_memory_questions_and_shows_expiry(ui) -> None:
    ui.page.on("dialog", lambda dialog: dialog.accept())
    # The page's clock is faked from the start (it runs in step with the real one): faked
    # only later, the page reads the time as 1970 for a moment in between, and the records'
    # timer, finding nothing due within a day, stops.
    ui.page.clock.install()
    name = ui.sign_in_new("kim")
    ui.open_panel()
    greeting = ui.by("greeting-text")
    greeting.wait_for()
    assert greeting.inner_text().startswith(f"Hi {name}!")
    assert ui.by("suggestion").count() == 3
    assert ui.by("chat-mode").inner_text() == f"Remembering you as {name}"

    # The first visit: a one-minute retention, and two facts stated.
    ui.by("controls-toggle").click()
    ui.by("control-retention").select_option("1m")
    ui.ask("I'm a size M and I hate yellow, show me jeans")
    assert ui.by("product-card").count() > 0
    ui.by("inspector-toggle").click()
    ui.by("saved-fact").first.wait_for()
    saved = " ".join(ui.by("saved-fact").all_inner_texts()).lower()
    assert "size m" in saved and "yellow" in saved
    turn = ui.page.locator('[data-testid="record"][data-kind="turn"]')
    turn.first.wait_for()
    assert re.fullmatch(
        r"expires in \d+ s", turn.first.get_by_test_id("record-expiry").inner_text()
    )
    facts = ui.page.locator('[data-testid="record"][data-kind="fact"]')
    assert set(facts.get_by_test_id("record-expiry").all_inner_texts()) == {"kept"}

    # Ending the visit asks first.
    ui.by("chat-close").click()
    ui.by("chat-confirm-close").click()
    ui.page.wait_for_function("() => document.getElementById('chat-panel').hidden")

    # The return visit: greeted back, with suggestions from what was said.
    ui.open_panel()
    greeting.wait_for()
    assert greeting.inner_text().startswith(f"Welcome back, {name}!")
    suggestions = ui.by("suggestion").all_inner_texts()
    assert len(suggestions) == 3 and any(" M" in s for s in suggestions), suggestions
    answer = ui.ask("what size am I?")
    assert re.search(r"\bM\b", answer), answer
    assert "I can only help with shopping" not in answer
    ui.by("inspector-toggle").click()
    recalled = ui.page.locator('[data-testid="recalled-item"][data-scope="fact"]')
    recalled.first.wait_for()
    assert "size M" in " ".join(recalled.all_inner_texts())

    # This visit keeps its turns for the default 90 days; the first visit's go after a minute.
    kept = ui.by("record-expiry").filter(has_text=re.compile(r"^kept until \d{4}-\d{2}-\d{2}$"))
    kept.first.wait_for()
    until = datetime.strptime(kept.first.inner_text().removeprefix("kept until "), "%Y-%m-%d")
    assert 89 <= (until - datetime.now()).days + 1 <= 91
    counting = ui.by("record-expiry").filter(has_text=re.compile(r"^expires in \d+ s$"))
    assert counting.count() == 2, "the first visit's turn and summary, kept for a minute"
    assert ui.page.locator('[data-testid="record"][data-kind="episode"]').count() == 1
    ui.page.clock.set_fixed_time(datetime.now() + timedelta(seconds=61))
    counting.first.wait_for(state="detached")
    records = ui.page.locator('[data-testid="record"]')
    listed = [
        (r.get_attribute("data-kind"), r.inner_text().replace("\n", " ")[:80])
        for r in records.all()
    ]
    assert counting.count() == 0 and kept.count() == 1, listed
    assert ui.page.locator('[data-testid="record"][data-kind="episode"]').count() == 0
    assert set(facts.get_by_test_id("record-expiry").all_inner_texts()) == {"kept"}

    # Deleting a record goes through the real API (CSRF, origin) and takes it out of memory.
    yellow = facts.filter(has_text="yellow")
    doomed = yellow.first.get_attribute("data-block-id")
    with ui.page.expect_response(re.compile(r"/delete$")) as deleted:
        yellow.first.get_by_test_id("record-delete").click()
    assert deleted.value.status == 200
    ui.page.locator(f'[data-testid="record"][data-block-id="{doomed}"]').wait_for(state="detached")
    recalled_line = ui.page.locator(f'[data-testid="recalled-item"][data-block-id="{doomed}"]')
    assert recalled_line.inner_text().endswith("(deleted)")
    assert doomed not in {record["block_id"] for record in ui.records()}
    assert ui.errors == []


def test_on_a_product_page_this_means_that_product(ui) -> None:
    product = catalog_product("TS-0002")
    ui.goto(product["url"])
    ui.open_panel()
    first = ui.by("suggestion").first
    first.wait_for()
    assert first.inner_text() == "Which sizes does this come in?"  # about this page's product
    answer = ui.ask("do you have this in M?")
    assert answer.startswith(f"Yes, the {product['name']} is in stock in size M"), answer
    (card,) = consistent(ui)
    assert card["sku"] == "TS-0002" and "M" in card["sizes"]
    assert card["href"] == product["url"]
    assert ui.by("tool-activity").all_inner_texts() == [f"Checked the product · {product['name']}"]


def test_a_follow_up_chain_keeps_text_and_cards_together(ui) -> None:
    ui.sign_in_new("lee")
    ui.open_panel()
    listed = ui.ask("show me t-shirts under 24")
    assert listed.startswith("Here are 4 of 10 t-shirts under €24")
    first = consistent(ui)
    assert len(first) == 4
    assert ui.by("tool-activity").last.inner_text().endswith("4 of 10 products")

    shown = {card["sku"] for card in first}
    for _ in range(2):
        ui.by("show-more").click()
        ui.wait_for_answer(len(shown) // 4 + 1)
        more = consistent(ui)
        assert not shown & {card["sku"] for card in more}
        shown |= {card["sku"] for card in more}
    assert ui.by("show-more").count() == 0, "all 10 are shown: nothing more to ask for"

    black = ui.ask("the black one")
    (card,) = consistent(ui)
    assert card["colours"] == ["black"] and black.startswith(f"The {card['name']} is the black one")
    assert sizes_said(black) == set(card["sizes"])

    in_m = ui.ask("in M?")
    (card_m,) = consistent(ui)
    assert card_m == card, "the card must not contradict the one shown a moment earlier"
    assert "isn't in stock in size M" in in_m and sizes_said(in_m) == set(card_m["sizes"])

    ui.ask("cheaper")
    cheaper = consistent(ui)
    assert cheaper
    for found in cheaper:
        assert found["price"] < card["price"] and found["colours"] == ["black"]
        assert "M" in found["sizes"]
    assert ui.errors == []


@pytest.mark.parametrize("viewport", [PHONE], ids=["phone"])
def test_signed_out_follow_ups_and_a_card_tap_on_a_phone(ui) -> None:
    ui.goto("/")
    ui.open_panel()
    assert ui.by("chat-mode").inner_text() == "Not signed in — this chat is not remembered"
    ui.ask("show me black jeans")
    jeans = consistent(ui)
    assert jeans and all("black" in card["colours"] for card in jeans)
    cheapest = min(card["price"] for card in jeans)

    # The follow-up is read against the answer before: black jeans, under its cheapest.
    cheaper = ui.ask("cheaper please")
    assert "Which product do you mean?" not in cheaper
    # Cheaper than the cheapest shown, said with its price (never a limit a cent below it).
    assert "black jeans" in cheaper and f"€{cheapest:.2f}" in cheaper, cheaper
    assert f"€{cheapest - 0.01:.2f}" not in cheaper, cheaper
    for card in consistent(ui):
        assert card["price"] < cheapest and "black" in card["colours"], card

    # On a phone the panel covers the page: a tapped card shows its product.
    target = jeans[0]
    ui.by("product-card").filter(has_text=target["name"]).first.tap()
    ui.page.wait_for_url(ui.url(target["href"]))
    assert ui.page.is_hidden("#chat-panel") and ui.by("chat-launcher").is_visible()
    assert ui.page.locator("h1").inner_text() == target["name"]
    ui.by("chat-launcher").tap()
    ui.wait_for_panel()
    assert ui.page.locator("li.chat-msg-user").all_inner_texts() == [
        "show me black jeans",
        "cheaper please",
    ]
    assert ui.errors == []


def test_keyboard_only_from_page_load_to_an_answer(ui) -> None:
    ui.goto("/")
    ui.page.keyboard.press("Tab")
    ui.page.keyboard.press("Tab")
    assert ui.focused()["testid"] == "skip-to-chat"
    ui.page.keyboard.press("Enter")
    ui.wait_for_panel()
    assert ui.focused()["id"] == "chat-input"
    ui.page.keyboard.type("show me sandals")
    ui.page.keyboard.press("Enter")
    ui.wait_for_answer(1)
    assert "sandals" in ui.last_answer().lower()
    assert ui.focused()["id"] == "chat-input"
    # Back from the input, the keyboard reaches the answer's cards.
    ui.page.keyboard.press("Shift+Tab")
    assert ui.page.evaluate("Boolean(document.activeElement.closest('.chat-log'))")


def test_a_malformed_date_is_refused_and_nothing_starts(ui) -> None:
    ui.goto("/")
    ui.open_panel()
    # A browser without a date picker sends whatever was typed; the server decides.
    ui.by("controls-toggle").click()
    ui.page.eval_on_selector(
        '[data-testid="control-date"]', "el => { el.type = 'text'; el.value = '2026-13-45'; }"
    )
    ui.send("show me jeans")
    error = ui.by("chat-error")
    error.wait_for()
    assert "date" in error.inner_text().lower()
    assert not ui.by("control-date").is_disabled()  # no session was started
    assert ui.by("chat-send").is_visible()

    ui.page.eval_on_selector('[data-testid="control-date"]', "el => { el.value = ''; }")
    ui.by("chat-retry").click()
    ui.wait_for_answer(1)
    assert ui.by("chat-mode").inner_text() == "Not signed in — this chat is not remembered"
    assert ui.storage("session_id") is None
