"""Opening the shopper's Agent Memory session for a turn: resumed, or minted as session{n}.

The open runs under one time budget (`_TripBudget`), and keeps per-process hints (the
shoppers whose memory user exists, their highest session number) and a mint lock per
shopper, so a returning shopper's new session costs one request and tabs never race.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from agentmemory import AsyncSessionResource, AsyncUserResource
from agentmemory.exceptions import ConflictError, NotFoundError, ValidationError

from memoryapp.cleaning import (
    session_id_clean,
    session_number,
    session_number_highest,
    text_clean,
)
from memoryapp.clients import (
    memory_answered_within,
    memory_client_async,
    memory_user_async,
)
from memoryapp.conf import MemoryConf, memory_conf, retention_preset_for
from memoryapp.guard import BACKSTOP, awaited_apart, outage_translated, timeouts_named
from memoryapp.types import SessionInfo

# succeeded, so a minter needs at most as many attempts as there are minters racing it
# (in one process the per-shopper lock leaves one; across processes, one per process);
# the session-open bound caps the time whatever happens.
MINT_ATTEMPTS = 32
# Opening a session gets AGENT_MEMORY_TIMEOUT_SECONDS for each round trip it makes, plus
# half of one as slack, and never more than three in all: a returning shopper needs one
# round trip, a shopper this process has not seen two (three when new). So a hung server
# costs a turn 1.5 timeouts (a refusing one nothing), while a busy one is given the time
# each trip needs instead of one fixed bound for all of them.
# Past that bound the open goes on, half a timeout at a time up to the cap, only while the
# server has answered other requests in the last half timeout: with the cores saturated by
# other shoppers' turns the server is up and answers late (the open's own answer may even
# be waiting for the event loop), while a hung server answers no one and still costs
# 1.5 timeouts, at most 2 when it hangs just after an answer. The cap is kept by cancelling
# the open; should the cancellation be lost, the turn goes on a timeout later
# (`guard.awaited_apart`).
SESSION_TRIP_SLACK = 0.5
SESSION_OPEN_CAP = 3.0

# Per process: shoppers whose memory user is known to exist, with the highest session
# number seen for them. A returning shopper's new session then costs one request (the
# create itself); a create that says the user or the number is gone reads afresh. Only a
# hint, so several processes never disagree about anything that matters; the oldest
# entries make way past KNOWN_SHOPPERS_MAX.
KNOWN_SHOPPERS_MAX = 100_000
_session_highest: dict[str, int] = {}
# Shoppers a read elsewhere found without a memory user (the panel's greeting of a new
# shopper): their first turn creates the user without looking it up again.
_users_absent: dict[str, None] = {}
# Per event loop and shopper: one mint at a time, so this process's tabs never race.
_mint_locks: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, weakref.WeakValueDictionary[str, asyncio.Lock]
] = weakref.WeakKeyDictionary()


@dataclass
class OpenSession:
    """The shopper's Agent Memory session, opened for the turn in hand (`session_open`)."""

    user_id: str
    resource: AsyncSessionResource
    info: SessionInfo

    @property
    def session_id(self) -> str:
        return self.info.session_id


def session_info_from(resource: AsyncSessionResource, *, created: bool) -> SessionInfo:
    metadata = resource.metadata or {}
    raw_date = metadata.get("session_date")
    try:
        session_date = date.fromisoformat(raw_date) if raw_date else None
    except (TypeError, ValueError):
        session_date = None
    return SessionInfo(
        session_id=resource.session_id,
        session_date=session_date,
        retention_seconds=resource.blocks_ttl,
        created=created,
        retention=retention_preset_for(resource.blocks_ttl),
    )


