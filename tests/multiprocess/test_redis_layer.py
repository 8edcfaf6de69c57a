"""Channels' Redis layer (`CHANNEL_LAYER_URL`) carries a group message between processes.

A shopper's panels can be held by different daphne processes; a message for the shopper's
group sent by one process (an erase in the admin, a delete in another tab) must reach a
socket the other one holds. The in-memory layer cannot do that; Redis must.
"""

from __future__ import annotations

import asyncio
import json
import secrets

import pytest
import websockets

from tests.support.daphne import daphne_start


@pytest.fixture(scope="module")
def two_processes(redis_server, tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("redis-layer")
    env = {"CHANNEL_LAYER_URL": redis_server.url, "AISLE_VAR_DIR": str(log_dir)}
    shops = [daphne_start("tests.support.layer_probe:application", env=env, log_dir=log_dir)]
    shops.append(daphne_start("tests.support.layer_probe:application", env=env, log_dir=log_dir))
    yield shops
    for shop in shops:
        shop.stop()


async def _receive(socket, timeout: float = 10.0) -> dict:
    return json.loads(await asyncio.wait_for(socket.recv(), timeout))


@pytest.mark.parametrize("direction", ["A to B", "B to A"])
async def test_a_group_message_crosses_processes(two_processes, direction):
    sender, listener = two_processes if direction == "A to B" else two_processes[::-1]
    group = f"memory.shopper.{secrets.token_hex(8)}"
    async with (
        websockets.connect(listener.ws_url(f"/probe/{group}/")) as panel,
        websockets.connect(sender.ws_url("/probe/unrelated/")) as admin,
    ):
        await admin.send(json.dumps({"group": group, "text": "memory erased"}))
        sent = await _receive(admin)
        received = await _receive(panel)
    assert received["text"] == "memory erased"
    assert received["pid"] == sent["pid"] == sender.process.pid != listener.process.pid


async def test_a_group_message_reaches_only_its_group(two_processes):
    shop_a, shop_b = two_processes
    mine, other = (f"memory.shopper.{secrets.token_hex(8)}" for _ in range(2))
    async with (
        websockets.connect(shop_b.ws_url(f"/probe/{mine}/")) as my_panel,
        websockets.connect(shop_b.ws_url(f"/probe/{other}/")) as other_panel,
        websockets.connect(shop_a.ws_url("/probe/unrelated/")) as admin,
    ):
        await admin.send(json.dumps({"group": mine, "text": "for me"}))
        await _receive(admin)
        assert (await _receive(my_panel))["text"] == "for me"
        # The other shopper's panel hears nothing; a message of its own then arrives first.
        await admin.send(json.dumps({"group": other, "text": "for them"}))
        assert (await _receive(other_panel))["text"] == "for them"
