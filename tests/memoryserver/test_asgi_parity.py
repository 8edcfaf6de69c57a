"""`asgi.DirectDispatch` answers exactly as Django's own ASGI handler does.

The direct dispatch re-implements the part of Django's handler the API's routes need (body
reading, routing, the bearer check, running the view, sending the response). Each request
here goes through both, in process on the server's URLconf and middleware, and must come
back with the same status, headers and bytes.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import httpx
import pytest
from django.core.handlers.asgi import ASGIHandler

from memoryserver.asgi import DirectDispatch
from memoryserver.index.registry import get_registry
from tests.support.memoryserver_stock import blocks_stocked, user_stocked

# Committed, not rolled back: the views run on other threads with their own connections.
pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "agentmemory"])

USER = "parity-user"
SESSION = f"/users/{USER}/sessions/s"


class CountingFallback:
    """Django's handler behind the direct dispatch, noting the paths handed to it."""

    def __init__(self, app: ASGIHandler) -> None:
        self.app = app
        self.paths: list[str] = []

    async def __call__(self, scope, receive, send) -> None:
        self.paths.append(scope["path"])
        await self.app(scope, receive, send)


@dataclass
class Handlers:
    direct: DirectDispatch
    plain: ASGIHandler
    fell_back: list[str]


@pytest.fixture
def handlers(settings):
    """The direct dispatch and Django's plain handler, on the server's URLconf and middleware."""
    settings.ROOT_URLCONF = "memoryserver.api.urls"
    settings.MIDDLEWARE = ["memoryserver.api.middleware.DoorMiddleware"]
    settings.AGENT_MEMORY_SERVER_TOKEN = None
    settings.AGENT_MEMORY_SERVER_ALLOWED_HOSTS = ["testserver"]
    get_registry().clear()
    user_stocked(USER, name="Parity")
    blocks_stocked(
        USER, "s", ["Prefers red trail shoes", "Wears size 42"], annotations={"type": "fact"}
    )
    fallback = CountingFallback(ASGIHandler())
    direct = DirectDispatch(fallback)
    yield Handlers(direct=direct, plain=ASGIHandler(), fell_back=fallback.paths)
    direct.executor.shutdown(wait=True)
    get_registry().clear()


def answer(app, method: str, path: str, **kwargs) -> tuple[int, dict[str, str], bytes]:
    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            return await client.request(method, path, **kwargs)

    response = asyncio.run(send())
    return response.status_code, dict(response.headers), response.content


def both(handlers: Handlers, method: str, path: str, **kwargs):
    return (
        answer(handlers.direct, method, path, **kwargs),
        answer(handlers.plain, method, path, **kwargs),
    )


def test_a_search_is_answered_alike(handlers):
    body = {"query": "red shoes", "filters": {"annotations": {"type": "fact"}, "relevant_k": 5}}
    direct, plain = both(handlers, "POST", f"{SESSION}/memory/search", json=body)
    assert direct == plain
    status, headers, content = direct
    found = json.loads(content)
    assert status == 200 and headers["content-type"] == "application/json"
    assert found["count"] == 2 and found["memory_blocks"][0]["fact"] == "Prefers red trail shoes"
    assert handlers.fell_back == []  # served by the direct path, not Django's handler


def test_an_add_is_answered_alike_but_for_the_new_block_id(handlers):
    body = {"facts": ["Likes the Storm Shell"], "context_required": False}
    direct, plain = both(handlers, "POST", f"{SESSION}/memory", json=body)
    ids = [json.loads(content)["block_ids"][0] for _, _, content in (direct, plain)]
    assert ids[0] != ids[1]
    assert direct[:2] == plain[:2] and direct[0] == 201
    assert direct[2].replace(ids[0].encode(), b"ID") == plain[2].replace(ids[1].encode(), b"ID")
    assert handlers.fell_back == []
    searched = answer(handlers.direct, "POST", f"{SESSION}/memory/search", json={"query": "Storm"})
    assert {b["block_id"] for b in json.loads(searched[2])["memory_blocks"]} >= set(ids)


ERRORS = [
    ("GET", "/users/nobody", {}, 404, "USER_NOT_FOUND"),
    ("GET", f"{SESSION}/nowhere/at/all", {}, 404, "NOT_FOUND"),
    ("POST", "/users", {"json": {"user_id": " ", "name": 5}}, 422, "VALIDATION_ERROR"),
    (
        "POST",
        "/users",
        {"content": b"{oops", "headers": {"Content-Type": "application/json"}},
        400,
        "INVALID_REQUEST",
    ),
    ("DELETE", "/users", {}, 405, "METHOD_NOT_ALLOWED"),
]


def test_errors_are_answered_alike(handlers):
    for method, path, kwargs, status, code in ERRORS:
        direct, plain = both(handlers, method, path, **kwargs)
        assert direct == plain, (method, path)
        assert (direct[0], json.loads(direct[2])["error"]) == (status, code)
    # Only the route the API does not have went on to Django's handler.
    assert handlers.fell_back == [f"{SESSION}/nowhere/at/all"]


def test_the_bearer_check_is_answered_alike(handlers, settings):
    settings.AGENT_MEMORY_SERVER_TOKEN = "s3cret"
    for authorization, status, code in [
        (None, 401, "AUTHENTICATION_REQUIRED"),
        ("Bearer wrong", 401, "INVALID_TOKEN"),
        ("Bearer s3cret", 200, None),
    ]:
        headers = {"Authorization": authorization} if authorization else {}
        direct, plain = both(handlers, "GET", f"/users/{USER}", headers=headers)
        assert direct == plain, authorization
        assert (direct[0], json.loads(direct[2]).get("error")) == (status, code)
    assert handlers.fell_back == []
