"""The spec's error envelope: {"error": CODE, "message": str, "details": {...}}.

Every failure becomes one: domain errors keep their code, DRF's own shapes are converted,
unknown routes are 404 and anything unexpected is a logged 500.
"""

from __future__ import annotations

import logging
from typing import Any

from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions as drf_exceptions

from memoryserver.errors import ApiError

logger = logging.getLogger(__name__)


def envelope(
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> JsonResponse:
    response = JsonResponse(
        {"error": code, "message": message, "details": details or {}}, status=status
    )
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def api_error_response(exc: ApiError) -> JsonResponse:
    return envelope(exc.status, exc.code, exc.message, exc.details, exc.headers)


def _drf_details(detail: Any) -> dict[str, Any]:
    if isinstance(detail, dict):
        return {k: _plain(v) for k, v in detail.items()}
    return {"errors": _plain(detail)}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return str(value)


def _first_message(details: Any) -> str:
    if isinstance(details, dict):
        for key, value in details.items():
            inner = _first_message(value)
            return inner if key in ("errors", "non_field_errors") else f"{key}: {inner}"
    if isinstance(details, list) and details:
        return _first_message(details[0])
    return str(details)


def handle_exception(exc: Exception, context: dict[str, Any]) -> JsonResponse:
    """Turn every failure into the spec's envelope; DRF's own shapes never leak out."""
    if isinstance(exc, ApiError):
        return api_error_response(exc)
    if isinstance(exc, drf_exceptions.ValidationError):
        details = _drf_details(exc.detail)
        return envelope(422, "VALIDATION_ERROR", _first_message(details), details)
    if isinstance(exc, drf_exceptions.ParseError):
        return envelope(400, "INVALID_REQUEST", f"request body is not valid JSON: {exc.detail}")
    if isinstance(exc, drf_exceptions.MethodNotAllowed):
        return envelope(405, "METHOD_NOT_ALLOWED", str(exc.detail))
    if isinstance(exc, Http404 | drf_exceptions.NotFound):
        return envelope(404, "NOT_FOUND", "not found")
    if isinstance(exc, drf_exceptions.APIException):
        code = str(exc.default_code).upper()
        return envelope(exc.status_code, code, str(exc.detail))
    logger.exception("unhandled error in the Agent Memory server")
    return envelope(500, "INTERNAL_ERROR", "internal server error")


def route_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    return envelope(404, "NOT_FOUND", f"no route for {request.method} {request.path}")
