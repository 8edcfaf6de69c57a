"""The REST API describes itself: an OpenAPI schema, Swagger UI over it and DRF's browsable
pages, all served by the shop itself (they work offline, with nothing from a CDN)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from django.urls import reverse

pytestmark = pytest.mark.django_db
CHROMIUM = Path("/usr/bin/chromium")


def test_the_openapi_schema_lists_the_api(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["info"]["title"] == "Aisle API"
    assert {"/api/assistant/turns", "/api/memory/records"} <= set(schema["paths"])
    assert "post" in schema["paths"]["/api/assistant/turns"]


def test_the_browsable_api_renders_for_a_signed_in_shopper(client, live_memory):
    from shop.services import shopper_get_or_create

    client.force_login(shopper_get_or_create(username="browsable-api-shopper"))
    records = client.get("/api/memory/records", HTTP_ACCEPT="text/html")
    assert records.status_code == 200 and records["Content-Type"].startswith("text/html")
    page = records.content.decode()
    assert "Django REST framework" in page and "&quot;records&quot;: []" in page

    turns = client.get("/api/assistant/turns", HTTP_ACCEPT="text/html")
    # POST-only: the page still renders, with the request form to try it.
    assert turns.status_code == 405 and "<form" in turns.content.decode()


def test_the_docs_page_is_swagger_ui_served_from_the_shops_own_static_files(client):
    response = client.get("/api/docs/")
    page = response.content.decode()
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    assert "<title>Aisle API</title>" in page and '<div id="swagger-ui">' in page
    assert '"/api/schema/"' in page  # what it documents
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets)
    for asset in assets:
        assert asset.startswith("/static/drf_spectacular_sidecar/"), asset  # no CDN
        served = client.get(asset)
        assert served.status_code == 200, asset
        assert b"".join(served.streaming_content)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")
def test_the_docs_page_lists_the_operations_in_a_browser_without_network(live_server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page()
            outside: list[str] = []

            def only_the_shop(route):
                if route.request.url.startswith(live_server.url):
                    route.continue_()
                else:
                    outside.append(route.request.url)
                    route.abort()

            page.route("**/*", only_the_shop)
            page.goto(live_server.url + reverse("api-docs"))
            operations = page.locator(".opblock-summary-path")
            operations.first.wait_for()
            paths = set(operations.all_inner_texts())
        finally:
            browser.close()
    assert {"/api/assistant/turns", "/api/memory/records"} <= {p.strip() for p in paths}
    assert outside == []