class _TripBudget:
    """The time left to open a session, grown by one timeout for each round trip started.

    The scope ends the open at the cap at the latest; a check at the bound ends it sooner
    unless the server is still answering others (see SESSION_TRIP_SLACK).
    """

    def __init__(self, scope: asyncio.Timeout, *, timeout: float) -> None:
        self._scope = scope
        self._timeout = timeout
        self._loop = asyncio.get_running_loop()
        self._cap = self._loop.time() + timeout * SESSION_OPEN_CAP
        self._due = self._cap
        self._check: asyncio.TimerHandle | None = None
        scope.reschedule(self._cap)
        self.restart()

    def _check_at(self, when: float) -> None:
        self.close()
        self._due = min(when, self._cap)
        if self._due < self._cap:
            self._check = self._loop.call_at(self._due, self._end_unless_answering)

    def _end_unless_answering(self) -> None:
        self._check = None
        step = self._timeout * SESSION_TRIP_SLACK
        if memory_answered_within(step):
            self._check_at(self._loop.time() + step)
        else:
            self._scope.reschedule(self._loop.time())

    def restart(self) -> None:
        """Start counting afresh, e.g. after waiting for another tab's mint."""
        self._check_at(self._loop.time() + self._timeout * SESSION_TRIP_SLACK)

    def wait_up_to_cap(self) -> None:
        self.close()
        self._due = self._cap

    def close(self) -> None:
        """Drop the pending check; the open is over (or waits up to the cap)."""
        if self._check is not None:
            self._check.cancel()
            self._check = None

    async def trip[T](self, call: Awaitable[T]) -> T:
        self._check_at(self._due + self._timeout)
        return await call


def _session_seen(user_id: str, highest: int) -> None:
    if user_id not in _session_highest and len(_session_highest) >= KNOWN_SHOPPERS_MAX:
        _session_highest.pop(next(iter(_session_highest)), None)
    _session_highest[user_id] = max(highest, _session_highest.get(user_id, 0))


def shopper_sessions_seen(*, user_id: str, session_ids: Sequence[str]) -> None:
    """Note the sessions a read elsewhere found stored for the shopper (the panel's greeting).

    Their first turn then mints its session in one request instead of two, though this
    process had not seen them: the greeting reads the memory user anyway.
    """
    _session_seen(user_id, session_number_highest(list(session_ids)))


def shopper_absent_noted(*, user_id: str) -> None:
    """Note that a read elsewhere found no memory user for the shopper (the greeting).

    Their first turn then creates the user straight away: two requests to open the session
    instead of three. Should another process have created it meanwhile, the 409 reads it.
    """
    if user_id not in _users_absent and len(_users_absent) >= KNOWN_SHOPPERS_MAX:
        _users_absent.pop(next(iter(_users_absent)), None)
    _users_absent[user_id] = None


def session_forgotten(*, user_id: str) -> None:
    """Forget what this process knew of the shopper's sessions (their memory was erased)."""
    _session_highest.pop(user_id, None)


def _mint_lock(user_id: str) -> asyncio.Lock:
    locks = _mint_locks.setdefault(asyncio.get_running_loop(), weakref.WeakValueDictionary())
    lock = locks.get(user_id)
    if lock is None:
        lock = locks[user_id] = asyncio.Lock()
    return lock


async def _user_ensure(*, user_id: str, display_name: str, budget: _TripBudget) -> int:
    """Read (or create, on first use) the shopper's memory user; their highest session number.

    A racing creator's 409 reads the user instead. What this process knew counts too: it
    may have seen a number the read does not show yet.
    """
    client = memory_client_async()

    async def create() -> AsyncUserResource:
        try:
            return await budget.trip(
                client.create_user(user_id, text_clean(display_name) or user_id)
            )
        except ConflictError:
            return await budget.trip(client.get_user(user_id))

    if user_id in _users_absent:
        _users_absent.pop(user_id, None)
        user = await create()
    else:
        try:
            user = await budget.trip(client.get_user(user_id))
        except NotFoundError:
            user = await create()
    _session_seen(user_id, session_number_highest(user.sessions))
    return _session_highest.get(user_id, session_number_highest(user.sessions))


async def session_get_open(
    shopper: AsyncUserResource, session_id: str
) -> AsyncSessionResource | None:
    """The shopper's open session session_id; None when it is not theirs, gone or ended."""
    try:
        resource = await shopper.get_session(session_id)
    except (NotFoundError, ValidationError):
        # Not found under this shopper's path (another shopper's id is simply not found);
        # a server may answer 400 for a session of an erased user.
        return None
    if (number := session_number(session_id)) is not None:
        _session_seen(shopper.user_id, number)
    return None if resource.end_time else resource


