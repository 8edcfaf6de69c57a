"""The REST API describes itself: an OpenAPI schema and DRF's browsable pages (offline)."""

from __future__ import annotations

import pytest
import yaml

pytestmark = pytest.mark.django_db


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
