from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from config.asgi import application
from tests.assistant.servers import MemoryProxy, SlowModel
from tests.support.fake_openai import FakeOpenAI


@pytest.fixture
def fake_openai(settings):
    fake = FakeOpenAI().start()
    settings.OPENAI_API_KEY = "sk-test"
    settings.OPENAI_BASE_URL = fake.base_url
    settings.ASSISTANT_MODEL = "gpt-test"
    settings.JUDGE_MODEL = "gpt-test-judge"
    yield fake
    fake.stop()


@pytest.fixture
def slow_model(settings):
    """A model whose next `slow_model.slow` answers stream slowly enough to be stopped."""
    model = SlowModel().start()
    settings.OPENAI_API_KEY = "sk-test"
    settings.OPENAI_BASE_URL = model.base_url
    settings.ASSISTANT_MODEL = "gpt-slow"
    settings.JUDGE_MODEL = "gpt-slow-judge"
    yield model
    model.stop()


@pytest.fixture
def memory_proxy(live_memory, settings):
    """The live memory server behind a proxy that fails the requests a test chooses."""
    proxy = MemoryProxy(live_memory.base_url).start()
    settings.AGENT_MEMORY_URL = proxy.address
    yield proxy
    proxy.stop()


@pytest.fixture
def shopper(shopper_name, django_db_blocker):
    """A fresh signed-in shopper named Tess, so tests sharing one memory server never meet."""
    from shop.services import shopper_get_or_create

    username = shopper_name[:30].rstrip("-")
    with django_db_blocker.unblock():
        shopper_get_or_create(username=username, display_name="Tess")
        cookie = session_cookie_for(username)
    return username, cookie


@pytest.fixture
def memory_down(settings):
    # Nothing listens on the discard port: connections are refused at once.
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"


def session_cookie_for(username: str) -> bytes:
    user = get_user_model().objects.get(username=username)
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def cookie_for(username: str) -> bytes:
    return await sync_to_async(session_cookie_for)(username)


class Chat:
    """A websocket chat through the real ASGI stack (origin check, auth, routing)."""

    def __init__(self, *, cookie: bytes | None = None, origin: bytes = b"http://127.0.0.1") -> None:
        headers = [(b"origin", origin), (b"host", b"127.0.0.1")]
        if cookie:
            headers.append((b"cookie", cookie))
        self.communicator = WebsocketCommunicator(application, "/ws/assistant/", headers=headers)

    async def __aenter__(self) -> Chat:
        connected, _ = await self.communicator.connect()
        assert connected
        return self

    async def __aexit__(self, *exc) -> None:
        await self.communicator.disconnect()

    async def send(self, frame: dict | str) -> None:
        await self.communicator.send_to(
            text_data=frame if isinstance(frame, str) else json.dumps(frame)
        )

    async def events_until(self, *final: str, timeout: float = 20) -> list[dict]:
        events = []
        while True:
            event = json.loads(await self.communicator.receive_from(timeout=timeout))
            events.append(event)
            if event["type"] in final:
                return events

    async def turn(
        self, text: str, *, timeout: float = 20, until=("memory.added",), **fields
    ) -> list[dict]:
        frame = {
            "type": "message",
            "text": text,
            "session_id": None,
            "turn_count": 0,
            "session_date": None,
            "retention": None,
        }
        frame.update(fields)
        await self.send(frame)
        return await self.events_until(*until, "error", timeout=timeout)


def types(events: list[dict]) -> list[str]:
    collapsed: list[str] = []
    for event in events:
        if event["type"] == "token" and collapsed and collapsed[-1] == "token":
            continue
        collapsed.append(event["type"])
    return collapsed
