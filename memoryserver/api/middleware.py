"""Bearer-token check for the embedded server (AGENT_MEMORY_SERVER_TOKEN)."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

from asgiref.sync import markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse

from memoryserver.api.errors import envelope

# Public like on the real server: liveness probes and the SDK's read-timeout probe.
PUBLIC_PATHS = frozenset({"/health", "/metrics"})


def auth_failure(request: HttpRequest) -> HttpResponse | None:
    """The 401 envelope for a request without the right bearer token, else None.

    Shared by the middleware and the direct dispatch in `asgi.py`, so both answer alike.
    """
    token = settings.AGENT_MEMORY_SERVER_TOKEN
    if token and request.path not in PUBLIC_PATHS:
        header = request.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not given:
            return envelope(401, "AUTHENTICATION_REQUIRED", "a bearer token is required")
        if not hmac.compare_digest(given.strip().encode(), token.encode()):
            return envelope(401, "INVALID_TOKEN", "the bearer token is not valid")
    return None


class BearerTokenMiddleware:
    async_capable = True
    sync_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], Awaitable[HttpResponse]]) -> None:
        self.get_response = get_response
        markcoroutinefunction(self)

    async def __call__(self, request: HttpRequest) -> HttpResponse:
        failure = auth_failure(request)
        if failure is not None:
            return failure
        return await self.get_response(request)
