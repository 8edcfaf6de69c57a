"""The app's connection pool sweep decides exactly as httpcore's own, case by case."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import httpcore

from memoryapp import clients
from memoryapp.clients import _LinearSweepPool

ORIGINS = ("a", "b")


@dataclass(eq=False)
class FakeConnection:
    name: str
    origin: str
    closed: bool = False
    expired: bool = False
    idle: bool = False
    available: bool = False

    def is_closed(self) -> bool:
        return self.closed

    def has_expired(self) -> bool:
        return self.expired

    def is_idle(self) -> bool:
        return self.idle

    def is_available(self) -> bool:
        return self.available

    def can_handle_request(self, origin: str) -> bool:
        return origin == self.origin


@dataclass
class FakeUrl:
    origin: str


@dataclass
class FakeRequest:
    url: FakeUrl


@dataclass(eq=False)
class FakePoolRequest:
    request: FakeRequest
    queued: bool
    assigned: list[str] = field(default_factory=list)

    def is_queued(self) -> bool:
        return self.queued

    def assign_to_connection(self, connection: FakeConnection) -> None:
        self.assigned.append(connection.name)


def _scenario(seed: int) -> dict:
    rng = random.Random(seed)
    connections = []
    for i in range(rng.randint(0, 25)):
        state = rng.choice(("closed", "expired", "idle", "busy", "available"))
        connections.append(
            {
                "name": f"c{i}",
                "origin": rng.choice(ORIGINS),
                "closed": state == "closed",
                "expired": state == "expired",
                "idle": state in ("idle", "available"),
                "available": state == "available",
            }
        )
    requests = [
        {"origin": rng.choice(ORIGINS), "queued": rng.random() < 0.7}
        for _ in range(rng.randint(0, 6))
    ]
    return {
        "max_connections": rng.choice((1, 4, 10, 30)),
        "max_keepalive": rng.choice((0, 2, 5, 20)),
        "connections": connections,
        "requests": requests,
    }


def _run(pool_class: type, scenario: dict) -> tuple:
    pool = pool_class(
        max_connections=scenario["max_connections"],
        max_keepalive_connections=scenario["max_keepalive"],
    )
    pool._connections = [FakeConnection(**c) for c in scenario["connections"]]
    requests = [
        FakePoolRequest(FakeRequest(FakeUrl(r["origin"])), r["queued"])
        for r in scenario["requests"]
    ]
    pool._requests = requests
    created = iter(range(100))
    pool.create_connection = lambda origin: FakeConnection(f"new{next(created)}", origin)
    closing = pool._assign_requests_to_connections()
    return (
        [c.name for c in closing],
        [c.name for c in pool._connections],
        [r.assigned for r in requests],
    )


def test_the_linear_sweep_closes_reuses_and_creates_what_httpcore_would() -> None:
    for seed in range(400):
        scenario = _scenario(seed)
        ours, theirs = (
            _run(_LinearSweepPool, scenario),
            _run(httpcore.AsyncConnectionPool, scenario),
        )
        assert ours == theirs, f"seed {seed}: {scenario}"


def test_the_scenarios_reach_every_decision() -> None:
    """The comparison above means something only if its cases close, reuse and create."""
    seen = {"closed idle": 0, "reused": 0, "created": 0, "replaced idle": 0, "waited": 0}
    for seed in range(400):
        scenario = _scenario(seed)
        closing, _, assigned = _run(httpcore.AsyncConnectionPool, scenario)
        idle_names = {c["name"] for c in scenario["connections"] if c["idle"]}
        seen["closed idle"] += bool(idle_names & set(closing))
        seen["reused"] += any(a and a[0].startswith("c") for a in assigned)
        seen["created"] += any(a and a[0].startswith("new") for a in assigned)
        seen["replaced idle"] += bool(
            any(a and a[0].startswith("new") for a in assigned)
            and len(scenario["connections"]) >= scenario["max_connections"]
        )
        seen["waited"] += any(
            r["queued"] and not a for r, a in zip(scenario["requests"], assigned, strict=True)
        )
    assert all(seen.values()), seen


@dataclass(eq=False)
class CountingConnection(FakeConnection):
    polls: int = 0

    def has_expired(self) -> bool:
        self.polls += 1
        return self.expired


def _idle_pool(monkeypatch, clock: list[float], *names: str) -> _LinearSweepPool:
    monkeypatch.setattr(clients, "_now", lambda: clock[0])
    pool = _LinearSweepPool(max_connections=10, max_keepalive_connections=20)
    pool._connections = [CountingConnection(n, "a", idle=True, available=True) for n in names]
    pool._requests = []
    created = iter(range(100))
    pool.create_connection = lambda origin: CountingConnection(f"new{next(created)}", origin)
    return pool


def _queue(pool: _LinearSweepPool) -> FakePoolRequest:
    request = FakePoolRequest(FakeRequest(FakeUrl("a")), queued=True)
    pool._requests = [request]
    return request


def test_idle_connections_are_asked_about_expiry_only_every_half_second(monkeypatch):
    clock = [100.0]
    pool = _idle_pool(monkeypatch, clock, "c0", "c1", "c2")
    pool._assign_requests_to_connections()
    assert [c.polls for c in pool._connections] == [1, 1, 1]
    clock[0] += clients.IDLE_CHECK_SECONDS / 2
    pool._assign_requests_to_connections()
    assert [c.polls for c in pool._connections] == [1, 1, 1]
    clock[0] += clients.IDLE_CHECK_SECONDS
    pool._connections[2].expired = True
    closing = pool._assign_requests_to_connections()
    assert [c.name for c in closing] == ["c2"]
    assert [c.name for c in pool._connections] == ["c0", "c1"]


def test_a_connection_that_expired_between_checks_is_never_handed_a_request(monkeypatch):
    clock = [100.0]
    pool = _idle_pool(monkeypatch, clock, "c0", "c1")
    pool._assign_requests_to_connections()
    clock[0] += 0.1  # no full check due yet
    pool._connections[0].expired = True  # e.g. the server closed it
    request = _queue(pool)
    closing = pool._assign_requests_to_connections()
    assert request.assigned == ["c1"]
    assert [c.name for c in closing] == ["c0"]
    # With every idle one gone, a new connection is made rather than a dead one used.
    pool._connections[0].expired = True
    request = _queue(pool)
    closing = pool._assign_requests_to_connections()
    assert request.assigned == ["new0"]
    assert [c.name for c in closing] == ["c1"]
