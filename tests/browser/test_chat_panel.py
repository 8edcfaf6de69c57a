"""The chat panel in a real browser: Debian's chromium driven by Playwright.

Two kinds of test. The scripted ones replace the websocket inside the page with a
hand-written server speaking docs/protocol.md, to pin down how each event is shown
(streaming, tools, cards, errors, safe rendering). The live ones run the whole stack:
daphne with the real consumer, the offline model and the embedded memory server.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.test import override_settings

from shop.services import catalog_seed, shoppers_seed
from tests.support.agentmemory_server import start_agentmemory_server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
TIMEOUT_MS = 20_000

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian's chromium is not installed (apt-get install -y chromium)",
    ),
]


class BrowserTestCase(ChannelsLiveServerTestCase):
    """A fresh browser per test: sync Playwright must not outlive the test, or the
    database flush that follows it runs inside Playwright's event loop and fails."""

    viewport = {"width": 1280, "height": 860}

    def setUp(self) -> None:
        super().setUp()
        # The live server flushes the database after every test; put the shop back.
        catalog_seed()
        shoppers_seed()
        from playwright.sync_api import sync_playwright

        self._playwright = sync_playwright().start()
        self.browser = self._playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        self.context = self.browser.new_context(viewport=self.viewport)
        self.context.set_default_timeout(TIMEOUT_MS)
        self.page = self.context.new_page()
        self.page_errors: list[str] = []
        self.page.on("pageerror", lambda error: self.page_errors.append(str(error)))

    def tearDown(self) -> None:
        self.context.close()
        self.browser.close()
        self._playwright.stop()
        super().tearDown()

    @contextlib.contextmanager
    def screenshot_on_failure(self) -> Iterator[None]:
        try:
            yield
        except BaseException:
            ARTIFACTS.mkdir(exist_ok=True)
            with contextlib.suppress(Exception):
                self.page.screenshot(path=str(ARTIFACTS / f"{self._testMethodName}.png"))
            raise

    # --- helpers -------------------------------------------------------------------------
    def url(self, path: str) -> str:
        return f"{self.live_server_url}{path}"

    def by(self, testid: str):
        return self.page.get_by_test_id(testid)

    def sign_in(self, name: str) -> None:
        self.page.goto(self.url("/signin/"))
        self.page.locator("button.shopper", has_text=name).click()
        self.page.wait_for_url(self.url("/"))

    def open_panel(self) -> None:
        self.by("chat-launcher").click()
        self.page.wait_for_selector('#chat-panel[data-ready="true"]:not([hidden])')

    def send(self, text: str) -> None:
        self.by("chat-input").fill(text)
        self.by("chat-input").press("Enter")

    def wait_for_answer(self, n: int) -> None:
        """Wait until n answers are complete (the pending bubble loses its class on done)."""
        self.page.wait_for_function(
            "n => document.querySelectorAll('li.chat-msg-assistant:not(.pending)').length >= n",
            arg=n,
        )

    def last_answer(self) -> str:
        return self.page.locator("li.chat-msg-assistant .chat-bubble").last.inner_text()

    def cards(self) -> list[dict]:
        return self.page.eval_on_selector_all(
            '[data-testid="product-card"]',
            "els => els.map(e => ({sizes: e.dataset.sizes.split(' '),"
            " colours: e.dataset.colours.split(' '), href: e.querySelector('a')?.getAttribute('href')}))",
        )

    def storage(self, key: str):
        raw = self.page.evaluate("k => sessionStorage.getItem('aisle.chat.' + k)", key)
        return None if raw is None else json.loads(raw)


class ScriptedSocket:
    """Stands in for the assistant's websocket inside the page, speaking docs/protocol.md."""

    def __init__(self, page, reply) -> None:
        self.frames: list[dict] = []
        self.route = None
        self._reply = reply
        page.route_web_socket(re.compile(r".*/ws/assistant/$"), self._connect)

    def _connect(self, route) -> None:
        self.route = route
        route.on_message(self._message)

    def _message(self, message: str) -> None:
        frame = json.loads(message)
        self.frames.append(frame)
        for event in self._reply(frame, len(self.frames)) or []:
            self.emit(event)

    def emit(self, event: dict) -> None:
        self.route.send(json.dumps(event))


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
    "price_eur": "53.00",
    "colours": ["black"],
    "sizes_in_stock": ["M", "L"],
    "url": "/products/fjord-pine-high-rise-wide-jeans/",
}
HOSTILE_CARD = {**CARD, "sku": "JN-9", "name": "<b>Trap</b>", "url": "javascript:alert(1)"}
HOSTILE_TEXT = (
    "Here are **two** picks:\n"
    "- [Wide jeans](/products/fjord-pine-high-rise-wide-jeans/)\n"
    "- [Elsewhere](https://evil.example/x) <img src=x onerror=window.pwned=1>\n"
    "Enjoy."
)


