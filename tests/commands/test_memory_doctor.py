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
    for component in ("server", "models", "async-batch-processor", "memory"):
        assert f"✔ health: {component}:" in text
    # The embedded server's store is a SQLite file, and the doctor says so.
    assert "✔ health: database (sqlite): healthy, " in text and "couchbase" not in text
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
    assert "✘ health: database: no answer" in out.getvalue()
    # Nothing to round-trip against: no write is attempted.
    assert "write a fact" not in out.getvalue()


@pytest.mark.parametrize(
    ("url", "advice"),
    [
        (
            "http://127.0.0.1:9",
            "Start it with `python manage.py agentmemory --host 127.0.0.1 --port 9`",
        ),
        ("http://localhost:8124", "`python manage.py agentmemory --host 127.0.0.1 --port 8124`"),
        ("http://memory.invalid:8080", "Check that server, or fix AGENT_MEMORY_URL"),
    ],
)
def test_the_advice_for_a_dead_server_uses_the_configured_url(settings, url, advice):
    """Following the advice starts a server where the shop looks for one, not on 8080."""
    settings.AGENT_MEMORY_URL = url
    with pytest.raises(CommandError) as raised:
        call_command("memory_doctor", "--timeout", "1", stdout=StringIO())
    assert advice in str(raised.value)
    if "8080" not in url:
        assert "8080" not in str(raised.value)
