"""Opening sessions against the live embedded server: odd ids, racing tabs, round trips, outages."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import uuid
from contextlib import contextmanager

import pytest
from agentmemory import AsyncAgentMemoryClient, AsyncSessionResource, AsyncUserResource
from agentmemory.exceptions import NotFoundError

from memoryapp import sessions
from memoryapp.clients import memory_client_async
from memoryapp.episodes import session_close
from memoryapp.greeting import greeting_read
from memoryapp.recall import memories_recall
from memoryapp.recording import turn_record
from memoryapp.selectors import records_list
from memoryapp.sessions import session_open
from memoryapp.types import MemoryUnavailable
from tests.support.memory_proxy import MemoryProxy


async def open_session(name: str, session_id=None, **kwargs):
    return await session_open(user_id=name, display_name="Tester", session_id=session_id, **kwargs)


@contextmanager
def requests_counted():
    """Every HTTP request this event loop's SDK client sends inside the block."""
    http = memory_client_async()._http._client
    sent: list[str] = []

    async def hook(request):
        sent.append(f"{request.method} {request.url.path}")

    http.event_hooks["request"].append(hook)
    try:
        yield sent
    finally:
        http.event_hooks["request"].remove(hook)


@pytest.mark.parametrize(
    "bad_id",
    [
        "session1\x00",
        "session1\nHost: evil",
        "a?b",
        "a#b",
        "%2e%2e",
        ".",
        "..",
        "../session1",
        "x" * 101,
        " ",
        12,
        ["session1"],
    ],
)
async def test_a_malformed_id_mints_a_new_session_and_memory_stays_on(
    live_memory, shopper_name, bad_id
):
    shopper_name = f"{shopper_name}-{uuid.uuid4().hex[:8]}"  # parameters share a name
    first = await open_session(shopper_name)
    memory = await open_session(shopper_name, session_id=bad_id)
    assert memory.info.created and memory.session_id == "session2"
    assert first.session_id == "session1"


async def test_an_unknown_well_formed_id_mints_a_new_session(live_memory, shopper_name):
    memory = await open_session(shopper_name, session_id="conv-from-another-app")
    assert memory.info.created and memory.session_id == "session1"


async def test_lone_surrogates_and_nul_never_cost_the_exchange(live_memory, shopper_name):
    memory = await open_session(shopper_name)
    saved = await turn_record(
        memory=memory, query="black jeans\x00 in M \ud800please", answer="Here\x00 they are \udc00."
    )
    assert len(saved) == 1
    page = await memory.resource.list_memories(limit=5)
    stored = page.memory_blocks[0].message
    assert (stored.user_content, stored.assistant_content) == (
        "black jeans in M please",
        "Here they are .",
    )
    later = await open_session(shopper_name, session_id=memory.session_id)
    recall = await memories_recall(memory=later, message="jeans \ud800\x00", turn_count=1)
    assert recall.failed == [] and recall.counts["session"] == 1


async def test_ten_tabs_starting_at_once_get_ten_sessions(live_memory, shopper_name):
    opened = await asyncio.gather(*(open_session(shopper_name) for _ in range(10)))
    ids = sorted((m.session_id for m in opened), key=lambda s: int(s.removeprefix("session")))
    assert ids == [f"session{n}" for n in range(1, 11)]
    assert all(m.info.created for m in opened)


async def test_ten_processes_minting_at_once_retry_with_a_fresh_read(
    live_memory, shopper_name, settings
):
    """Each thread has its own event loop, so no lock is shared: only the retry saves them."""
    # Ten event loops on a shared machine's cores: the race is under test, not the time bound.
    settings.AGENT_MEMORY_TIMEOUT_SECONDS = 10
    await open_session(shopper_name)  # the user exists, as for a returning shopper
    start = threading.Barrier(10)
    results: list[str | BaseException] = []

    def tab() -> None:
        async def first_turn() -> str:
            start.wait()
            return (await open_session(shopper_name)).session_id

        try:
            results.append(asyncio.run(first_turn()))
        except BaseException as exc:  # collected and asserted on below
            results.append(exc)

    threads = [threading.Thread(target=tab) for _ in range(10)]
    await asyncio.to_thread(lambda: [t.start() for t in threads] and [t.join() for t in threads])
    assert [r for r in results if isinstance(r, BaseException)] == []
    assert len(set(results)) == 10 and "session1" not in results


