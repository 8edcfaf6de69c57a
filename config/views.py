from __future__ import annotations

import logging

from django.db import DatabaseError
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseNotFound,
    HttpResponseRedirect,
    JsonResponse,
)
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.views.decorators.http import require_GET

from llm.factory import model_mode
from memoryapp.clients import memory_health_status

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


@require_GET
def favicon(request: HttpRequest) -> HttpResponseRedirect:
    """Browsers ask /favicon.ico of every page, the admin's too: point them at the icon.

    Not permanent: the icon's static name changes with each deployment's file hashes.
    """
    return HttpResponseRedirect(static("favicon.svg"))
