"""Browser tests: Debian's chromium driven by sync Playwright against live servers.

A module picks its server by defining a `server` fixture (see `shop_server`,
`memory_live_server`); each test gets a fresh browser (`ui`), started after the database is
ready and closed before it is flushed, since sync Playwright must not outlive its test. When
a test fails, the hook below saves what the page looked like, desktop and phone, under
test-artifacts/ and names the files in the report.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.memoryserver import start_agentmemory_server
from harness.ports import free_port
from tests.support.browser import CHROMIUM, DESKTOP, PHONE, Browser, daphne_serving

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


@pytest.fixture(scope="module")
def shop_server(django_db_setup, django_db_blocker) -> Iterator[str]:
    """The app with no memory server: for pages, and panels whose socket a test scripts.

    Its memory URL is a closed loopback port, so nothing it does can reach another
    process's memory server.
    """
    closed = f"http://127.0.0.1:{free_port()}"
    with django_db_blocker.unblock(), daphne_serving(AGENT_MEMORY_URL=closed) as url:
        yield url


@pytest.fixture(scope="module")
def memory_url() -> Iterator[str]:
    """The embedded Agent Memory server in its own process, for one test module."""
    directory = tempfile.mkdtemp(prefix="aisle-browser-memory-")
    base_url, stop = start_agentmemory_server(directory)
    try:
        yield base_url
    finally:
        stop()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module")
def memory_live_server(django_db_setup, django_db_blocker, memory_url) -> Iterator[str]:
    """The whole stack: daphne, the consumer, the offline model, the memory server."""
    with django_db_blocker.unblock(), daphne_serving(AGENT_MEMORY_URL=memory_url) as url:
        yield url


@pytest.fixture
def viewport() -> dict[str, int]:
    """Desktop unless a test parametrizes it (`@pytest.mark.parametrize("viewport", ...)`)."""
    return DESKTOP


@pytest.fixture
def ui(server, viewport, transactional_db, request) -> Iterator[Browser]:
    """A fresh chromium on `server`, closed before the database is flushed."""
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport=viewport, has_touch=viewport == PHONE)
        context.set_default_timeout(TIMEOUT_MS)
        yield Browser(context=context, page=context.new_page(), base_url=server)
        context.close()
        browser.close()
    finally:
        playwright.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """On a failure, screenshots of the page at desktop and phone size, while it is open."""
    report = yield
    ui = item.funcargs.get("ui") if hasattr(item, "funcargs") else None
    if report.when == "call" and report.failed and isinstance(ui, Browser):
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", item.name).strip("-")
        saved = []
        for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
            path = ARTIFACTS / f"{name}-{label}.png"
            with contextlib.suppress(Exception):
                ARTIFACTS.mkdir(exist_ok=True)
                ui.page.set_viewport_size(size)
                ui.page.screenshot(path=str(path))
                saved.append(str(path))
        if saved:
            report.sections.append(("screenshots", "\n".join(saved)))
    return report
