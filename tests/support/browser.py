"""What the browser tests share: viewports, a page helper, a scripted websocket, the audit."""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from channels.testing.live import make_application, set_database_connection
from daphne.testing import DaphneProcess
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.test import override_settings
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
# Installed from package.json by scripts/ensure-axe (make test runs it).
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_MISSING = "axe-core is not installed (scripts/ensure-axe installs it with npm): audit skipped"

HOST = "localhost"

MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian's chromium is not installed (apt-get install -y chromium)",
    ),
]


@contextlib.contextmanager
def daphne_serving(**settings: object) -> Iterator[str]:
    """Serve the app (static files too) from a daphne process; yields its base URL.

    The process is forked: it runs with the settings as they are when it starts, so the
    given overrides apply to it alone.
    """
    with override_settings(**settings):
        process = DaphneProcess(
            HOST,
            functools.partial(make_application, static_wrapper=ASGIStaticFilesHandler),
            setup=set_database_connection,
        )
        process.start()
        while not process.ready.wait(timeout=1):
            if not process.is_alive():
                raise RuntimeError("The live server stopped before it was ready")
    try:
        yield f"http://{HOST}:{process.port.value}"
    finally:
        process.terminate()
        process.join()


_names = itertools.count(1)
CATALOG = ROOT / "shop" / "fixtures" / "catalog.json"


@functools.cache
def _catalog() -> dict[str, dict]:
    return {item["sku"]: item for item in json.loads(CATALOG.read_text())}


def catalog_product(sku: str) -> dict:
    """A product of the bundled catalog with its page's URL, read without the ORM (the
    ORM refuses to run inside Playwright's event loop)."""
    item = _catalog()[sku]
    return {**item, "url": reverse("shop:product", kwargs={"slug": item["slug"]})}


def unique_name(prefix: str) -> str:
    """A shopper name no other test (nor an earlier run on the same memory) has used."""
    return f"{prefix}{os.getpid() % 10_000}x{next(_names)}"


@dataclass
class Browser:
    """One browser page on a live server, with the panel's vocabulary."""

    context: Any
    page: Any
    base_url: str
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    # --- navigation and sign-in ------------------------------------------------------------
    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def goto(self, path: str) -> None:
        self.page.goto(self.url(path))

    def by(self, testid: str):
        return self.page.get_by_test_id(testid)

    def sign_in(self, name: str) -> None:
        """A listed demo shopper, by the name on their button."""
        self.goto("/signin/")
        self.page.locator("button.shopper", has_text=name).click()
        self.page.wait_for_url(self.url("/"))

    def sign_in_new(self, prefix: str) -> str:
        """A new shopper of a unique name; returns the name the shop greets them by."""
        name = unique_name(prefix)
        self.goto("/signin/")
        self.page.fill("#id_username", name)
        self.page.locator("form.new-shopper button").click()
        self.page.wait_for_url(self.url("/"))
        return name.capitalize()

    # --- the panel -------------------------------------------------------------------------
    def open_panel(self) -> None:
        self.by("chat-launcher").click()
        self.wait_for_panel()

    def wait_for_panel(self) -> None:
        self.page.wait_for_selector('#chat-panel[data-ready="true"]:not([hidden])')

    def send(self, text: str) -> None:
        self.by("chat-input").fill(text)
        self.by("chat-input").press("Enter")

    def answers(self):
        return self.page.locator("li.chat-msg-assistant:not(.chat-greeting)")

    def wait_for_answer(self, n: int) -> None:
        """Wait until n answers are complete (the pending bubble loses its class at the end)."""
        self.page.wait_for_function(
            "n => document.querySelectorAll("
            "'li.chat-msg-assistant:not(.pending):not(.chat-greeting)').length >= n",
            arg=n,
        )

    def ask(self, text: str) -> str:
        """Send, wait for the answer, return its text."""
        count = self.answers().count()
        self.send(text)
        self.wait_for_answer(count + 1)
        return self.last_answer()

    def last_answer(self) -> str:
        return self.answers().last.locator(".chat-bubble").inner_text()

    def cards(self) -> list[dict]:
        """The last answer's cards, as the page shows them."""
        return (
            self.answers()
            .last.locator('[data-testid="product-card"]')
            .evaluate_all(
                "els => els.map(e => ({sku: e.dataset.sku, name: e.querySelector('.card-name').textContent,"
                " sizes: e.dataset.sizes.split(' ').filter(Boolean),"
                " colours: e.dataset.colours.split(' ').filter(Boolean),"
                " price: Number(e.dataset.price), text: e.innerText,"
                " href: e.querySelector('a')?.getAttribute('href') ?? null}))"
            )
        )

    def bold_names(self) -> list[str]:
        """The product names the last answer's text puts in bold, in order, once each."""
        names = self.answers().last.locator(".chat-bubble strong").all_inner_texts()
        return list(dict.fromkeys(names))

    def storage(self, key: str):
        raw = self.page.evaluate("k => sessionStorage.getItem('aisle.chat.' + k)", key)
        return None if raw is None else json.loads(raw)

    def records(self) -> list[dict]:
        """The signed-in shopper's memory records, straight from the API."""
        listed = self.page.evaluate(
            "() => fetch('/api/memory/records?limit=100').then(r => r.json())"
        )
        return listed["records"]

    def focused(self) -> dict:
        return self.page.evaluate(
            "() => { const e = document.activeElement; return {tag: e.tagName.toLowerCase(),"
            " id: e.id, testid: e.dataset.testid || null, text: e.innerText?.slice(0, 200) || ''}; }"
        )

    # --- the accessibility audit -------------------------------------------------------------
    def audit(self) -> list[dict]:
        """axe-core's violations on the page as it is now (WCAG A/AA and best practice)."""
        if not AXE.exists():
            pytest.skip(AXE_MISSING)
        if not self.page.evaluate("() => Boolean(window.axe)"):
            self.page.add_script_tag(path=str(AXE))
        return self.page.evaluate(
            "() => axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map("
            "v => ({id: v.id, impact: v.impact, help: v.help,"
            " nodes: v.nodes.map(n => n.target.join(' '))})))"
        )


