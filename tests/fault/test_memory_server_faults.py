"""kill -9, restarts, a slow server and a full disk under the memory server, mid-visit.

Loopback only; a handful of turns per scenario. What is lost, and why, is written down in
docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from memoryapp.conf import memory_conf
from memoryapp.sessions import SESSION_OPEN_CAP
from tests.support.chat import Outcome, Shopper
from tests.support.fault_figures import Figures
from tests.support.memory_rig import MemoryRig

pytestmark = [pytest.mark.fault, pytest.mark.django_db(transaction=True)]


def assert_kept(rig: MemoryRig, shopper: Shopper, figures: Figures, scenario: str) -> None:
    """Every block the shop was told was written is on the server (after any restart)."""
    found = rig.block_ids(shopper.memory_user)
    figures.kept(
        scenario,
        acknowledged=len(shopper.acknowledged),
        found=len(shopper.acknowledged & found),
        unacknowledged=len(found - shopper.acknowledged),
    )
    assert shopper.acknowledged <= found


def assert_resumed(outcome: Outcome, shopper: Shopper, *, session_id: str) -> None:
    """The visit went on in the session the client re-sent, with its earlier exchanges."""
    session = outcome.session
    assert session["mode"] == "remembering"
    assert session["session_id"] == session_id and session["created"] is False
    assert outcome.first("memory.searched")["counts"]["session"] >= 1
    assert outcome.written, "the recovered turn is remembered"


async def test_kill_before_a_turn(memory, new_shopper, figures):
    scenario = "kill -9 before a turn"
    shopper = await new_shopper()
    first = await shopper.turn("I'm a size M, show me jeans")
    figures.turn(scenario, first)
    session_id = shopper.session_id
    assert first.written

    memory.kill9()
    down = await shopper.turn("any in black?")
    figures.turn(scenario, down)
    assert down.answer and down.session["mode"] == "memory_unavailable"
    assert down.first("memory.added") is None

    memory.restart()
    back = await shopper.turn("and in blue?")
    figures.turn(scenario, back)
    assert back.answer
    assert_resumed(back, shopper, session_id=session_id)
    assert_kept(memory, shopper, figures, scenario)
    assert memory.session_ids(shopper.memory_user) == [session_id]


async def test_kill_during_a_turn(memory, new_shopper, figures):
    """Killed while the recall is out, the session already open: the reads fail, the answer
    comes. The recall's calls go out beside the session's lookup, so only they are held."""
    scenario = "kill -9 during a turn (recall)"
    shopper = await new_shopper()
    figures.turn(scenario, await shopper.turn("show me white sneakers in 42"))
    session_id = shopper.session_id

    # The recall's requests now reach the server late, so the kill lands while they are held.
    memory.proxy.request_delay_for = lambda method, path, body: 0.4 if "/memory" in path else 0

    def kill_once_the_session_is_open(event: dict) -> None:
        if event["type"] == "session":
            memory.kill9()

    during = await shopper.turn("any cheaper ones?", on_event=kill_once_the_session_is_open)
    figures.turn(scenario, during)
    assert during.answer
    assert during.session["mode"] == "remembering"
    assert during.first("memory.searched")["failed"], "recall ran into the dead server"
    assert during.written == [], "nothing was acknowledged for this exchange"

    memory.proxy.request_delay_for = None
    memory.restart()
    back = await shopper.turn("in black then")
    figures.turn(scenario, back)
    assert_resumed(back, shopper, session_id=session_id)
    assert_kept(memory, shopper, figures, scenario)


async def test_kill_while_the_turn_is_being_written(memory, new_shopper, figures):
    """Killed after the answer, while its exchange is written: the answer was already sent."""
    scenario = "kill -9 while writing"
    shopper = await new_shopper()
    figures.turn(scenario, await shopper.turn("I hate yellow, show me t-shirts"))
    session_id = shopper.session_id

    # The server answers each request late, so the write is in flight when it dies.
    memory.proxy.response_delay = 0.3

    def kill_once_answered(event: dict) -> None:
        if event["type"] == "done":
            memory.kill9()

    writing = await shopper.turn("I'm a size L by the way", on_event=kill_once_answered)
    figures.turn(scenario, writing)
    assert writing.answer and writing.first("memory.added") is not None

    memory.proxy.response_delay = 0.0
    memory.restart()
    back = await shopper.turn("show me navy ones")
    figures.turn(scenario, back)
    assert_resumed(back, shopper, session_id=session_id)
    assert_kept(memory, shopper, figures, scenario)


async def test_kill_after_a_turn(memory, new_shopper, figures):
    """Everything acknowledged before the kill, facts included, is there after the restart."""
    scenario = "kill -9 after a turn"
    shopper = await new_shopper()
    for text in ("I'm a size M and I love navy", "show me navy jeans"):
        figures.turn(scenario, await shopper.turn(text))
    session_id = shopper.session_id
    assert len(shopper.acknowledged) >= 3, "turn blocks and at least one fact"

    memory.kill9()
    memory.restart()
    back = await shopper.turn("any in a slim fit?")
    figures.turn(scenario, back)
    assert_resumed(back, shopper, session_id=session_id)
    assert_kept(memory, shopper, figures, scenario)


async def test_a_slow_server(memory, new_shopper, figures):
    """A slow server costs time within the memory bounds; past them, only memory is lost."""
    shopper = await new_shopper()
    figures.turn("slow server: healthy first", await shopper.turn("show me boots in 43"))
    session_id = shopper.session_id

    memory.proxy.response_delay = 0.3  # each request a third of a second
    slow = await shopper.turn("any in brown?")
    figures.turn("slow server: 0.3 s per request", slow)
    assert slow.answer and slow.session["mode"] == "remembering"
    assert slow.first("memory.searched")["failed"] == [] and slow.written

    await memory.proxy.settled()  # the last turn's writes answered, or they'd extend the bound
    # Past the 1 s read bound memory is skipped. A bound stretched while the server still
    # answers others ends at the open's cap at the latest, so the delay is past that too.
    memory.proxy.response_delay = memory_conf().timeout_seconds * SESSION_OPEN_CAP + 2.0
    try:
        hung = await shopper.turn("and in black?")
    except AssertionError as exc:  # a turn that hung: what memory was asked, and when
        raise AssertionError(
            f"{exc}\nmemory timeout {memory_conf().timeout_seconds:g} s, answers delayed "
            f"{memory.proxy.response_delay:g} s; the memory proxy saw:\n{memory.proxy.recent()}"
        ) from None
    figures.turn("slow server: 5 s per request", hung)
    assert hung.answer and hung.session["mode"] == "memory_unavailable"

    memory.proxy.response_delay = 0.0
    memory.proxy.cut()  # connections still waiting on the slow answers
    back = await shopper.turn("the black ones, in 43")
    figures.turn("slow server: recovered", back)
    assert_resumed(back, shopper, session_id=session_id)
    assert_kept(memory, shopper, figures, "slow server: recovered")


async def test_repeated_crashes_with_several_shoppers(memory, new_shopper, figures):
    """Three shoppers chat at once while the server is killed twice mid-round."""
    scenario = "3 shoppers, 2 crashes mid-round"
    shoppers = [await new_shopper() for _ in range(3)]
    texts = ["show me jeans in M", "any in black?", "cheaper please", "and t-shirts?"]

    async def round_of(text: str) -> list[Outcome]:
        return await asyncio.gather(*(s.turn(text) for s in shoppers))

    outcomes = await round_of(texts[0])
    sessions = {s.username: s.session_id for s in shoppers}
    for number, text in enumerate(texts[1:3], start=1):
        turns = asyncio.gather(*(s.turn(text) for s in shoppers))
        await asyncio.sleep(0.05 * number)  # somewhere inside the round
        memory.kill9()
        outcomes += await turns
        memory.restart()
    outcomes += await round_of(texts[3])

    for outcome in outcomes:
        figures.turn(scenario, outcome)
    assert all(o.answer for o in outcomes), "every turn got its answer"
    for shopper, last in zip(shoppers, outcomes[-3:], strict=True):
        assert last.session["session_id"] == sessions[shopper.username]
        assert memory.session_ids(shopper.memory_user) == [sessions[shopper.username]]
        assert_kept(memory, shopper, figures, scenario)


def _can_mount_tmpfs() -> str | None:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return "needs root to mount a size-limited tmpfs"
    probe = tempfile.mkdtemp(prefix="aisle-tmpfs-probe-")
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], capture_output=True
        )
        if mounted.returncode != 0:
            return f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}"
        subprocess.run(["umount", probe], check=True)
        return None
    finally:
        os.rmdir(probe)


@pytest.fixture
def small_disk():
    """A 16 MB tmpfs for the server's SQLite file, and a way to fill it up."""
    reason = _can_mount_tmpfs()
    if reason:
        pytest.skip(reason)
    mount = Path(tempfile.mkdtemp(prefix="aisle-small-disk-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
        os.rmdir(mount)


def fill(directory: Path) -> Path:
    """Take every free byte of the file system `directory` is on."""
    filler = directory / "filler"
    # Unbuffered: a write that does not fit fails here, not later when the file closes.
    with filler.open("wb", buffering=0) as handle:
        for size in (1 << 20, 4096, 1):
            try:
                while handle.write(b"\0" * size):
                    pass
            except OSError:
                continue
    return filler


async def test_a_full_disk_under_the_server(small_disk, new_shopper, figures, settings):
    """The server's disk fills up: answers still come; once space is back, so is memory."""
    scenario = "full disk under the server"
    rig = MemoryRig(small_disk / "memory")
    rig.start()
    try:
        settings.AGENT_MEMORY_URL = rig.proxy.url
        settings.AGENT_MEMORY_TOKEN = None
        shopper = await new_shopper()
        figures.turn(scenario, await shopper.turn("I'm a size S, show me dresses"))
        session_id = shopper.session_id

        filler = fill(small_disk)
        full = []
        for text in ("any in red?", "and in green?"):
            outcome = await shopper.turn(text)
            figures.turn(scenario, outcome)
            full.append(outcome)
        assert all(o.answer for o in full)
        assert all(o.written == [] for o in full), "no write can be acknowledged on a full disk"

        # The server answered the failed writes with errors and stayed up.
        assert rig.alive()
        filler.unlink()
        back = await shopper.turn("show me the red one in S")
        figures.turn(scenario, back)
        assert back.answer
        assert_resumed(back, shopper, session_id=session_id)
        assert_kept(rig, shopper, figures, scenario)
    finally:
        rig.stop()
