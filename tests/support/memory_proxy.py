"""A loopback TCP proxy in front of a server, for making it slow or moving it.

    proxy = FaultProxy(upstream_port=8081).start()
    proxy.url                       # what the client is pointed at
    proxy.response_delay = 2.0      # the server now takes 2 s to answer each request
    proxy.request_delay = 0.5       # each request reaches the server 0.5 s late
    proxy.request_delay_for = lambda head: 0.5 if b"/memory" in head else 0.0
                                    # only some requests late, by their first bytes
    proxy.upstream_port = 8082      # a restarted server on another port
    proxy.stop()

Delays apply once per request/response exchange on a connection (the first chunk after the
other side spoke), so a request written in several chunks is not delayed several times.
When the server is gone, connections are closed, as the client would see a dead server.
The proxy runs its own event loop in a thread, independent of the test's.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable

from tests.support.services import free_port


class FaultProxy:
    def __init__(self, *, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.request_delay = 0.0
        # When set, the delay of each request, from its first chunk (request line first).
        self.request_delay_for: Callable[[bytes], float] | None = None
        self.response_delay = 0.0
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.AbstractServer | None = None
        self._connections: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FaultProxy:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(timeout=10)
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def cut(self) -> None:
        """Drop every open connection (the pooled ones a client would reuse)."""
        asyncio.run_coroutine_threadsafe(self._cut(), self._loop).result(timeout=10)

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
        await self._cut()

    async def _cut(self) -> None:
        for writer in list(self._connections):
            writer.close()
        self._connections.clear()

    async def _serve(self, client_reader, client_writer) -> None:
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
        turn = {"client_spoke": False}

        async def pump(reader, writer, *, from_client: bool) -> None:
            try:
                while chunk := await reader.read(65536):
                    first_of_exchange = turn["client_spoke"] != from_client
                    turn["client_spoke"] = from_client
                    if not from_client:
                        delay = self.response_delay
                    elif self.request_delay_for is not None:
                        delay = self.request_delay_for(chunk)
                    else:
                        delay = self.request_delay
                    if first_of_exchange and delay:
                        await asyncio.sleep(delay)
                    writer.write(chunk)
                    await writer.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                with contextlib.suppress(Exception):
                    writer.close()

        await asyncio.gather(
            pump(client_reader, upstream_writer, from_client=True),
            pump(upstream_reader, client_writer, from_client=False),
        )
        # One side hung up: so does the other.
        for writer in (client_writer, upstream_writer):
            with contextlib.suppress(Exception):
                writer.close()
            self._connections.discard(writer)
