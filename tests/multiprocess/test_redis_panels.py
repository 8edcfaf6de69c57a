"""An erase run from a terminal reaches the shopper's open panel through Redis.

The shop runs in daphne with Channels' Redis layer; `forget_shopper` runs as a process of
its own, as staff would run it. Only the Redis layer connects the two: the panel held by
daphne must be told its session is gone (so it never resumes it), and nobody else's panel
hears of it.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys

import pytest
import websockets
from channels.db import database_sync_to_async
from django.conf import settings

from harness.daphne import ROOT, daphne_start
from shop.services import shopper_get_or_create
from tests.support.chat import session_cookie_for
from tests.support.live_chat import event, live_turn

pytestmark = pytest.mark.django_db(transaction=True)


def _database_url() -> str:
    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.postgresql":
        return (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/"
            f"{database['NAME']}"
        )
    return f"sqlite:///{database['NAME']}"


@pytest.fixture
def shop_env(redis_server, live_memory, tmp_path) -> dict[str, str]:
    return {
        "CHANNEL_LAYER_URL": redis_server.url,
        "DATABASE_URL": _database_url(),
        "AGENT_MEMORY_URL": live_memory.base_url,
        "AGENT_MEMORY_TOKEN": "",
        "AISLE_VAR_DIR": str(tmp_path),
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
    }


@pytest.fixture
def shop(shop_env, tmp_path):
    process = daphne_start("config.asgi:application", env=shop_env, log_dir=tmp_path)
    yield process
    process.stop()


async def _shopper() -> tuple[str, str]:
    username = f"redis-{secrets.token_hex(4)}"
    await database_sync_to_async(shopper_get_or_create)(username=username)
    cookie = (await database_sync_to_async(session_cookie_for)(username)).decode()
    return username, cookie


def _forget(username: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    inherited = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "CHANNEL_", "TEST_DATABASE"))
    }
    return subprocess.run(
        [sys.executable, "manage.py", "forget_shopper", username, "--yes"],
        cwd=ROOT,
        env={**inherited, "DJANGO_SETTINGS_MODULE": "config.settings.base", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_forget_shopper_in_another_process_reaches_the_open_panel(shop, shop_env):
    ann, ann_cookie = await _shopper()
    _, ben_cookie = await _shopper()
    events = await live_turn(
        ws_url=shop.ws_url("/ws/assistant/"),
        origin=shop.origin,
        cookie=ann_cookie,
        text="I'm a size M, show me jeans",
        session_id=None,
        turn_count=0,
    )
    session = event(events, "session")
    assert session["mode"] == "remembering", shop.log_tail()

    headers = {"Origin": shop.origin}
    async with (
        websockets.connect(
            shop.ws_url("/ws/assistant/"), additional_headers={**headers, "Cookie": ann_cookie}
        ) as ann_panel,
        websockets.connect(
            shop.ws_url("/ws/assistant/"), additional_headers={**headers, "Cookie": ben_cookie}
        ) as ben_panel,
    ):
        # A hello answered means the consumer has joined the shopper's group.
        for panel in (ann_panel, ben_panel):
            await panel.send(json.dumps({"type": "hello"}))
            assert json.loads(await asyncio.wait_for(panel.recv(), 30))["type"] == "welcome"

        done = await asyncio.to_thread(_forget, ann, shop_env)
        assert done.returncode == 0, done.stdout + done.stderr

        changed = json.loads(await asyncio.wait_for(ann_panel.recv(), 30))
        assert changed["type"] == "memory.changed" and changed["reason"] == "erased"
        assert session["session_id"] in changed["session_ids"]
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(ben_panel.recv(), 1.0)