async def test_a_returning_shoppers_new_visit_costs_one_request(live_memory, shopper_name):
    with requests_counted() as sent:
        first = await open_session(shopper_name)
    # A shopper never seen: look them up, create them, create the session.
    assert [r.split()[0] for r in sent] == ["GET", "POST", "POST"]

    with requests_counted() as sent:
        await open_session(shopper_name, session_id=first.session_id)
    assert sent == [f"GET /users/{shopper_name}/sessions/session1"]

    with requests_counted() as sent:
        next_visit = await open_session(shopper_name)
    assert next_visit.session_id == "session2"
    assert sent == [f"POST /users/{shopper_name}/sessions"]


async def test_a_shopper_this_process_has_not_seen_costs_two(live_memory, shopper_name):
    await open_session(shopper_name)
    sessions._session_highest.pop(shopper_name)  # as after a restart
    with requests_counted() as sent:
        memory = await open_session(shopper_name)
    assert memory.session_id == "session2"
    assert sent == [f"GET /users/{shopper_name}", f"POST /users/{shopper_name}/sessions"]


async def test_after_the_greeting_a_returning_shopper_s_first_turn_costs_one(
    live_memory, shopper_name
):
    await open_session(shopper_name)
    sessions._session_highest.pop(shopper_name)  # as after a restart
    assert (await greeting_read(user_id=shopper_name)).returning
    with requests_counted() as sent:
        memory = await open_session(shopper_name)
    assert memory.session_id == "session2"
    assert sent == [f"POST /users/{shopper_name}/sessions"]


async def test_after_the_greeting_a_new_shopper_s_first_turn_costs_two(live_memory, shopper_name):
    assert not (await greeting_read(user_id=shopper_name)).returning
    with requests_counted() as sent:
        memory = await open_session(shopper_name)
    assert memory.session_id == "session1"
    assert sent == ["POST /users", f"POST /users/{shopper_name}/sessions"]


async def test_a_user_created_after_the_greeting_is_read_and_numbered_from(
    live_memory, shopper_name
):
    assert not (await greeting_read(user_id=shopper_name)).returning
    # Another process creates the shopper and a first visit meanwhile.
    user = await memory_client_async().create_user(shopper_name, "Other process")
    await user.create_session("session1")
    memory = await open_session(shopper_name)
    assert memory.session_id == "session2"


async def test_the_next_session_follows_the_highest_stored_with_a_gap_in_the_middle(
    live_memory, shopper_name
):
    for n in (1, 2, 3):
        assert (await open_session(shopper_name)).session_id == f"session{n}"
    user = await memory_client_async().get_user(shopper_name)
    await (await user.get_session("session2")).delete()
    sessions._session_highest.pop(shopper_name)  # as in a process that never minted them
    with requests_counted() as sent:
        memory = await open_session(shopper_name)
    assert memory.session_id == "session4"
    # A count of the two left would try session3 first: its conflict and retry would still
    # end at session4, so the single create is what tells the two apart.
    assert sent == [f"GET /users/{shopper_name}", f"POST /users/{shopper_name}/sessions"]


async def test_a_stale_process_cache_reads_afresh_on_a_conflict(live_memory, shopper_name):
    await open_session(shopper_name)
    # Another process mints two sessions this one does not know about.
    user = await memory_client_async().get_user(shopper_name)
    await user.create_session("session2")
    await user.create_session("session3")
    memory = await open_session(shopper_name)
    assert memory.info.created and memory.session_id == "session4"


async def test_a_shopper_erased_by_another_process_starts_again(live_memory, shopper_name):
    first = await open_session(shopper_name)
    await memory_client_async().delete_user(shopper_name)  # behind this process's back
    resumed = await open_session(shopper_name, session_id=first.session_id)
    assert resumed.info.created and resumed.session_id == "session1"
    user = await memory_client_async().get_user(shopper_name)
    assert user.sessions == ["session1"]


def _outage_lines(caplog) -> list[tuple[int, str]]:
    return [
        (r.levelno, r.getMessage().split(";")[0])
        for r in caplog.records
        if r.name == "memoryapp" and r.levelno >= logging.INFO
    ]


async def test_the_session_path_logs_each_outage_once_and_each_recovery(
    live_memory, shopper_name, settings, caplog
):
    live_url = settings.AGENT_MEMORY_URL
    with caplog.at_level(logging.INFO, logger="memoryapp"):
        for _ in range(2):
            settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"  # refused at once
            for _ in range(3):
                with pytest.raises(MemoryUnavailable):
                    await open_session(shopper_name)
            settings.AGENT_MEMORY_URL = live_url
            for _ in range(2):
                await open_session(shopper_name)
    assert (
        _outage_lines(caplog)
        == [
            (logging.WARNING, "Agent Memory session failed"),
            (logging.INFO, "Agent Memory session recovered"),
        ]
        * 2
    )


