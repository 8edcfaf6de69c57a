"""The Shopper memory page in a real browser at 1280 px: it fits, and its Delete asks first.

Debian's chromium driven by Playwright, against Django's live server and the live
embedded memory server. A screenshot of the page is kept under test-artifacts/.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from shop.models import DemoShopper
from tests.support.shopper_memory import memory_blocks_filed, memory_user_of

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
VIEWPORT = {"width": 1280, "height": 900}
# A pasted link with no space to break at: the cell must wrap it, not widen the table.
UNBROKEN = "https://example.com/" + "averylongpathsegment" * 12

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Debian's chromium is not installed (apt-get install -y chromium)",
    ),
]


@pytest.fixture
def wordy_shopper(live_memory, username, tmp_path) -> DemoShopper:
    """A shopper whose stored exchanges carry markdown and a very long unbroken word."""
    path = tmp_path / "scenario.json"
    answer = (
        "Here are two:\n- **Loom & Lane Wrap Midi Dress** in pink, "
        "[see it](/products/loom-lane-wrap-midi-dress/)\n- **Vela Satin Evening Dress** in navy"
    )
    exchanges = [
        {"query": "I'm a size M and I hate yellow, show me dresses", "answer": answer},
        {"query": f"Is this one nice? {UNBROKEN}", "answer": "I can only see our own shop."},
    ]
    sessions = [{"date": "2026-04-12", "retention": "1h", "exchanges": exchanges, "close": True}]
    path.write_text(json.dumps([{"username": username, "sessions": sessions}]))
    call_command("seed_sessions", str(path), verbosity=0, stdout=StringIO())
    return DemoShopper.objects.select_related("user").get(user__username=username)


def test_the_page_fits_1280px_and_a_delete_is_confirmed(
    live_server, wordy_shopper, admin_user, client
):
    from playwright.sync_api import sync_playwright

    client.force_login(admin_user)
    url = live_server.url + reverse("admin:shop_demoshopper_memory", args=[wordy_shopper.pk])
    # Resolved before the browser starts: inside Playwright's sync API the ORM may not run.
    filed_under = memory_user_of(wordy_shopper.user.username)
    before = len(memory_blocks_filed(filed_under))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport=VIEWPORT)
            context.add_cookies(
                [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": url}]
            )
            page = context.new_page()
            page.goto(url)
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "admin-shopper-memory-1280.png"), full_page=True)

            # The admin's own frame: its header and breadcrumbs bar.
            assert page.locator("#header #site-name").is_visible()
            assert page.locator("nav ol.breadcrumbs").inner_text().endswith("Shopper memory")
            # Nothing wider than the window: no horizontal scrolling, every Delete in view.
            assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORT["width"]
            deletes = page.locator("#memory-blocks a.deletelink")
            assert deletes.count() == before
            for index in range(deletes.count()):
                box = deletes.nth(index).bounding_box()
                assert box is not None and box["x"] + box["width"] <= VIEWPORT["width"]
            # Markdown is rendered, not shown raw.
            texts = page.locator("#memory-blocks .memory-text")
            assert "**" not in " ".join(texts.all_inner_texts())
            assert page.locator("#memory-blocks .memory-text strong", has_text="Loom").count()

            # Delete asks first, names the record, and only the confirmation deletes.
            row = page.locator("#memory-blocks tr", has_text="The shopper wears size M.")
            row.locator("a.deletelink").click()
            assert "Are you sure" in page.locator("h1").inner_text()
            page.screenshot(path=str(ARTIFACTS / "admin-shopper-memory-delete.png"))
            assert len(memory_blocks_filed(filed_under)) == before
            page.get_by_role("button", name="Yes, I'm sure").click()
            message = page.locator("ul.messagelist li.success").inner_text()
            assert message == "Deleted the fact “The shopper wears size M.”"
        finally:
            browser.close()
    assert len(memory_blocks_filed(filed_under)) == before - 1
