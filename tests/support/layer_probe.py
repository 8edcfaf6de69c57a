"""A stand-in panel socket for testing the channel layer across processes.

    daphne tests.support.layer_probe:application

`/probe/<account id>/` joins the shopper's group
(`assistant.protocol.panels.shopper_group`), as the chat panel's consumer does, and forwards
every `memory.changed` message the group gets to the client. A text frame
`{"account_id": n, "session_ids": [...]}` sends `memory.changed` ("erased") to account n's
panels from this process through `assistant.protocol.panels`, as the admin, the records API
or `forget_shopper` do, and answers `{"sent": true, "pid": ...}`. It runs on the shop's own
settings, so the layer is the one `CHANNEL_LAYER_URL` configures.
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

from assistant.protocol.panels import memory_changed_send_async, shopper_group  # noqa: E402


class ProbeConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = shopper_group(self.scope["url_route"]["kwargs"]["account_id"])
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        frame = json.loads(text_data or "{}")
        sent = await memory_changed_send_async(
            account_id=frame["account_id"], reason="erased", session_ids=frame["session_ids"]
        )
        await self.send(text_data=json.dumps({"sent": sent, "pid": os.getpid()}))

    async def memory_changed(self, message: dict) -> None:
        await self.send(text_data=json.dumps({**message, "pid": os.getpid()}))


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": URLRouter([path("probe/<int:account_id>/", ProbeConsumer.as_asgi())]),
    }
)
