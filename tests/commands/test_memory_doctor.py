"""memory_doctor: configuration, component health and a round trip, with a clear verdict."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memoryapp.clients import memory_client_sync


def test_a_healthy_server_passes_every_check(live_memory):
    out = StringIO()
    call_command("memory_doctor", stdout=out)
    text = out.getvalue()
    assert f"AGENT_MEMORY_URL               {live_memory.base_url}" in text
    assert "AGENT_MEMORY_TOKEN             not set" in text
    assert "offline model" in text and "embedded" in text
    for component in ("server", "couchbase", "models", "async-batch-processor", "memory"):
        assert f"✔ health: {component}:" in text
    for step in ("create session", "write a fact", "search it back", "delete the user"):
        assert f"✔ {step}:" in text
    assert "✘" not in text and "Agent Memory is healthy (12 checks)." in text
    # The throwaway user is gone again.
    with memory_client_sync() as client:
        assert not [u for u in client.list_users(limit=500).users if u.id.startswith("doctor-")]


def test_a_dead_server_fails_with_a_non_zero_exit(settings):
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"
    out = StringIO()
    with pytest.raises(CommandError) as raised:
        call_command("memory_doctor", stdout=out)
    assert raised.value.returncode != 0
    assert "does not answer" in str(raised.value)
    assert "✘ health: server: no answer" in out.getvalue()
    # Nothing to round-trip against: no write is attempted.
    assert "write a fact" not in out.getvalue()
