"""The shop's own process killed mid-turn: its turn record is marked interrupted, not left
looking like a turn that is still running or one that saved nothing by choice.

daphne and the embedded memory server run as `make run` runs them, on free loopback ports
with a database in a temporary folder; a signed-in shopper's turn is streaming (the offline
model slowed down) when daphne gets SIGKILL; the next start (`make run` runs
`mark_interrupted_turns --at-start` before serving) marks the record.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import websockets

from harness.daphne import daphne_start
from harness.memoryserver import agentmemory_process_start

pytestmark = pytest.mark.fault
ROOT = Path(__file__).resolve().parents[2]


def shop_env(var: Path, memory_url: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "TEST_DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "AISLE_VAR_DIR": str(var),
            "AGENT_MEMORY_URL": memory_url,
            "AGENT_MEMORY_TOKEN": "",
            "OPENAI_API_KEY": "",
            "OFFLINE_MODEL_STREAM_DELAY_MS": "400",  # a turn streams for many seconds
        }
    )
    return env


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def session_cookie(base: str) -> str:
    with httpx.Client(base_url=base, timeout=30) as client:
        page = client.get("/signin/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        signed = client.post(
            "/signin/",
            data={"username": "crash-shopper", "csrfmiddlewaretoken": token},
            headers={"Origin": base, "Referer": f"{base}/signin/"},
        )
        assert signed.status_code == 302, signed.text
        return "; ".join(f"{k}={v}" for k, v in client.cookies.items())


async def turn_until_streaming(port: int, cookie: str) -> None:
    async with websockets.connect(
        f"ws://127.0.0.1:{port}/ws/assistant/",
        additional_headers={"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"},
        open_timeout=30,
    ) as socket:
        await socket.send(json.dumps({"type": "message", "text": "show me rain jackets"}))
        while True:
            event = json.loads(await asyncio.wait_for(socket.recv(), timeout=60))
            assert event["type"] not in {"done", "error"}, event
            if event["type"] == "token":
                return  # the answer is streaming: the turn's record is open


def turn_records(database: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(database) as connection:
        return connection.execute(
            "SELECT error, timings FROM assistant_chatturn ORDER BY id"
        ).fetchall()


@pytest.mark.timeout(300)
def test_a_turn_cut_by_a_crash_of_the_shop_is_marked_interrupted(tmp_path):
    memory = agentmemory_process_start(tmp_path / "memory")
    var = tmp_path / "var"
    env = shop_env(var, memory.base_url)
    try:
        manage(env, "migrate", "--noinput", "-v", "0")
        shop = daphne_start("config.asgi:application", env=env, log_dir=tmp_path)
        port = shop.port
        try:
            base = shop.http_url
            asyncio.run(turn_until_streaming(port, session_cookie(base)))
        finally:
            shop.process.send_signal(signal.SIGKILL)
            shop.process.wait(timeout=30)

        # Cut: the record was opened and never finished.
        assert turn_records(var / "aisle.sqlite3") == [("", "{}")]

        out = manage(env, "mark_interrupted_turns", "--at-start")
        assert "1 turn(s) cut by a stop marked interrupted" in out
        [(error, timings)] = turn_records(var / "aisle.sqlite3")
        assert error.startswith("interrupted: the shop stopped before this turn finished")
        assert json.loads(timings) == {"interrupted": True}
        # Marked once: a second start finds nothing to mark.
        assert "marked" not in manage(env, "mark_interrupted_turns", "--at-start")
    finally:
        memory.stop()