def test_the_read_and_write_paths_log_recovery_too(live_memory, shopper_name, settings, caplog):
    live_url = settings.AGENT_MEMORY_URL
    with caplog.at_level(logging.INFO, logger="memoryapp"):
        settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"
        for _ in range(2):
            with pytest.raises(MemoryUnavailable):
                records_list(user_id=shopper_name)
        settings.AGENT_MEMORY_URL = live_url
        records_list(user_id=shopper_name)
        records_list(user_id=shopper_name)
    assert _outage_lines(caplog) == [
        (logging.WARNING, "Agent Memory read failed"),
        (logging.INFO, "Agent Memory read recovered"),
    ]


async def test_the_read_and_write_paths_each_log_their_own_outage_and_recovery(
    live_memory, shopper_name, settings, caplog
):
    proxy = MemoryProxy.in_front_of(live_memory.base_url).start()
    settings.AGENT_MEMORY_URL = proxy.url
    try:
        memory = await open_session(shopper_name)
        memory = await open_session(shopper_name, session_id=memory.session_id)
        with caplog.at_level(logging.INFO, logger="memoryapp"):
            proxy.failing = lambda method, path, body: True  # down for reads and writes alike
            for _ in range(2):
                recall = await memories_recall(memory=memory, message="jeans", turn_count=1)
                assert recall.failed and recall.items == []
                assert await turn_record(memory=memory, query="jeans?", answer="Here.") == []
            proxy.failing = lambda method, path, body: False
            for _ in range(2):
                assert (
                    await memories_recall(memory=memory, message="jeans", turn_count=1)
                ).failed == []
                assert await turn_record(memory=memory, query="jeans?", answer="Here.")
    finally:
        proxy.stop()
    # One path failing does not silence the other, and each says when it is back.
    assert _outage_lines(caplog) == [
        (logging.WARNING, "Agent Memory read failed"),
        (logging.WARNING, "Agent Memory write failed"),
        (logging.INFO, "Agent Memory read recovered"),
        (logging.INFO, "Agent Memory write recovered"),
    ]


async def test_a_hung_session_open_costs_about_one_timeout(
    live_memory, shopper_name, settings, monkeypatch
):
    settings.AGENT_MEMORY_TIMEOUT_SECONDS = 0.2
    await open_session(shopper_name)

    async def hang(*args, **kwargs):
        await asyncio.sleep(30)

    monkeypatch.setattr("agentmemory.AsyncUserResource.create_session", hang)
    # The bound is what ends it; the outer wait only keeps a broken bound from hanging the run.
    with pytest.raises(MemoryUnavailable):
        await asyncio.wait_for(open_session(shopper_name), timeout=5)


async def test_an_open_that_loses_its_cancellation_still_ends_past_its_cap(
    live_memory, shopper_name, settings, monkeypatch
):
    """The bound is kept by cancelling the open; a stack that swallows the cancellation
    (and answers much later) must not hold the turn: memory is given up, the turn goes on."""
    first = await open_session(shopper_name)
    # Short bounds only now: a loaded machine may take longer over the setup's open.
    settings.AGENT_MEMORY_TIMEOUT_SECONDS = 0.1
    real = AsyncUserResource.get_session

    async def deaf(self, session_id):
        for _ in range(40):  # 4 s, cancelled or not
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.1)
        return await real(self, session_id)

    monkeypatch.setattr(AsyncUserResource, "get_session", deaf)
    with pytest.raises(MemoryUnavailable):
        await open_session(shopper_name, session_id=first.session_id)
    assert asyncio.current_task().cancelling() == 0


async def test_an_open_cancelled_by_something_else_gives_up_memory_not_the_turn(
    live_memory, shopper_name, settings, monkeypatch
):
    first = await open_session(shopper_name)

    async def cancelled(self, session_id):
        raise asyncio.CancelledError

    monkeypatch.setattr(AsyncUserResource, "get_session", cancelled)
    with pytest.raises(MemoryUnavailable):
        await open_session(shopper_name, session_id=first.session_id)
    assert asyncio.current_task().cancelling() == 0


