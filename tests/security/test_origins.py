"""One origin rule (scheme, host and port) for the chat websocket and the REST API.

A page on another port or scheme of the same machine is another site: it must not chat as
the signed-in shopper, read their memory back or plant facts.
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from config.asgi import application
from harness.fake_openai import Reply
from tests.support.chat import session_cookie_for

HOST = "127.0.0.1:8000"
OWN = f"http://{HOST}"
FOREIGN = [
    "http://127.0.0.1:9999",  # another port of the same host
    "http://127.0.0.1",  # the default port is another port
    "http://localhost:1",
    "https://127.0.0.1:8000",  # another scheme
    "https://127.0.0.1",  # another scheme and port
    "http://evil.example",
    "http://127.0.0.1:8000.evil.example",
    "null",  # sandboxed frames and file:// pages
]


def handshake(origin: str | None, *, cookie: bytes | None, scheme: str = "ws"):
    headers = [(b"host", HOST.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if cookie:
        headers.append((b"cookie", cookie))
    communicator = WebsocketCommunicator(application, "/ws/assistant/", headers=headers)
    communicator.scope["scheme"] = scheme
    return communicator


@pytest.mark.django_db(transaction=True)
class TestWebsocket:
    async def _connects(self, origin: str | None, *, scheme: str = "ws") -> bool:
        cookie = await _cookie("ann")
        communicator = handshake(origin, cookie=cookie, scheme=scheme)
        connected, _ = await communicator.connect()
        await communicator.disconnect()
        return connected

    async def test_the_pages_own_origin_is_accepted(self):
        assert await self._connects(OWN)

    async def test_a_page_served_over_https_opens_wss(self):
        assert await self._connects(f"https://{HOST}", scheme="wss")
        assert not await self._connects(OWN, scheme="wss")

    @pytest.mark.parametrize("origin", FOREIGN)
    async def test_a_foreign_origin_is_refused_with_the_shoppers_cookie(self, origin):
        assert not await self._connects(origin)

    async def test_a_handshake_without_origin_is_refused(self):
        assert not await self._connects(None)

    async def test_a_trusted_origin_is_accepted(self, settings):
        # Behind a proxy the page's origin is the public name, not the Host daphne sees.
        settings.CSRF_TRUSTED_ORIGINS = ["https://shop.example.com"]
        assert await self._connects("https://shop.example.com")
        assert not await self._connects("https://other.example.com")

    async def test_a_host_outside_allowed_hosts_has_no_own_origin(self, settings):
        settings.ALLOWED_HOSTS = ["shop.example.com"]
        assert not await self._connects(OWN)


async def _cookie(username: str) -> bytes:
    return await sync_to_async(session_cookie_for)(username)


@pytest.mark.django_db
class TestRestWrite:
    """A signed-in REST turn: the CSRF token is right, only the origin differs.

    A turn that runs needs its writes committed (the pipeline's threads use their own
    connections); a refused one writes nothing, so it can stay in the test's transaction.
    """

    def _post(self, *, origin: str | None, signed_in: bool = True, **extra):
        client = Client(enforce_csrf_checks=True, HTTP_HOST=HOST)
        if signed_in:
            client.force_login(get_user_model().objects.get(username="ann"))
        client.get("/")
        headers = {"HTTP_X_CSRFTOKEN": client.cookies["csrftoken"].value, **extra}
        if origin is not None:
            headers["HTTP_ORIGIN"] = origin
        return client.post(
            "/api/assistant/turns", {"text": "hello"}, content_type="application/json", **headers
        )

    @pytest.mark.django_db(transaction=True)
    def test_the_pages_own_origin_is_accepted(self, fake_openai, memory_down):
        fake_openai.script("assistant", Reply(text="Hello Ann."))
        response = self._post(origin=OWN)
        assert response.status_code == 200
        assert response.json()["events"][-1]["text"] == "Hello Ann."

    @pytest.mark.parametrize("origin", FOREIGN)
    def test_a_foreign_origin_is_refused(self, fake_openai, memory_down, origin):
        response = self._post(origin=origin)
        assert response.status_code == 403
        assert response.json()["detail"] == "Cross-origin request refused."
        assert fake_openai.requests == []

    @pytest.mark.parametrize("origin", ["http://127.0.0.1:9999", "https://127.0.0.1:8000"])
    def test_a_foreign_origin_cannot_drive_a_signed_out_turn(self, fake_openai, origin):
        response = self._post(origin=origin, signed_in=False)
        assert response.status_code == 403 and fake_openai.requests == []

    def test_a_foreign_referer_without_origin_is_refused(self, fake_openai, memory_down):
        response = self._post(origin=None, HTTP_REFERER="http://127.0.0.1:9999/page")
        assert response.status_code == 403 and fake_openai.requests == []

    @pytest.mark.django_db(transaction=True)
    def test_without_origin_the_csrf_token_decides(self, fake_openai, memory_down):
        # Not a browser acting for a page (curl, an API client): CSRF still applies.
        fake_openai.script("assistant", Reply(text="Hello Ann."))
        assert self._post(origin=None).status_code == 200
        client = Client(enforce_csrf_checks=True, HTTP_HOST=HOST)
        client.force_login(get_user_model().objects.get(username="ann"))
        refused = client.post(
            "/api/assistant/turns", {"text": "hi"}, content_type="application/json"
        )
        assert refused.status_code == 403

    @pytest.mark.django_db(transaction=True)
    def test_a_trusted_origin_is_accepted(self, fake_openai, memory_down, settings):
        settings.CSRF_TRUSTED_ORIGINS = ["https://shop.example.com"]
        fake_openai.script("assistant", Reply(text="Hello Ann."))
        assert self._post(origin="https://shop.example.com").status_code == 200

    def test_reads_are_not_checked(self):
        # Browsers do not let another origin read the answer (no CORS headers are sent).
        client = Client(HTTP_HOST=HOST)
        assert client.get("/", HTTP_ORIGIN="http://evil.example").status_code == 200
