"""Channels' Redis layer (`CHANNEL_LAYER_URL`) carries `memory.changed` between processes.

A shopper's panels can be held by different daphne processes; the message that their
memory was erased, sent by one process (the admin, the records API, another tab), must reach
a socket the other process holds, in the shopper's group (`assistant.protocol.panels`). The
in-memory layer cannot do that; Redis must. A stand-in consumer joins the group here
(`tests/support/layer_probe.py`), exactly as the panel's consumer does.
"""

from __future__ import annotations

import asyncio
import json
import secrets

import pytest
import websockets

from harness.daphne import daphne_start

PROBE = "tests.support.layer_probe:application"


@pytest.fixture(scope="module")
def two_processes(redis_server, tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("redis-layer")
    env = {"CHANNEL_LAYER_URL": redis_server.url, "AISLE_VAR_DIR": str(log_dir)}
    shops = [daphne_start(PROBE, env=env, log_dir=log_dir)]
    shops.append(daphne_start(PROBE, env=env, log_dir=log_dir))
    yield shops
    for shop in shops:
        shop.stop()


async def _receive(socket, timeout: float = 10.0) -> dict:
    return json.loads(await asyncio.wait_for(socket.recv(), timeout))


@pytest.mark.parametrize("direction", ["A to B", "B to A"])
async def test_memory_changed_reaches_a_panel_held_by_the_other_process(two_processes, direction):
    sender, holder = two_processes if direction == "A to B" else two_processes[::-1]
    account = secrets.randbelow(10**9) + 10**9
    async with (
        websockets.connect(holder.ws_url(f"/probe/{account}/")) as panel,
        websockets.connect(sender.ws_url("/probe/1/")) as admin,
    ):
        await admin.send(json.dumps({"account_id": account, "session_ids": ["session3"]}))
        ack = await _receive(admin)
        received = await _receive(panel)
    assert ack == {"sent": True, "pid": sender.process.pid}
    assert received == {
        "type": "memory.changed",
        "reason": "erased",
        "session_ids": ["session3"],
        "block_id": None,
        "pid": holder.process.pid,
    }


async def test_memory_changed_reaches_only_that_shoppers_panels(two_processes):
    shop_a, shop_b = two_processes
    ann, ben = (secrets.randbelow(10**9) + 10**9 for _ in range(2))
    async with (
        websockets.connect(shop_b.ws_url(f"/probe/{ann}/")) as ann_panel,
        websockets.connect(shop_b.ws_url(f"/probe/{ben}/")) as ben_panel,
        websockets.connect(shop_a.ws_url("/probe/2/")) as admin,
    ):
        await admin.send(json.dumps({"account_id": ann, "session_ids": ["session1"]}))
        await _receive(admin)
        assert (await _receive(ann_panel))["session_ids"] == ["session1"]
        # Ben's panel heard nothing of Ann's erase: the first message it gets is its own.
        await admin.send(json.dumps({"account_id": ben, "session_ids": ["session7"]}))
        await _receive(admin)
        assert (await _receive(ben_panel))["session_ids"] == ["session7"]