def _resume_answered_late(monkeypatch, *, seconds: float) -> None:
    real = AsyncUserResource.get_session

    async def late(self, session_id):
        await asyncio.sleep(seconds)
        return await real(self, session_id)

    monkeypatch.setattr(AsyncUserResource, "get_session", late)


async def _others_answered(stop: asyncio.Event) -> None:
    """Other shoppers' requests on this loop, answered all along (a 404 is an answer too)."""
    while not stop.is_set():
        with contextlib.suppress(NotFoundError):
            await memory_client_async().get_user("someone-else-entirely")
        await asyncio.sleep(0.05)


async def test_a_resume_past_its_bound_goes_on_while_the_server_answers_others(
    live_memory, shopper_name, settings, monkeypatch
):
    """Saturated cores, not a hung server: the open is given time up to the cap."""
    settings.AGENT_MEMORY_TIMEOUT_SECONDS = 1.0
    first = await open_session(shopper_name)
    # Past one round trip's bound (1.5 timeouts), within the cap (3).
    _resume_answered_late(monkeypatch, seconds=2.0)
    stop = asyncio.Event()
    others = asyncio.create_task(_others_answered(stop))
    try:
        resumed = await asyncio.wait_for(
            open_session(shopper_name, session_id=first.session_id), timeout=10
        )
    finally:
        stop.set()
        await others
    assert not resumed.info.created and resumed.session_id == first.session_id


async def test_a_resume_past_its_bound_with_no_answer_from_the_server_is_given_up(
    live_memory, shopper_name, settings, monkeypatch
):
    settings.AGENT_MEMORY_TIMEOUT_SECONDS = 1.0
    first = await open_session(shopper_name)
    _resume_answered_late(monkeypatch, seconds=2.0)
    with pytest.raises(MemoryUnavailable):
        await asyncio.wait_for(open_session(shopper_name, session_id=first.session_id), timeout=10)


def _searches_answered_late(monkeypatch, *, seconds: float) -> None:
    real = AsyncSessionResource.search_memory

    async def late(self, *args, **kwargs):
        await asyncio.sleep(seconds)
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(AsyncSessionResource, "search_memory", late)


async def test_recall_searches_past_their_timeout_go_on_while_the_server_answers_others(
    live_memory, shopper_name, settings, monkeypatch
):
    settings.AGENT_MEMORY_TIMEOUT_SECONDS = 1.0
    memory = await open_session(shopper_name)
    _searches_answered_late(monkeypatch, seconds=1.5)  # past the timeout, within its grace
    stop = asyncio.Event()
    others = asyncio.create_task(_others_answered(stop))
    try:
        recall = await memories_recall(memory=memory, message="boots", turn_count=0)
    finally:
        stop.set()
        await others
    assert recall.failed == []


async def test_recall_searches_past_their_timeout_with_no_answer_from_the_server_are_lost(
    live_memory, shopper_name, settings, monkeypatch
):
    settings.AGENT_MEMORY_TIMEOUT_SECONDS = 1.0
    memory = await open_session(shopper_name)
    _searches_answered_late(monkeypatch, seconds=1.5)
    recall = await memories_recall(memory=memory, message="boots", turn_count=0)
    assert sorted(recall.failed) == ["episode", "fact", "turn"]


async def test_a_busy_server_gets_a_timeout_for_each_round_trip(
    live_memory, shopper_name, settings, monkeypatch
):
    """A new shopper's three round trips, each slower than half the memory timeout."""
    settings.AGENT_MEMORY_TIMEOUT_SECONDS = 1.0

    def slowed(name):
        real = getattr(AsyncAgentMemoryClient, name, None) or getattr(AsyncUserResource, name)

        async def slow(*args, **kwargs):
            await asyncio.sleep(0.7)
            return await real(*args, **kwargs)

        return slow

    monkeypatch.setattr(AsyncAgentMemoryClient, "get_user", slowed("get_user"))
    monkeypatch.setattr(AsyncAgentMemoryClient, "create_user", slowed("create_user"))
    monkeypatch.setattr(AsyncUserResource, "create_session", slowed("create_session"))
    memory = await asyncio.wait_for(open_session(shopper_name), timeout=10)
    assert memory.info.created and memory.session_id == "session1"


async def test_closing_a_malformed_or_unknown_id_does_nothing(live_memory, shopper_name):
    memory = await open_session(shopper_name)
    for bad in ("session1\x00", "../session1", "session9"):
        assert await session_close(user_id=shopper_name, display_name="T", session_id=bad) is None
    resumed = await open_session(shopper_name, session_id=memory.session_id)
    assert not resumed.info.created  # still open