class ScriptedSocket:
    """Stands in for the assistant's websocket inside the page, speaking docs/protocol.md.

    `reply(frame, n)` answers the nth frame with a list of events (or nothing); `emit`
    sends one more whenever the test likes.
    """

    def __init__(self, page, reply: Callable[[dict, int], list[dict] | None]) -> None:
        self.page = page
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

    def sent(self, kind: str) -> list[dict]:
        return [frame for frame in self.frames if frame["type"] == kind]

    def wait_for(self, kind: str, count: int = 1) -> list[dict]:
        """The frames of a kind, once `count` of them have arrived (frames arrive while
        Playwright waits, so this waits through the page)."""
        for _ in range(800):
            if len(self.sent(kind)) >= count:
                return self.sent(kind)
            self.page.wait_for_timeout(25)
        raise AssertionError(f"no {count} {kind!r} frames; got {self.frames}")


def records_route(page, records: list[dict]) -> list[str]:
    """Serve the inspector's record list (and deletes) from `records`; returns deleted ids."""
    deleted: list[str] = []

    def handle(route) -> None:
        url = route.request.url
        if url.endswith("/delete"):
            block_id = url.rsplit("/", 2)[-2]
            deleted.append(block_id)
            records[:] = [r for r in records if r["block_id"] != block_id]
            route.fulfill(json={"deleted": True})
        else:
            route.fulfill(
                json={"records": list(records), "total": len(records), "limit": 20, "offset": 0}
            )

    page.route(re.compile(r".*/api/memory/records.*"), handle)
    return deleted


def record(block_id: str, text: str, **fields: Any) -> dict:
    """A record as the records API lists it."""
    return {
        "block_id": block_id,
        "session_id": "session7",
        "kind": "fact",
        "text": text,
        "created_at": "2026-05-01T10:00:00+00:00",
        "ingested_at": "2026-05-01T10:00:00+00:00",
        "expires_at": None,
        "status": "ready",
        "category": None,
        "slot": None,
        "superseded": False,
        **fields,
    }
