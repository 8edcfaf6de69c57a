"""Errors that services and selectors raise; `memoryserver.api.errors` turns them into the
spec's envelope with their status, code, details and headers.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    status = 400
    code = "INVALID_REQUEST"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.code
        self.status = status or self.status
        self.details = details or {}
        self.headers = headers or {}


class InvalidRequest(ApiError):
    pass


class NotFound(ApiError):
    status = 404
    code = "NOT_FOUND"


class Conflict(ApiError):
    status = 409
    code = "CONFLICT"


class SessionEnded(ApiError):
    status = 400
    code = "SESSION_ALREADY_ENDED"


class QueueFull(ApiError):
    status = 429
    code = "QUEUE_FULL"
