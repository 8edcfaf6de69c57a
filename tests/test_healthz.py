from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_healthz_reports_memory_unavailable_and_offline_model(client, settings):
    # Nothing listens on port 9 on loopback.
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"app": "ok", "memory": "unavailable", "model": "offline"}


@pytest.mark.django_db
def test_healthz_reports_openai_when_a_key_is_set(client, settings):
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"
    settings.OPENAI_API_KEY = "sk-test"
    assert client.get("/healthz").json()["model"] == "openai"
