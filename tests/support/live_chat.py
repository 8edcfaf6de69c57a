"""A shopper's panel talking to a shop served by daphne, over a real websocket."""

from __future__ import annotations

import asyncio
import json

import websockets


async def live_turn(
    *,
    ws_url: str,
    origin: str,
    cookie: str,
    text: str,
    session_id: str | None,
    turn_count: int,
    timeout: float = 60.0,
) -> list[dict]:
    """Open a socket, send one message, return its events: through `memory.added` when the
    turn is remembered, through `done` otherwise (or the `error` that ends it)."""
    frame = {
        "type": "message",
        "text": text,
        "session_id": session_id,
        "turn_count": turn_count,
        "session_date": None,
        "retention": None,
    }
    events: list[dict] = []
    async with websockets.connect(
        ws_url,
        additional_headers={"Cookie": cookie, "Origin": origin},
        open_timeout=timeout,
    ) as socket:
        await socket.send(json.dumps(frame))
        remembering = False
        while True:
            event = json.loads(await asyncio.wait_for(socket.recv(), timeout))
            events.append(event)
            if event["type"] == "session":
                remembering = event["mode"] == "remembering"
            if event["type"] == "error" or event["type"] == "memory.added":
                return events
            if event["type"] == "done" and not remembering:
                return events


def event(events: list[dict], kind: str) -> dict:
    found = [e for e in events if e["type"] == kind]
    assert found, f"no {kind} event in {[e['type'] for e in events]}"
    return found[-1]
