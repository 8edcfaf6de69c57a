"""The server's door: the Host allow-list and the bearer token (AGENT_MEMORY_SERVER_TOKEN).

Both checks are shared by the Django middleware and `asgi.DirectDispatch`, so every route
answers alike whichever path serves it.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

from asgiref.sync import markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.request import split_domain_port, validate_host

from memoryserver.api.errors import envelope

# Public like on the real server: liveness probes and the SDK's read-timeout probe.
PUBLIC_PATHS = frozenset({"/health", "/metrics"})
# The loopback names the server always answers to; more come from the setting.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def allowed_hosts() -> list[str]:
    return [*LOOPBACK_HOSTS, *settings.AGENT_MEMORY_SERVER_ALLOWED_HOSTS]


def host_refusal(host: str | None) -> HttpResponse | None:
    """The 400 envelope for a Host header the server does not answer to, else None.

    A page on another site whose name was rebound to 127.0.0.1 still sends its own name as
    the Host: refusing unknown names keeps such pages out even without a token.
    """
    domain, _port = split_domain_port(host or "")
    if domain and validate_host(domain, allowed_hosts()):
        return None
    return envelope(
        400,
        "INVALID_HOST",
        f"this server does not answer to the host {host or '(none)'!r}; "
        "add it to AGENT_MEMORY_SERVER_ALLOWED_HOSTS",
        {"host": host or ""},
    )


def auth_failure(request: HttpRequest) -> HttpResponse | None:
    """The 401 envelope for a request without the right bearer token, else None."""
    token = settings.AGENT_MEMORY_SERVER_TOKEN
    if token and request.path not in PUBLIC_PATHS:
        header = request.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not given:
            return envelope(401, "AUTHENTICATION_REQUIRED", "a bearer token is required")
        if not hmac.compare_digest(given.strip().encode(), token.encode()):
            return envelope(401, "INVALID_TOKEN", "the bearer token is not valid")
    return None


class DoorMiddleware:
    """Host allow-list, then the bearer token, for whatever reaches Django's handler."""

    async_capable = True
    sync_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], Awaitable[HttpResponse]]) -> None:
        self.get_response = get_response
        markcoroutinefunction(self)

    async def __call__(self, request: HttpRequest) -> HttpResponse:
        failure = host_refusal(request.headers.get("Host")) or auth_failure(request)
        if failure is not None:
            return failure
        return await self.get_response(request)