async def _session_mint(
    shopper: AsyncUserResource,
    *,
    display_name: str,
    metadata: dict[str, Any],
    ttl: int,
    budget: _TripBudget,
) -> AsyncSessionResource:
    """Create session{n+1}, n the highest stored, retrying with a fresh read on a conflict."""
    user_id = shopper.user_id
    highest = _session_highest.get(user_id)
    if highest is None:
        highest = await _user_ensure(user_id=user_id, display_name=display_name, budget=budget)
    for _ in range(MINT_ATTEMPTS):
        session_id = f"session{highest + 1}"
        try:
            resource = await budget.trip(
                shopper.create_session(session_id, metadata=metadata, memory_blocks_ttl=ttl)
            )
        except ConflictError:
            # Another process (or this process before it knew) took the number: read again.
            _session_seen(user_id, highest + 1)
        except NotFoundError:
            # The user was erased since this process last saw it.
            _session_highest.pop(user_id, None)
        else:
            _session_seen(user_id, highest + 1)
            return resource
        highest = await _user_ensure(user_id=user_id, display_name=display_name, budget=budget)
    raise ConflictError(f"could not mint a session id after {MINT_ATTEMPTS} attempts")


async def _session_open(
    *,
    user_id: str,
    display_name: str,
    session_id: str | None,
    session_date: date | None,
    retention: str | None,
    metadata: dict[str, str],
    conf: MemoryConf,
    budget: _TripBudget,
) -> OpenSession:
    shopper = memory_user_async(user_id)
    if session_id is not None:
        resource = await budget.trip(session_get_open(shopper, session_id))
        if resource is not None:
            return OpenSession(user_id, resource, session_info_from(resource, created=False))
    metadata = {**metadata, "retention": retention or "default"}
    if session_date is not None:
        metadata["session_date"] = session_date.isoformat()
    # Another tab's mint may be under way: wait for it (up to the cap), then count afresh.
    budget.wait_up_to_cap()
    async with _mint_lock(user_id):
        budget.restart()
        resource = await _session_mint(
            shopper,
            display_name=display_name,
            metadata=metadata,
            ttl=conf.retention_seconds(retention),
            budget=budget,
        )
    return OpenSession(user_id, resource, session_info_from(resource, created=True))


async def session_open(
    *,
    user_id: str,
    display_name: str,
    session_id: str | None,
    session_date: date | None = None,
    retention: str | None = None,
    metadata: dict[str, str] | None = None,
    timeout: float | None = None,
) -> OpenSession:
    """Resume the client's session, or mint `session{n}` when it sent none (or a stale one).

    An id memory cannot look up (see `session_id_clean`) counts as none: a new session is
    minted, memory stays on. The date, retention and extra `metadata` apply only when the
    session is created; afterwards what the session was created with is read back off it.
    `timeout` is the time each round trip may take (default AGENT_MEMORY_TIMEOUT_SECONDS,
    a shopper's turn; writing past visits can allow a cold server more). Raises
    MemoryUnavailable.
    """
    conf = memory_conf()
    per_trip = timeout or conf.timeout_seconds
    bound = (
        f"its bound of {per_trip * (1 + SESSION_TRIP_SLACK):.2f} s for one round trip and "
        f"{per_trip:.2f} s for each further one (up to {per_trip * SESSION_OPEN_CAP:.2f} s "
        "while memory answered others)"
    )
    with (
        outage_translated(path="session", lost="this turn's memory"),
        timeouts_named("the session open", bound=bound),
    ):
        return await awaited_apart(
            _session_open_bounded(
                user_id=user_id,
                display_name=display_name,
                session_id=session_id_clean(session_id),
                session_date=session_date,
                retention=retention,
                metadata=metadata or {},
                conf=conf,
                per_trip=per_trip,
            ),
            within=per_trip * (SESSION_OPEN_CAP + BACKSTOP),
        )


async def _session_open_bounded(*, per_trip: float, **open_args: Any) -> OpenSession:
    async with asyncio.timeout(None) as scope:
        budget = _TripBudget(scope, timeout=per_trip)
        try:
            return await _session_open(**open_args, budget=budget)
        finally:
            budget.close()
