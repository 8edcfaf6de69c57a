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

from collections.abc import Iterator

import pytest
from channels.db import database_sync_to_async

from memoryapp.guard import outages
from shop.services import shopper_get_or_create
from tests.support.chat import Shopper, session_cookie_for
from tests.support.fault_figures import Figures
from tests.support.memory_rig import MemoryRig
from tests.support.shopper_memory import memory_user_of_async


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
        memory_user = await memory_user_of_async(username)
        return Shopper(username=username, cookie=cookie, memory_user=memory_user)

    return make


@pytest.fixture
def figures(request) -> Iterator[Figures]:
    """One test's figures, handed to the run's summary on its report (fault_figures.py)."""
    mine = Figures()
    yield mine
    request.node.user_properties.append(mine.as_property())
