"""`make screenshots`: the panel's key states, desktop and phone, as PNGs to look at.

Not part of the test suite (the file name keeps pytest from collecting it on its own); run
it by path. It drives the whole stack (daphne, the offline model answering at a readable
pace, the embedded memory server) like a shopper would, and saves each state under
test-artifacts/screenshots/.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.browser import DESKTOP, MARKS, PHONE, ROOT, catalog_product, daphne_serving

pytestmark = MARKS

OUT = ROOT / "test-artifacts" / "screenshots"


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, memory_url) -> Iterator[str]:
    paced = {"AGENT_MEMORY_URL": memory_url, "OFFLINE_MODEL_STREAM_DELAY_MS": 40}
    with django_db_blocker.unblock(), daphne_serving(**paced) as url:
        yield url


class Camera:
    def __init__(self, ui, label: str) -> None:
        self.ui = ui
        self.label = label
        self.count = 0
        OUT.mkdir(parents=True, exist_ok=True)

    def shoot(self, state: str) -> Path:
        self.count += 1
        path = OUT / f"{self.label}-{self.count:02d}-{state}.png"
        self.ui.page.screenshot(path=str(path))
        print(path.relative_to(ROOT))
        return path


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_key_states(ui, viewport) -> None:
    camera = Camera(ui, "desktop" if viewport == DESKTOP else "phone")
    ui.page.on("dialog", lambda dialog: dialog.accept())
    ui.sign_in_new("ann")

    # A first visit: greeted, then an answer streamed with its cards.
    ui.open_panel()
    ui.by("greeting-text").wait_for()
    camera.shoot("greeting")
    ui.by("controls-toggle").click()
    ui.by("control-retention").select_option("1m")
    camera.shoot("demo-controls")
    ui.by("controls-toggle").click()
    ui.send("I'm a size M and I hate yellow, show me t-shirts")
    ui.page.locator("li.chat-msg-assistant.pending .chat-bubble li").first.wait_for()
    camera.shoot("streaming-with-stop")
    ui.wait_for_answer(1)
    camera.shoot("answer-with-cards")
    ui.ask("the black one")
    camera.shoot("follow-up")

    # Stopped half way.
    ui.send("show me jackets")
    ui.page.locator("li.chat-msg-assistant.pending .chat-bubble p").first.wait_for()
    ui.by("chat-stop").click()
    ui.by("chat-stopped").wait_for()
    camera.shoot("stopped")

    # The inspector: what was recalled and saved, and the records with their expiry.
    ui.by("inspector-toggle").click()
    ui.by("inspector-turn").select_option(index=0)
    ui.by("saved-fact").first.wait_for()
    camera.shoot("inspector-turn")
    ui.by("record").first.wait_for()
    ui.by("records-list").scroll_into_view_if_needed()
    camera.shoot("inspector-records")
    ui.page.keyboard.press("Escape")

    # ✕ asks first; a return visit is greeted back.
    ui.by("chat-close").click()
    camera.shoot("close-confirmation")
    ui.by("chat-confirm-close").click()
    ui.goto(catalog_product("TS-0002")["url"])
    ui.open_panel()
    ui.by("greeting-text").wait_for()
    camera.shoot("return-visit-on-a-product-page")
    ui.ask("do you have this in M?")
    camera.shoot("page-context-answer")
    if viewport == PHONE:
        ui.by("product-card").last.tap()
        ui.page.wait_for_load_state()
        camera.shoot("card-tapped-product-page")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_signed_out_elsewhere(ui, viewport) -> None:
    """A second tab's panel once the shopper signed out in the first."""
    camera = Camera(ui, f"{'desktop' if viewport == DESKTOP else 'phone'}-signed-out")
    ui.sign_in_new("ann")
    ui.open_panel()
    ui.ask("I'm a size M, show me jeans")
    tab = ui.context.new_page()
    tab.goto(ui.url("/"))
    tab.get_by_test_id("chat-launcher").click()
    tab.wait_for_selector('#chat-panel[data-ready="true"]:not([hidden])')
    ui.by("chat-minimise").click()  # on a phone the panel covers the page's sign-out
    ui.page.locator("form[action='/signout/'] button").click()
    ui.page.wait_for_url(ui.url("/"))
    tab.get_by_test_id("chat-ended").wait_for()
    ui.page = tab
    camera.shoot("panel-ended")