class ScriptedPanelTests(BrowserTestCase):
    def test_events_render_as_streamed_text_tools_and_safe_cards(self) -> None:
        with self.screenshot_on_failure():
            socket = ScriptedSocket(
                self.page,
                lambda frame, n: [
                    SESSION,
                    {
                        "type": "memory.searched",
                        "counts": {"fact": 1},
                        "duration_ms": 12.5,
                        "items": [
                            {
                                "block_id": "b1",
                                "scope": "fact",
                                "score": 0.91,
                                "line": "[fact · stated 2026-05-01] The shopper wears size M.",
                            }
                        ],
                    },
                    {
                        "type": "tool",
                        "name": "search_products",
                        "arguments": "{}",
                        "summary": "2 products",
                        "duration_ms": 9,
                    },
                    {"type": "token", "text": "Here are "},
                    {"type": "token", "text": "**two** picks"},
                ],
            )
            self.sign_in("Ann")
            self.open_panel()
            self.by("controls-toggle").click()
            self.page.fill('[data-testid="control-date"]', "2026-05-01")
            self.by("control-retention").select_option("1h")
            self.send("I'm a size M, show me jeans")

            # Streaming: raw text grows while the turn is still open.
            pending = self.page.locator("li.chat-msg-assistant.pending .chat-bubble")
            pending.filter(has_text="Here are **two** picks").wait_for()
            assert pending.get_attribute("aria-busy") == "true"
            assert self.by("chat-activity").inner_text() == ""  # tokens replace the activity
            assert self.by("tool-activity").inner_text() == "Searching the catalog… · 2 products"
            frame = socket.frames[0]
            assert frame == {
                "type": "message",
                "text": "I'm a size M, show me jeans",
                "session_id": None,
                "turn_count": 0,
                "session_date": "2026-05-01",
                "retention": "1h",
            }

            socket.emit(
                {
                    "type": "done",
                    "text": HOSTILE_TEXT,
                    "products": [CARD, HOSTILE_CARD],
                    "turn_id": 1,
                    "model": "offline",
                    "spans": [
                        {"name": "model.round1", "start_ms": 15, "duration_ms": 8},
                        {"name": "tool.search_products", "start_ms": 23, "duration_ms": 9},
                    ],
                }
            )
            self.wait_for_answer(1)
            bubble = self.page.locator("li.chat-msg-assistant .chat-bubble").last
            assert bubble.locator("strong").inner_text() == "two"
            links = bubble.locator("a")
            assert links.count() == 1
            assert links.get_attribute("href") == "/products/fjord-pine-high-rise-wide-jeans/"
            assert "Elsewhere" in bubble.inner_text()  # the words stay, the foreign link goes
            assert "<img src=x" in bubble.inner_text()  # shown as text, never parsed
            assert self.page.locator("#chat-panel img").count() == 0
            assert self.page.evaluate("window.pwned") is None
            assert self.by("chat-announcer").inner_text().startswith("Assistant: Here are")

            cards = self.by("product-card")
            assert cards.count() == 2
            assert "€53.00" in cards.first.inner_text()
            assert "Sizes: M L" in cards.first.inner_text()
            assert cards.first.locator("a").get_attribute("href") == CARD["url"]
            assert cards.nth(1).locator("a").count() == 0
            assert cards.nth(1).inner_text().startswith("<b>Trap</b>")

            # Controls lock on the session's own values, with the reason as a tooltip.
            date = self.by("control-date")
            assert date.is_disabled() and self.by("control-retention").is_disabled()
            assert date.input_value() == "2026-05-01"
            assert self.by("control-retention").input_value() == "1h"
            assert "close the panel to start a new one" in date.get_attribute("title")
            assert self.by("chat-mode").inner_text() == "Remembering you as Ann"
            assert self.storage("session_id") == "session7"
            assert self.storage("turn_count") == 1

            socket.emit(
                {
                    "type": "memory.added",
                    "block_ids": {"turn": ["t1"], "fact": ["f1"]},
                    "facts": ["The shopper wears size M."],
                    "duration_ms": 30,
                }
            )
            with self.page.expect_response(re.compile(r"/api/memory/records\?")):
                self.by("inspector-toggle").click()
            recalled = self.by("recalled-item")
            assert recalled.count() == 1
            assert "stated 2026-05-01" in recalled.inner_text()
            assert "score 0.910" in recalled.inner_text()
            assert self.by("saved-fact").inner_text() == "The shopper wears size M."
            spans = self.page.eval_on_selector_all(
                '[data-testid="timeline-span"]', "els => els.map(e => e.dataset.name)"
            )
            assert spans == [
                "memory.searched",
                "model.round1",
                "tool.search_products",
                "memory.added",
            ]
            assert self.page_errors == []

    def test_error_offers_retry_and_close_ends_the_conversation(self) -> None:
        with self.screenshot_on_failure():

            def reply(frame: dict, n: int) -> list[dict]:
                if frame["type"] == "close":
                    return [
                        {
                            "type": "closed",
                            "session_id": frame["session_id"],
                            "episode_block_id": None,
                        }
                    ]
                if n == 1:
                    return [
                        {
                            "type": "error",
                            "code": 504,
                            "message": "The model timed out.",
                            "retryable": True,
                        }
                    ]
                return [
                    SESSION,
                    {"type": "token", "text": "Found them."},
                    {
                        "type": "done",
                        "text": "Found them.",
                        "products": [],
                        "turn_id": 2,
                        "model": "offline",
                        "spans": [],
                    },
                ]

            socket = ScriptedSocket(self.page, reply)
            self.page.goto(self.url("/"))
            self.open_panel()
            assert self.page.evaluate("document.activeElement.id") == "chat-input"
            self.send("black jeans")
            error = self.by("chat-error")
            error.wait_for()
            assert "The model timed out." in error.inner_text()
            assert self.page.locator("li.chat-msg-assistant").count() == 0

            self.by("chat-retry").click()
            self.wait_for_answer(1)
            assert self.by("chat-error").count() == 0
            assert self.page.locator("li.chat-msg-user").count() == 1  # not asked twice
            assert [f["text"] for f in socket.frames] == ["black jeans", "black jeans"]

            self.by("chat-close").click()
            self.page.wait_for_function("() => document.getElementById('chat-panel').hidden")
            assert socket.frames[-1] == {"type": "close", "session_id": "session7"}
            assert self.storage("session_id") is None
            assert self.storage("conversation") is None
            self.open_panel()
            assert self.page.locator("#chat-panel .chat-msg").count() == 0
            assert not self.by("control-date").is_disabled()
            assert self.by("control-retention").input_value() == "default"

    def test_memory_unavailable_mode_and_a_dropped_socket_retry(self) -> None:
        with self.screenshot_on_failure():
            unavailable = {
                **SESSION,
                "session_id": None,
                "mode": "memory_unavailable",
                "session_date": None,
                "retention": None,
                "created": False,
            }

            def reply(frame: dict, n: int) -> list[dict]:
                if n == 1:
                    socket.emit(unavailable)
                    socket.route.close()  # the connection dies mid-turn
                    return []
                return [
                    unavailable,
                    {
                        "type": "done",
                        "text": "Back again.",
                        "products": [],
                        "turn_id": 3,
                        "model": "offline",
                        "spans": [],
                    },
                ]

            socket = ScriptedSocket(self.page, reply)
            self.sign_in("Ann")
            self.open_panel()
            self.send("any boots?")
            self.by("chat-error").filter(has_text="Connection to the assistant was lost").wait_for()
            assert self.by("chat-mode").inner_text() == "Memory unavailable right now"
            # The socket comes back by itself; Retry asks the same question once more.
            self.page.wait_for_selector('#chat-panel[data-connected="true"]')
            self.by("chat-retry").click()
            self.wait_for_answer(1)
            assert self.last_answer() == "Back again."
            assert [f["text"] for f in socket.frames] == ["any boots?", "any boots?"]
            assert socket.frames[1]["session_id"] is None

    def test_keyboard_shift_enter_newline_and_escape(self) -> None:
        with self.screenshot_on_failure():
            socket = ScriptedSocket(self.page, lambda frame, n: [])
            self.page.goto(self.url("/"))
            self.by("chat-launcher").focus()
            self.page.keyboard.press("Enter")
            self.page.wait_for_selector("#chat-panel:not([hidden])")
            self.page.keyboard.type("first line")
            self.page.keyboard.press("Shift+Enter")
            self.page.keyboard.type("second line")
            assert self.by("chat-input").input_value() == "first line\nsecond line"
            assert socket.frames == []
            self.by("inspector-toggle").click()
            self.page.keyboard.press("Escape")
            assert self.by("inspector").is_hidden()
            assert self.page.is_visible("#chat-panel")
            self.page.keyboard.press("Escape")
            assert self.page.is_hidden("#chat-panel")
            assert self.page.evaluate("document.activeElement.id") == "chat-launcher"


