"""A websocket endpoint that joins a channel-layer group, for testing the layer itself.

    daphne tests.support.layer_probe:application

`/probe/<group>/` joins `<group>` on connect and forwards every `probe.message` the group
gets to the client as `{"text": ..., "pid": <sending process>}`; a text frame
`{"group": g, "text": t}` sends `probe.message` to group `g` from this process. It runs on
the shop's own settings, so the layer is the one `CHANNEL_LAYER_URL` configures.
"""

from __future__ import annotations

import json
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
django_asgi_app = get_asgi_application()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402


class ProbeConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = self.scope["url_route"]["kwargs"]["group"]
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        frame = json.loads(text_data or "{}")
        await self.channel_layer.group_send(
            frame["group"], {"type": "probe.message", "text": frame["text"], "pid": os.getpid()}
        )
        await self.send(text_data=json.dumps({"sent": frame["text"], "pid": os.getpid()}))

    async def probe_message(self, message: dict) -> None:
        await self.send(text_data=json.dumps({"text": message["text"], "pid": message["pid"]}))


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": URLRouter([path("probe/<str:group>/", ProbeConsumer.as_asgi())]),
    }
)
