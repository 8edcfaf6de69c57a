"""An open chat panel as the channel layer sees it: a channel in the shopper's group."""

from __future__ import annotations

import asyncio

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from assistant.protocol.panels import shopper_group

# No account has this primary key: a panel that stands for nobody's.
NOBODY = 0


def account_id_of(username: str) -> int:
    """The primary key of the account named `username`: its panels' group is named by it."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.values_list("pk", flat=True).get(username=username)


class PanelListener:
    """Join the account's group on the configured (in-memory) layer and collect what arrives."""

    def __init__(self, account_id: int) -> None:
        self.layer = get_channel_layer()
        async_to_sync(self.join)(account_id)

    async def join(self, account_id: int) -> None:
        self.channel = await self.layer.new_channel()
        await self.layer.group_add(shopper_group(account_id), self.channel)

    @classmethod
    async def opened(cls, account_id: int) -> PanelListener:
        """The same, from async code."""
        panel = cls.__new__(cls)
        panel.layer = get_channel_layer()
        await panel.join(account_id)
        return panel

    async def received_async(self, wait: float = 0.2) -> list[dict]:
        messages = []
        while True:
            try:
                messages.append(await asyncio.wait_for(self.layer.receive(self.channel), wait))
            except TimeoutError:
                return messages

    def received(self, wait: float = 0.2) -> list[dict]:
        """Every message delivered so far (waiting up to `wait` for each next one)."""
        return async_to_sync(self.received_async)(wait)
