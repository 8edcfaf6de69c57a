"""ASGI application of the embedded server (settings `memoryserver.settings`).

Requests for the API's routes skip Django's ASGI handler and go straight from the event loop
to the view on a thread pool (see `DirectDispatch`): the handler's per-request machinery
(a fresh thread for the request-started/finished signals, the middleware chain, three thread
hops) cost more than a whole search and serialised concurrent requests on the GIL.

Reads and writes run on two pools: a write embeds its blocks (tens of milliseconds of CPU
with MiniLM), so a burst of them on a shared pool held every thread while searches waited
their turn for seconds. Writes that embed queue on their own pool instead, where those
waiting together are embedded together (`write_batch`) on a bounded number of threads.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import django
from django.core.handlers.asgi import ASGIHandler, ASGIRequest
from django.urls import Resolver404, get_resolver

from memoryserver.api.errors import api_error_response
from memoryserver.api.middleware import auth_failure, host_refusal
from memoryserver.blas import single_threaded_blas
from memoryserver.errors import ApiError
from memoryserver.limits import MAX_BODY_BYTES, body_too_large
from memoryserver.write_batch import GATHERING_THREADS

SETTINGS_MODULE = "memoryserver.settings"
# The reads' pool (and every request that does not embed): enough threads that the recalls
# of several shoppers run side by side; SQLite readers each get their own connection (WAL).
REQUEST_THREADS = 8

logger = logging.getLogger(__name__)

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class DirectDispatch:
    """Serve the API's routes without Django's request handler; anything else falls back.

    Every request, whichever path then serves it, first passes the door here: the Host
    allow-list (before the body is read) and the body-size limit (413). The API's routes then
    get the same bearer check, view, exception handler and the same response bytes and
    headers as through Django: only the handler's plumbing is skipped. The skipped
    request signals only reset the debug query log and recycle the handler thread's own
    database connection, neither of which the pool threads use.

    A route's methods that embed (`in_thread_pool(..., embeds=...)`) run on `writes`, every
    other request on `executor`: a search, a listing or a session open never waits for a
    thread behind a burst of writes.
    """

    def __init__(self, fallback: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.fallback = fallback
        self.resolver = get_resolver()
        self.executor = ThreadPoolExecutor(REQUEST_THREADS, thread_name_prefix="agentmemory-req")
        # More threads than embed at once (AGENT_MEMORY_WRITE_THREADS): the rest are writes
        # waiting in the batcher to be embedded together with the next batch.
        self.writes = ThreadPoolExecutor(GATHERING_THREADS, thread_name_prefix="agentmemory-write")

    def shutdown(self) -> None:
        self.executor.shutdown(wait=True)
        self.writes.shutdown(wait=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.fallback(scope, receive, send)
            return
        # The door comes first, for every route, before a byte of the body is read.
        refusal = host_refusal(_header(scope, b"host"))
        if refusal is not None:
            await _send(refusal, send)
            return
        body = await _read_body(scope, receive)
        if body is None:
            return  # the client left before sending its body; nobody to answer
        if isinstance(body, ApiError):
            await _send(api_error_response(body), send)
            return
        response = await self._direct(scope, body)
        if response is None:
            await self.fallback(scope, _replay(body, receive), send)
            return
        await _send(response, send)

    async def _direct(self, scope: Scope, body: bytes) -> Any | None:
        try:
            request = ASGIRequest(scope, io.BytesIO(body))
            match = self.resolver.resolve(request.path_info)
        except (Resolver404, UnicodeDecodeError):
            return None
        view = getattr(match.func, "sync_view", None)
        if view is None:
            return None
        failure = auth_failure(request)
        if failure is not None:
            return failure
        request.resolver_match = match
        embeds = request.method in getattr(match.func, "embedding_methods", ())
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self.writes if embeds else self.executor,
            lambda: view(request, *match.args, **match.kwargs),
        )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin1")
    return None


async def _read_body(scope: Scope, receive: Receive) -> bytes | ApiError | None:
    """The whole body; PayloadTooLarge once it passes MAX_BODY_BYTES; None if the client left.

    A declared Content-Length past the limit is refused before reading; a chunked body is
    refused as soon as it passes the limit, so an oversized body is never held in memory.
    """
    declared = _header(scope, b"content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > MAX_BODY_BYTES:
        return body_too_large(int(declared))
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        body += message.get("body", b"")
        if len(body) > MAX_BODY_BYTES:
            return body_too_large()
        if not message.get("more_body", False):
            return bytes(body)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive callable that hands the already-read body to the fallback once."""
    sent = False

    async def replayed() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


async def _send(response: Any, send: Send) -> None:
    # Exactly what Django's ASGIHandler.send_response does for a plain HttpResponse.
    headers = [
        (str(name).encode("ascii"), str(value).encode("latin1")) for name, value in response.items()
    ]
    for cookie in response.cookies.values():
        headers.append((b"Set-Cookie", cookie.output(header="").encode("ascii").strip()))
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    # No response.close(): it would only fire request_finished, whose receivers tidy the
    # debug query log and the calling thread's connection, and the loop thread has neither.
    await send({"type": "http.response.body", "body": response.content})


def build_application() -> DirectDispatch:
    """Set Django up on the server's own settings and wrap its handler."""
    os.environ["DJANGO_SETTINGS_MODULE"] = SETTINGS_MODULE
    django.setup(set_prefix=False)
    single_threaded_blas()
    return DirectDispatch(ASGIHandler())
