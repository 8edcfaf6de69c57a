"""The REST API describes itself: an OpenAPI schema, Swagger UI over it and DRF's browsable
pages, all served by the shop itself (they work offline, with nothing from a CDN)."""

from __future__ import annotations

import json
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


def schema_operations(client) -> list[tuple[str, str, dict]]:
    schema = yaml.safe_load(client.get("/api/schema/").content)
    return [
        (path, method, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in {"get", "post", "put", "patch", "delete"}
    ]


def request_examples(operation: dict) -> dict[str, object]:
    content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    return {name: example["value"] for name, example in content.get("examples", {}).items()}


def test_every_request_body_in_the_docs_comes_with_examples(client):
    """Without one, Swagger UI makes up a body from the types ("string" for a date), which
    the endpoint refuses: every operation taking a body says what to send."""
    bodies = [
        (path, method)
        for path, method, operation in schema_operations(client)
        if "application/json" in operation.get("requestBody", {}).get("content", {})
        and operation["requestBody"].get("required", True) is not False
    ]
    missing = [
        (path, method)
        for path, method, operation in schema_operations(client)
        if (path, method) in bodies and not request_examples(operation)
    ]
    assert ("/api/assistant/turns", "post") in bodies
    assert missing == []


@pytest.mark.django_db(transaction=True)  # the turn runs its queries on other threads
@pytest.mark.parametrize("signed_in", [False, True], ids=["signed-out", "signed-in"])
def test_each_example_of_the_api_docs_is_answered_as_sent(client, settings, signed_in):
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"  # memory down: the answer still comes
    if signed_in:
        from shop.services import shopper_get_or_create

        client.force_login(shopper_get_or_create(username="api-docs-example"))
    sent = []
    for path, method, operation in schema_operations(client):
        for name, body in request_examples(operation).items():
            response = getattr(client, method)(
                path, json.dumps(body), content_type="application/json"
            )
            assert response.status_code == 200, (name, response.status_code, response.content)
            events = response.json()["events"]
            assert events[-1]["type"] == "done" and "error" not in {e["type"] for e in events}
            sent.append(name)
        for parameter in operation.get("parameters", []):
            for name, example in parameter.get("examples", {}).items():
                if not signed_in:
                    continue  # the records are the signed-in shopper's own
                response = getattr(client, method)(path, {parameter["name"]: example["value"]})
                assert response.status_code in (200, 503), (name, response.content)
                assert response.status_code != 400
                sent.append(name)
    assert "AFirstQuestion" in sent and "OnAProductPage" in sent
    assert len(sent) >= (6 if signed_in else 4)