class LivePanelTests(BrowserTestCase):
    """The whole stack: daphne, the consumer, the offline model, the memory server."""

    @classmethod
    def setUpClass(cls) -> None:
        cls._memory_dir = tempfile.mkdtemp(prefix="aisle-browser-memory-")
        base_url, cls._stop_memory = start_agentmemory_server(cls._memory_dir)
        # The live server is a forked process: it sees settings as they are at start.
        cls._memory_settings = override_settings(AGENT_MEMORY_URL=base_url)
        cls._memory_settings.enable()
        try:
            super().setUpClass()
        except BaseException:
            cls._memory_settings.disable()
            cls._stop_memory()
            raise

    @classmethod
    def tearDownClass(cls) -> None:
        try:
            super().tearDownClass()
        finally:
            cls._memory_settings.disable()
            cls._stop_memory()
            shutil.rmtree(cls._memory_dir, ignore_errors=True)

    def test_return_visit_recalls_facts_and_records_can_be_deleted(self) -> None:
        with self.screenshot_on_failure():
            self.page.on("dialog", lambda dialog: dialog.accept())
            self.sign_in("Ann")
            self.open_panel()
            assert self.by("chat-mode").inner_text() == "Remembering you as Ann"
            self.by("controls-toggle").click()
            self.page.fill('[data-testid="control-date"]', "2026-05-01")
            self.by("control-retention").select_option("1h")
            self.send("I'm a size M and I hate yellow, show me jeans")
            self.wait_for_answer(1)
            assert "jeans" in self.last_answer().lower()
            assert self.by("product-card").count() > 0
            date = self.by("control-date")
            assert date.is_disabled() and date.input_value() == "2026-05-01"
            assert self.by("control-retention").input_value() == "1h"
            assert "Fixed when the session started" in date.get_attribute("title")

            # The facts are judged after the answer; wait for them before ending the visit.
            self.by("inspector-toggle").click()
            self.by("saved-fact").first.wait_for()
            saved = " ".join(self.by("saved-fact").all_inner_texts()).lower()
            assert "size m" in saved and "yellow" in saved
            self.by("chat-close").click()

            # The return visit.
            self.open_panel()
            assert self.page.locator("#chat-panel .chat-msg").count() == 0
            assert not self.by("control-date").is_disabled()
            self.send("show me t-shirts")
            self.wait_for_answer(1)
            cards = self.cards()
            assert cards, self.last_answer()
            for card in cards:
                assert "M" in card["sizes"] and "yellow" not in card["colours"], card

            self.by("inspector-toggle").click()
            facts = self.page.locator('[data-testid="recalled-item"][data-scope="fact"]')
            facts.first.wait_for()
            recalled = " ".join(facts.all_inner_texts())
            assert "2026-05-01" in recalled and "size M" in recalled

            # Let this turn's writes land first: they reload the list under our feet.
            self.by("inspector-saved").filter(has_text="Turn block").wait_for()
            records = self.by("record")
            records.first.wait_for()
            doomed = records.first.get_attribute("data-block-id")
            record = self.page.locator(f'[data-testid="record"][data-block-id="{doomed}"]')
            with self.page.expect_response(re.compile(r"/delete$")) as deleted:
                record.get_by_test_id("record-delete").click()
            assert deleted.value.status == 200
            record.wait_for(state="detached")
            listed = self.page.evaluate(
                "() => fetch('/api/memory/records?limit=100').then(r => r.json())"
            )
            assert doomed not in {r["block_id"] for r in listed["records"]}

            # Navigating keeps the conversation and the open panel.
            self.by("inspector-toggle").first.click()
            href = cards[0]["href"]
            self.page.goto(self.url(href))
            self.page.wait_for_selector('#chat-panel[data-ready="true"]:not([hidden])')
            assert self.page.locator("li.chat-msg-user").inner_text() == "show me t-shirts"
            assert self.by("product-card").count() == len(cards)
            assert self.page_errors == []

    def test_signed_out_mode_malformed_date_and_navigation(self) -> None:
        with self.screenshot_on_failure():
            self.page.goto(self.url("/"))
            self.open_panel()
            mode = "Not signed in — this chat is not remembered"
            assert self.by("chat-mode").inner_text() == mode

            # A browser without a date picker sends whatever was typed; the server decides.
            self.by("controls-toggle").click()
            self.page.eval_on_selector(
                '[data-testid="control-date"]',
                "el => { el.type = 'text'; el.value = '2026-13-45'; }",
            )
            self.send("show me jeans")
            error = self.by("chat-error")
            error.wait_for()
            assert "date" in error.inner_text().lower()
            assert not self.by("control-date").is_disabled()  # no session was started

            self.page.eval_on_selector('[data-testid="control-date"]', "el => { el.value = ''; }")
            self.by("chat-retry").click()
            self.wait_for_answer(1)
            assert self.by("chat-mode").inner_text() == mode
            assert self.storage("session_id") is None and self.storage("turn_count") == 1

            self.page.goto(self.url("/?category=jeans"))
            self.page.wait_for_selector('#chat-panel[data-ready="true"]:not([hidden])')
            assert self.page.locator("li.chat-msg-user").inner_text() == "show me jeans"
            assert self.page.locator("li.chat-msg-assistant").count() == 1
            assert self.by("chat-mode").inner_text() == mode
            assert self.page_errors == []
