"""The server's door: it answers only to loopback names and the configured ones.

A DNS-rebinding page reaches 127.0.0.1 under its own name (`Host: evil.example`); every
route refuses it, on the direct dispatch and on Django's handler alike, before anything runs.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import httpx
import pytest
from django.core.handlers.asgi import ASGIHandler
from pydantic import ValidationError

from memoryserver.asgi import DirectDispatch
from memoryserver.conf import ServerSettings

EVIL = ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.evil.example"]


def refused_host(response: httpx.Response) -> None:
    assert response.status_code == 400, response.text
    body = response.json()
    assert set(body) == {"error", "message", "details"} and body["error"] == "INVALID_HOST"
    assert "AGENT_MEMORY_SERVER_ALLOWED_HOSTS" in body["message"]


def test_a_foreign_host_is_refused_on_every_route_and_writes_nothing(agentmemory_server, user_id):
    requests = [
        ("GET", "/health", None),
        ("GET", "/users", None),
        ("POST", "/users", {"user_id": user_id, "name": "Eve"}),
        ("POST", f"/users/{user_id}/sessions/s/memory/search", {"query": "q"}),
        ("GET", "/no/such/route", None),  # served by Django's handler, not the direct path
    ]
    with httpx.Client(base_url=agentmemory_server, timeout=10) as client:
        for host in EVIL:
            for method, path, body in requests:
                refused_host(client.request(method, path, json=body, headers={"Host": host}))
        assert client.get(f"/users/{user_id}").status_code == 404


def test_loopback_names_are_answered(agentmemory_server):
    port = urlsplit(agentmemory_server).port
    with httpx.Client(base_url=agentmemory_server, timeout=10) as client:
        for host in ("127.0.0.1", f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
            assert client.get("/health", headers={"Host": host}).status_code == 200, host


# Committed, not rolled back: the views run on other threads with their own connections.
@pytest.mark.django_db(transaction=True, databases=["default", "agentmemory"])
def test_configured_names_pass_on_both_paths_and_others_do_not(settings):
    settings.ROOT_URLCONF = "memoryserver.api.urls"
    settings.MIDDLEWARE = ["memoryserver.api.middleware.DoorMiddleware"]
    settings.AGENT_MEMORY_SERVER_TOKEN = None
    settings.AGENT_MEMORY_SERVER_ALLOWED_HOSTS = ["memory.internal", ".example.org"]
    direct = DirectDispatch(ASGIHandler())

    def status(app, host: str) -> httpx.Response:
        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url=f"http://{host}") as c:
                return await c.get("/users", params={"limit": 1, "offset": 0})

        return asyncio.run(go())

    try:
        for app in (direct, ASGIHandler()):
            for host in ("memory.internal", "memory.internal:8080", "shop.example.org"):
                assert status(app, host).status_code == 200, host
            for host in ("evil.example", "memory.internal.evil.example", "example.org.evil"):
                refused_host(status(app, host))
    finally:
        direct.executor.shutdown(wait=True)


def test_the_setting_reads_comma_separated_names_and_refuses_a_wildcard(monkeypatch):
    monkeypatch.setenv("AGENT_MEMORY_SERVER_ALLOWED_HOSTS", " Memory.Internal, .example.org ,")
    assert ServerSettings().AGENT_MEMORY_SERVER_ALLOWED_HOSTS == ["memory.internal", ".example.org"]
    monkeypatch.setenv("AGENT_MEMORY_SERVER_ALLOWED_HOSTS", "*")
    with pytest.raises(ValidationError, match="wildcard"):
        ServerSettings()
