"""The fault rig: the embedded memory server in its own process, behind a loopback proxy.

The shop (in this process, through the real ASGI stack) talks to the proxy; the proxy can
make the server slow, and the server can be killed with SIGKILL and started again on the
same data. Every test checks the same three things:
- every turn gets its answer (`done` with text), whatever memory does;
- every block the shop was told was written (`memory.added`) is still there afterwards;
- after recovery the client re-sends its session id and the visit goes on in that session.
Figures for docs/reliability.md are printed at the end of the run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from agentmemory import AgentMemoryClient
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from memoryapp.guard import outages
from shop.services import shopper_get_or_create
from tests.assistant.conftest import session_cookie_for
from tests.support.agentmemory_server import MemoryServerProcess, agentmemory_process_start
from tests.support.fault_figures import Figures
from tests.support.fault_proxy import FaultProxy


class MemoryRig:
    """One memory server at a time on one data directory, reached through `proxy`."""

    def __init__(self, data_dir, **env: str) -> None:
        self.data_dir = data_dir
        self.env = env
        self.server: MemoryServerProcess | None = None
        self.proxy: FaultProxy | None = None
        self.restarts = 0

    def start(self) -> None:
        self.server = agentmemory_process_start(self.data_dir, **self.env)
        if self.proxy is None:
            self.proxy = FaultProxy(upstream_port=self.server.port).start()
        self.proxy.upstream_port = self.server.port

    def alive(self) -> bool:
        return self.server is not None and self.server.process.poll() is None

    def kill9(self) -> None:
        assert self.server is not None
        self.server.kill()

    def restart(self) -> None:
        if self.alive():
            self.kill9()
        self.start()
        self.restarts += 1

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
        if self.proxy is not None:
            self.proxy.stop()

    def block_ids(self, username: str) -> set[str]:
        """Every block the server holds for the shopper, straight from the server."""
        assert self.server is not None
        with AgentMemoryClient(base_url=self.server.base_url, max_retries=0, timeout=10) as client:
            user = client.get_user(username)
            ids: set[str] = set()
            offset = 0
            while True:
                page = user.list_memories(limit=200, offset=offset)
                ids.update(b.block_id for b in page.memory_blocks)
                offset += page.count
                if page.count == 0 or offset >= (page.total or 0):
                    return ids

    def session_ids(self, username: str) -> list[str]:
        assert self.server is not None
        with AgentMemoryClient(base_url=self.server.base_url, max_retries=0, timeout=10) as client:
            return [s.session_id for s in client.get_user(username).list_sessions().sessions]


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    memory = MemoryRig(tmp_path_factory.mktemp("fault-memory"))
    memory.start()
    yield memory
    memory.stop()


@pytest.fixture
def memory(rig, settings):
    """The rig, up, fast, and the shop pointed at its proxy."""
    if not rig.alive():
        rig.start()
    rig.proxy.request_delay = rig.proxy.response_delay = 0.0
    rig.proxy.request_delay_for = None
    settings.AGENT_MEMORY_URL = rig.proxy.url
    settings.AGENT_MEMORY_TOKEN = None
    outages.reset()
    yield rig
    rig.proxy.request_delay = rig.proxy.response_delay = 0.0
    rig.proxy.request_delay_for = None


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
            event = json.loads(await communicator.receive_from(timeout=30))
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
            await communicator.disconnect()


@pytest.fixture
def new_shopper(shopper_name):
    """A fresh demo shopper, signed in, with a panel that has no session yet."""
    made = 0

    async def make() -> Shopper:
        nonlocal made
        made += 1
        username = f"f{made}-{shopper_name[-20:].strip('-')}"[:30].rstrip("-")
        await database_sync_to_async(shopper_get_or_create)(username=username)
        cookie = await database_sync_to_async(session_cookie_for)(username)
        return Shopper(username=username, cookie=cookie)

    return make


@pytest.fixture
def figures(request) -> Iterator[Figures]:
    """One test's figures, handed to the run's summary on its report (fault_figures.py)."""
    mine = Figures()
    yield mine
    request.node.user_properties.append(mine.as_property())
