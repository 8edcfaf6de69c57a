"""What a wrong address or a failure shows: the shop's own pages, never Django's debug page."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import DatabaseError
from django.test import Client

ROOT = Path(__file__).resolve().parent.parent
DEBUG_PAGE_MARKS = ("Using the URLconf", "Traceback", "DEBUG = True", "Request Method")

pytestmark = pytest.mark.django_db


def test_a_bad_product_url_shows_the_shops_404(client):
    response = client.get("/products/no-such-product/")
    page = response.content.decode()
    assert response.status_code == 404
    assert [t.name for t in response.templates][:2] == ["404.html", "base.html"]
    assert "<h1>We couldn't find that page</h1>" in page
    # The shop around it: its header and categories, a search, the way back, the assistant.
    assert 'class="logo" href="/"' in page and "?category=dresses" in page
    assert 'action="/" role="search"' in page and 'name="q"' in page
    assert 'data-testid="chat-launcher"' in page
    assert not any(mark in page for mark in DEBUG_PAGE_MARKS)


def test_an_unknown_api_path_is_a_json_404(client):
    response = client.get("/api/no-such-endpoint")
    assert response.status_code == 404
    assert response.json() == {"code": 404, "message": "Not found."}


def test_the_404_page_survives_a_database_failure(client, monkeypatch):
    """A 404 must stay a 404 when the page's own reads (shopper, demo settings) fail."""
    from assistant import context_processors

    def broken():
        raise DatabaseError("no such table: assistant_demosettings")

    monkeypatch.setattr(context_processors, "demo_settings_get", broken)
    response = client.get("/no-such-page/")
    page = response.content.decode()
    assert response.status_code == 404
    assert [t.name for t in response.templates] == ["404_plain.html", "error_base.html"]
    assert "find that page" in page and 'class="logo" href="/"' in page
    assert "no such table" not in page


def test_a_failure_shows_the_shops_500(monkeypatch, settings):
    from shop import views

    def broken(*args, **kwargs):
        raise RuntimeError("the catalog broke")

    monkeypatch.setattr(views, "catalog_search", broken)
    response = Client(raise_request_exception=False).get("/")
    page = response.content.decode()
    assert response.status_code == 500
    assert "Something went wrong on our side" in page and 'class="logo" href="/"' in page
    assert "the catalog broke" not in page
    assert not any(mark in page for mark in DEBUG_PAGE_MARKS)


def test_every_page_links_the_favicon_and_it_is_served(client):
    page = client.get("/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in page
    icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200 and icon["Content-Type"].startswith("image/svg+xml")
    assert b"<svg" in b"".join(icon.streaming_content)
    # Pages outside base.html (the admin) make browsers ask for /favicon.ico.
    legacy = client.get("/favicon.ico")
    assert legacy.status_code == 302 and legacy["Location"] == "/static/favicon.svg"


def _debug_setting(env: dict[str, str]) -> str:
    """DEBUG as the shop's own settings (what make run uses) resolve it in a fresh process."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    result = subprocess.run(
        [sys.executable, "-c", "from config.settings import base; print(base.DEBUG)"],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


@pytest.mark.skipif(
    (ROOT / ".env").exists() and "DJANGO_DEBUG" in (ROOT / ".env").read_text(),
    reason="this checkout's .env sets DJANGO_DEBUG",
)
def test_make_run_defaults_to_debug_off_with_a_switch():
    assert _debug_setting({}) == "False"
    assert _debug_setting({"DJANGO_DEBUG": "true"}) == "True"
