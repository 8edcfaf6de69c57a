"""The chat panel's socket through the real ASGI stack (origin check, auth, routing), in
process: `Chat` for scripted frames, `Shopper` for a signed-in panel that keeps its session
id and counts its exchanges as the panel does."""

from __future__ import annotations

import asyncio
import io
import json
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from config.asgi import application

# How long a turn may go without sending an event (a hung one fails the test, saying where).
EVENT_TIMEOUT = 30.0
STACKS_BEFORE = 2.0


def _stacks_now() -> str:
    """Every task of the running loop and every thread, where each is waiting."""
    out = io.StringIO()
    out.write(f"tasks {STACKS_BEFORE:g} s before the turn was given up:\n")
    for task in asyncio.all_tasks():
        task.print_stack(limit=12, file=out)
    out.write("threads:\n")
    names = {t.ident: t.name for t in threading.enumerate()}
    for ident, frame in sys._current_frames().items():
        out.write(f"--- thread {names.get(ident, ident)}\n")
        out.write("".join(traceback.format_stack(frame, limit=10)))
    return out.getvalue()


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


@dataclass
class Outcome:
    """What one turn gave the shopper."""

    events: list[dict]
    seconds: float

    def first(self, kind: str) -> dict | None:
        return next((e for e in self.events if e["type"] == kind), None)

    @property
    def session(self) -> dict:
        found = self.first("session")
        assert found is not None, self.events
        return found

    @property
    def answer(self) -> str:
        done = self.first("done")
        return done["text"] if done else ""

    @property
    def written(self) -> list[str]:
        added = self.first("memory.added")
        if not added:
            return []
        return [*added["block_ids"]["turn"], *added["block_ids"]["fact"]]


@dataclass
class Shopper:
    """A signed-in shopper's panel: it keeps its session id and counts its exchanges, as
    the panel does, including through turns that memory could not serve."""

    username: str
    cookie: bytes
    session_id: str | None = None
    turn_count: int = 0
    memory_user: str = ""  # the Agent Memory user the account's memory is filed under
    acknowledged: set[str] = field(default_factory=set)

    async def connect(self) -> WebsocketCommunicator:
        communicator = WebsocketCommunicator(
            application,
            "/ws/assistant/",
            headers=[
                (b"origin", b"http://127.0.0.1"),
                (b"host", b"127.0.0.1"),
                (b"cookie", self.cookie),
            ],
        )
        connected, _ = await communicator.connect()
        assert connected
        return communicator

    async def send(self, communicator: WebsocketCommunicator, text: str) -> float:
        frame = {
            "type": "message",
            "text": text,
            "session_id": self.session_id,
            "turn_count": self.turn_count,
            "session_date": None,
            "retention": None,
        }
        await communicator.send_to(text_data=json.dumps(frame))
        return time.perf_counter()

    async def events(
        self, communicator: WebsocketCommunicator, *, started: float, on_event=None
    ) -> Outcome:
        """Read one turn's events: through memory.added when remembering, else done."""
        events: list[dict] = []
        remembering = False
        while True:
            # Just before a hung turn is cancelled, where every task and thread stands.
            stacks: list[str] = []
            watch = asyncio.get_running_loop().call_later(
                EVENT_TIMEOUT - STACKS_BEFORE, lambda into=stacks: into.append(_stacks_now())
            )
            try:
                event = json.loads(await communicator.receive_from(timeout=EVENT_TIMEOUT))
            except TimeoutError:
                seen = ", ".join(
                    e["type"] + (f"={e['mode']}" if "mode" in e else "") for e in events
                )
                raise AssertionError(
                    f"no event for {EVENT_TIMEOUT:g} s, {time.perf_counter() - started:.1f} s "
                    f"into the turn, after: {seen or 'none'}\n{''.join(stacks)}"
                ) from None
            finally:
                watch.cancel()
            events.append(event)
            if on_event is not None:
                on_event(event)
            if event["type"] == "session":
                remembering = event["mode"] == "remembering"
            finished = event["type"] in ("error", "memory.added") or (
                event["type"] == "done" and not remembering
            )
            if finished:
                break
        outcome = Outcome(events, time.perf_counter() - started)
        if outcome.session["mode"] == "remembering":
            self.session_id = outcome.session["session_id"]
        self.acknowledged.update(outcome.written)
        self.turn_count += 1
        return outcome

    async def turn(self, text: str, *, on_event=None) -> Outcome:
        communicator = await self.connect()
        try:
            started = await self.send(communicator, text)
            return await self.events(communicator, started=started, on_event=on_event)
        finally:
            # A turn that timed out had its application cancelled: no socket to close. An
            # application that failed still raises its error here.
            if not communicator.future.cancelled():
                await communicator.disconnect()
