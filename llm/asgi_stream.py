"""An httpx transport that serves requests from an ASGI app in this process, streaming.

httpx's own `ASGITransport` runs the app to completion and hands back the whole body at
once, so an SSE stream from an in-process model would reach its reader in one piece: no
token would show before the last one was produced, and closing the response early could
not stop the app. Here the app runs as its own task; each body message it sends is handed
to the reader as it is sent, and closing the response cancels the app (the ASGI
equivalent of a client hanging up).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any

import httpx

Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [
        MutableMapping[str, Any],
        Callable[[], Awaitable[Message]],
        Callable[[Message], Awaitable[None]],
    ],
    Awaitable[None],
]

# Put on the queue when the app returns (or fails), so a reader never waits forever.
_APP_ENDED: Message = {"type": "aisle.app.ended"}


class StreamingASGITransport(httpx.AsyncBaseTransport):
    """Call an ASGI app for each request and stream its response body as it is sent."""

    def __init__(self, app: ASGIApp, *, client: tuple[str, int] = ("127.0.0.1", 123)) -> None:
        self.app = app
        self.client = client

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = b"".join([part async for part in request.stream])  # type: ignore[union-attr]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": request.method,
            "headers": [(key.lower(), value) for key, value in request.headers.raw],
            "scheme": request.url.scheme,
            "path": request.url.path,
            "raw_path": request.url.raw_path.split(b"?")[0],
            "query_string": request.url.query,
            "server": (request.url.host, request.url.port),
            "client": self.client,
            "root_path": "",
        }
        messages: asyncio.Queue[Message] = asyncio.Queue()
        hung_up = asyncio.Event()
        request_read = False

        async def receive() -> Message:
            nonlocal request_read
            if not request_read:
                request_read = True
                return {"type": "http.request", "body": body, "more_body": False}
            await hung_up.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            messages.put_nowait(message)

        async def run() -> None:
            try:
                await self.app(scope, receive, send)
            finally:
                messages.put_nowait(_APP_ENDED)

        task = asyncio.get_running_loop().create_task(run())
        stream = _ResponseStream(messages, task, hung_up)
        try:
            start = await stream.next_message()
        except BaseException:
            await stream.aclose()
            raise
        if start is _APP_ENDED or start.get("type") != "http.response.start":
            await stream.aclose()
            raise RuntimeError("the ASGI app ended without starting a response")
        return httpx.Response(start["status"], headers=start.get("headers") or [], stream=stream)


class _ResponseStream(httpx.AsyncByteStream):
    def __init__(
        self, messages: asyncio.Queue[Message], task: asyncio.Task, hung_up: asyncio.Event
    ) -> None:
        self._messages = messages
        self._task = task
        self._hung_up = hung_up
        self._complete = False

    async def next_message(self) -> Message:
        message = await self._messages.get()
        if message is _APP_ENDED and self._task.done() and not self._task.cancelled():
            # The app failed: raise its error to the caller, as httpx's transport does.
            error = self._task.exception()
            if error is not None:
                raise error
        return message

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while not self._complete:
            message = await self.next_message()
            if message is _APP_ENDED:
                raise httpx.RemoteProtocolError("the ASGI app ended before its response did")
            if message.get("type") != "http.response.body":
                continue
            self._complete = not message.get("more_body", False)
            if message.get("body"):
                yield message["body"]

    async def aclose(self) -> None:
        """Hang up: the app sees a disconnect, and is cancelled if it is still running."""
        self._hung_up.set()
        if not self._task.done():
            self._task.cancel()
        # `wait` neither raises the app's error nor swallows a cancellation of the caller.
        await asyncio.wait([self._task])
        if not self._task.cancelled():
            self._task.exception()  # retrieved, so asyncio does not log it as lost
