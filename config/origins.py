"""One origin rule for every way a browser can act as the shopper: websocket and HTTP writes.

The rule is Django's own CSRF origin check (`CsrfViewMiddleware`): an origin is accepted when
it is exactly the request's own origin — scheme, host and port, the host being one of
`ALLOWED_HOSTS` — or an entry of `CSRF_TRUSTED_ORIGINS` (where `https://*.example.com`
admits subdomains). Channels' `AllowedHostsOriginValidator` compared hosts only, so a page
on any other port or scheme of the same machine could open the chat as the shopper.

It lives in `config` because it is wiring at the edge: `asgi.py` wraps the websocket route
in it and `settings.MIDDLEWARE` puts it in front of every HTTP view, so no app imports it
(apps never import `config`) and a new API view is covered without opting in.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Callable
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
REFUSED = "Cross-origin request refused."


def origin_allowed(request: HttpRequest, origin: str) -> bool:
    """Whether `origin` may act on the site `request` was sent to (Django's CSRF rule)."""
    probe = copy.copy(request)
    probe.META = {**request.META, "HTTP_ORIGIN": origin}
    # A fresh instance each time: it caches CSRF_TRUSTED_ORIGINS on first use, and settings
    # can change under a long-lived process's tests. The check itself is Django's, unchanged.
    return CsrfViewMiddleware(_no_view)._origin_verified(probe)


def _no_view(request: HttpRequest) -> HttpResponse:
    raise AssertionError("the origin rule never calls a view")


def request_origin(request: HttpRequest) -> str | None:
    """The origin a write claims: its Origin header, else the scheme and host of its Referer.

    Browsers send Origin with every POST; the Referer fallback covers older clients, as the
    CSRF check does over HTTPS. A request with neither is not a browser acting for a page
    and is left to the CSRF token.
    """
    origin = request.headers.get("Origin")
    if origin is not None:
        return origin
    referer = request.headers.get("Referer")
    if not referer:
        return None
    try:
        parts = urlsplit(referer)
    except ValueError:
        return "null"
    return f"{parts.scheme}://{parts.netloc}"


class OriginCheckMiddleware:
    """Refuse an HTTP write (any unsafe method) whose origin is not the site's own.

    Django's CSRF middleware applies the same rule to the views it protects; this also
    covers the REST API's views (DRF checks CSRF only for signed-in sessions), so a
    signed-out turn cannot be driven from another page either.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in SAFE_METHODS:
            origin = request_origin(request)
            if origin is not None and not origin_allowed(request, origin):
                return JsonResponse({"detail": REFUSED}, status=403)
        return self.get_response(request)


def websocket_request(scope: dict) -> ASGIRequest:
    """The handshake as a Django request, so the HTTP rule reads it the same way.

    `ws`/`wss` become `http`/`https`: a page served over https opens `wss://`.
    """
    scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
    return ASGIRequest({**scope, "type": "http", "method": "GET", "scheme": scheme}, io.BytesIO())


class WebsocketOriginValidator:
    """Accept a websocket handshake only from the site's own origin (or a trusted one).

    A handshake without Origin is refused: every browser sends one, and the chat socket
    has no other client.
    """

    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        request = websocket_request(scope)
        origin = request.headers.get("Origin")
        if origin is None or not origin_allowed(request, origin):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
