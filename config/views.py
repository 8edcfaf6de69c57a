from __future__ import annotations

import logging
import sys

from django.db import DatabaseError, OperationalError
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseNotFound,
    HttpResponseRedirect,
    HttpResponseServerError,
    JsonResponse,
)
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.views.decorators.http import require_GET

from llm.factory import model_mode
from memoryapp.public import memory_health_status

logger = logging.getLogger(__name__)


@require_GET
def healthz(request):
    """Report the app, the memory server and which model answers, for people and probes."""
    return JsonResponse(
        {"app": "ok", "memory": memory_health_status(), "model": model_mode()},
    )


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """The shop's own 404: JSON under /api/, else the page with the shop's header.

    The page reads the database (the signed-in shopper, the demo settings); when that is
    what fails, a plain page that needs nothing stands in, rather than a 404 becoming a 500.
    """
    if request.path.startswith("/api/"):
        return JsonResponse({"code": 404, "message": "Not found."}, status=404)
    try:
        return render(request, "404.html", status=404)
    except DatabaseError as exc:
        logger.warning("The 404 page was shown without the database: %s", exc)
        return HttpResponseNotFound(render_to_string("404_plain.html"))


# Seconds a client is asked to wait when the database is busy: a burst queues its writers
# for up to SQLITE_BUSY_TIMEOUT_SECONDS, so the next try usually finds it free.
BUSY_RETRY_AFTER_SECONDS = 5


def database_busy(exc: BaseException | None) -> bool:
    """Whether exc is the database refusing for now (SQLite's lock), not a broken query."""
    if not isinstance(exc, OperationalError):
        return False
    message = str(exc).lower()
    return "database is locked" in message or "database table is locked" in message


def server_error(request: HttpRequest) -> HttpResponse:
    """The shop's 500 page; a database too busy to answer gets a retry page (503) instead.

    A burst of writes past what the busy timeout queues is no bug of the page asked for:
    the shopper is told to try again in a moment (with Retry-After), never shown a failure.
    """
    if database_busy(sys.exc_info()[1]):
        if request.path.startswith("/api/"):
            response: HttpResponse = JsonResponse(
                {"code": 503, "message": "The shop is busy; try again in a few seconds."},
                status=503,
            )
        else:
            response = HttpResponse(render_to_string("503_busy.html"), status=503)
        response["Retry-After"] = str(BUSY_RETRY_AFTER_SECONDS)
        return response
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"code": 500, "message": "Something went wrong on our side. Please try again."},
            status=500,
        )
    return HttpResponseServerError(render_to_string("500.html"))


@require_GET
def favicon(request: HttpRequest) -> HttpResponseRedirect:
    """Browsers ask /favicon.ico of every page, the admin's too: point them at the icon.

    Not permanent: the icon's static name changes with each deployment's file hashes.
    """
    return HttpResponseRedirect(static("favicon.svg"))
