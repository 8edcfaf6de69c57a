"""A loopback proxy in front of the memory server, for making it slow, failing or moved.

    proxy = MemoryProxy(upstream_port=8081).start()       # or MemoryProxy.in_front_of(url)
    proxy.url                       # what the client is pointed at
    proxy.response_delay = 2.0      # the server now takes 2 s to answer each request
    proxy.request_delay = 0.5       # each request reaches the server 0.5 s late
    proxy.request_delay_for = lambda method, path, body: 0.5 if "/memory" in path else 0.0
                                    # only some requests late
    proxy.failing = lambda method, path, body: path.endswith("/memory/search")
                                    # those answered 503 by the proxy, named in proxy.failed
    proxy.upstream_port = 8082      # a restarted server on another port
    proxy.cut()                     # drop the open connections a client would reuse
    await proxy.settled()           # until no request has been in flight for a while
    proxy.recent()                  # the last requests relayed and answered, for a failure
    proxy.stop()

It relays bytes, so the client keeps its pooled connections and sees what a real server
does: when the server dies, the connections to it close. It reads each request whole
(requests are framed by Content-Length, as the SDK sends them) to decide on it by method,
path and JSON body; the predicates run on threads of their own, so one may block until
other requests arrive (a barrier) while those are read. A response is delayed once, before
its first bytes. The proxy runs its own event loop in a thread, independent of the test's.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from harness.ports import free_port

# (method, path, JSON body or {}) -> an answer about that request
Predicate = Callable[[str, str, dict[str, Any]], bool]
Delay = Callable[[str, str, dict[str, Any]], float]

UNAVAILABLE = b'{"detail": "unavailable"}'


class MemoryProxy:
    def __init__(self, *, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.request_delay = 0.0
        # When set, each request's delay, in place of `request_delay`.
        self.request_delay_for: Delay | None = None
        self.response_delay = 0.0
        self.failing: Predicate = lambda method, path, body: False
        self.failed: list[str] = []  # "METHOD /path" of each request answered 503
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        # Enough threads for every request a test holds at a barrier at once.
        self._deciding = ThreadPoolExecutor(max_workers=32, thread_name_prefix="memory-proxy")
        self._server: asyncio.AbstractServer | None = None
        self._connections: set[asyncio.StreamWriter] = set()
        self._serving: set[asyncio.Task] = set()
        # Requests relayed and not yet answered, and when a request or answer last passed.
        self._in_flight = 0
        self._last_passed = time.monotonic()
        # (when, what happened, "METHOD /path"): what a failing test shows of the traffic.
        self._traffic: collections.deque[tuple[float, str, str]] = collections.deque(maxlen=40)

    @classmethod
    def in_front_of(cls, base_url: str) -> MemoryProxy:
        port = urlsplit(base_url).port
        assert port is not None, base_url
        return cls(upstream_port=port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> MemoryProxy:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(timeout=10)
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._deciding.shutdown(wait=False, cancel_futures=True)

    def cut(self) -> None:
        """Drop every open connection (the pooled ones a client would reuse)."""
        asyncio.run_coroutine_threadsafe(self._cut(), self._loop).result(timeout=10)

    async def settled(self, *, quiet: float = 1.0, timeout: float = 30.0) -> None:
        """Wait (on the caller's loop) until nothing has been in flight for `quiet` seconds.

        A turn's writes go on after its answer, and the next message waits for them; a test
        that slows the server for the next turn waits here first, or those writes would be
        slowed too (holding the next turn back) and their late answers would count as the
        server answering while the next turn's calls wait (memory's guard then waits longer).
        """
        deadline = time.monotonic() + timeout
        while self._in_flight or time.monotonic() - self._last_passed < quiet:
            assert time.monotonic() < deadline, f"{self._in_flight} requests still in flight"
            await asyncio.sleep(0.05)

    def recent(self) -> str:
        """The last requests: sent on, answered or refused, seconds before now."""
        now = time.monotonic()
        lines = [
            f"{when - now:7.2f} s  {what:8} {request}" for when, what, request in self._traffic
        ]
        return "\n".join(lines) or "no requests"

    def _noted(self, what: str, request: str) -> None:
        self._traffic.append((time.monotonic(), what, request))

    def _passed(self, change: int) -> None:
        self._in_flight = max(0, self._in_flight + change)
        self._last_passed = time.monotonic()

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(
            self._serve, "127.0.0.1", self.port, limit=1 << 20
        )

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
        await self._cut()
        # Let the connections' tasks see their sockets closed before the loop stops.
        if self._serving:
            await asyncio.wait(self._serving, timeout=5)

    async def _cut(self) -> None:
        for writer in list(self._connections):
            writer.close()
        self._connections.clear()

    async def _decide(self, check: Callable[..., Any], *request: Any) -> Any:
        return await self._loop.run_in_executor(self._deciding, check, *request)

    async def _serve(self, client_reader, client_writer) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._serving.add(task)
        task.add_done_callback(self._serving.discard)
        self._connections.add(client_writer)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                "127.0.0.1", self.upstream_port
            )
        except OSError:
            client_writer.close()
            self._connections.discard(client_writer)
            return
        self._connections.add(upstream_writer)
        # Set when a request went to the server: the first bytes of its answer are delayed.
        answer_due: dict[str, Any] = {"delay": False, "request": ""}

        async def requests() -> None:
            try:
                while (raw := await _request_read(client_reader)) is not None:
                    method, path, body = _request_parse(raw)
                    if await self._decide(self.failing, method, path, body):
                        self.failed.append(f"{method} {path}")
                        self._noted("refused", f"{method} {path}")
                        client_writer.write(_unavailable())
                        await client_writer.drain()
                        continue
                    if self.request_delay_for is not None:
                        delay = await self._decide(self.request_delay_for, method, path, body)
                    else:
                        delay = self.request_delay
                    if delay:
                        await asyncio.sleep(delay)
                    answer_due["delay"], answer_due["request"] = True, f"{method} {path}"
                    self._passed(+1)
                    self._noted("sent", answer_due["request"])
                    upstream_writer.write(raw)
                    await upstream_writer.drain()
            except (ConnectionError, OSError, asyncio.IncompleteReadError):
                pass
            finally:
                with contextlib.suppress(Exception):
                    upstream_writer.close()

        async def answers() -> None:
            try:
                while chunk := await upstream_reader.read(65536):
                    if answer_due["delay"]:
                        if self.response_delay:
                            await asyncio.sleep(self.response_delay)
                        answer_due["delay"] = False
                        self._passed(-1)
                        self._noted("answered", answer_due["request"])
                    client_writer.write(chunk)
                    await client_writer.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                with contextlib.suppress(Exception):
                    client_writer.close()

        try:
            await asyncio.gather(requests(), answers())
        finally:
            if answer_due["delay"]:  # cut before its answer: no longer in flight
                self._passed(-1)
            # One side hung up: so does the other.
            for writer in (client_writer, upstream_writer):
                with contextlib.suppress(Exception):
                    writer.close()
                self._connections.discard(writer)


async def _request_read(reader: asyncio.StreamReader) -> bytes | None:
    """One whole request (head and body), or None when the client hung up between two."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise
        return None
    headers = _headers(head)
    if "chunked" in headers.get("transfer-encoding", ""):
        raise ValueError("chunked request bodies are not relayed: send Content-Length")
    length = int(headers.get("content-length") or 0)
    return head + (await reader.readexactly(length) if length else b"")


def _headers(head: bytes) -> dict[str, str]:
    lines = head.decode("latin-1").split("\r\n")[1:]
    pairs = (line.split(":", 1) for line in lines if ":" in line)
    return {name.strip().lower(): value.strip() for name, value in pairs}


def _request_parse(raw: bytes) -> tuple[str, str, dict[str, Any]]:
    head, _, content = raw.partition(b"\r\n\r\n")
    method, path, *_ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
    try:
        body = json.loads(content) if content else {}
    except ValueError:
        body = {}
    return method, path, body if isinstance(body, dict) else {}


def _unavailable() -> bytes:
    return (
        b"HTTP/1.1 503 Service Unavailable\r\n"
        b"Content-Type: application/json\r\n"
        b"Content-Length: " + str(len(UNAVAILABLE)).encode() + b"\r\n\r\n" + UNAVAILABLE
    )
