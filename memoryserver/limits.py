"""What one request may ask of the server, and the checks that hold it to that.

Bad input gets a clear error and changes nothing: a body over the size limit is 413, JSON
nested too deep, an integer past its bound, and too many blocks or ids in one request are
400 `INVALID_REQUEST`, each before anything is written. Every bound sits far above what the
SDK's legitimate use sends (the app sends at most a handful of blocks per request, TTLs of
days to a year, offsets within its own counts).
"""

from __future__ import annotations

from typing import Any

from memoryserver.errors import ApiError

# Bytes in one request body (Django's own default upload limit, now answered with 413).
MAX_BODY_BYTES = 2_621_440
# Nesting of objects and arrays in a JSON body (metadata is the only free-form part).
MAX_JSON_DEPTH = 32
# Facts or messages in one add: each is embedded, and the whole request is written under the
# process-wide write lock, so this bounds how long one request holds it.
MAX_BLOCKS_PER_REQUEST = 100
# Block ids or session ids listed in one request (delete, TTL change, search filters).
MAX_IDS_PER_REQUEST = 1000
# TTLs in seconds: 100 years. Past this an expiry date would soon leave the calendar.
MAX_TTL_SECONDS = 100 * 365 * 86_400
# Offsets into a listing, and prompt version numbers.
MAX_OFFSET = 1_000_000_000
MAX_VERSION = 1_000_000_000


class LimitExceeded(ApiError):
    """A request past one of the limits above: 400 INVALID_REQUEST, naming the limit."""

    status = 400
    code = "INVALID_REQUEST"


class PayloadTooLarge(ApiError):
    status = 413
    code = "PAYLOAD_TOO_LARGE"


def body_too_large(size: int | None = None) -> PayloadTooLarge:
    details: dict[str, Any] = {"max_bytes": MAX_BODY_BYTES}
    if size is not None:
        details["bytes"] = size
    return PayloadTooLarge(
        f"request body is larger than {MAX_BODY_BYTES} bytes; send fewer or shorter blocks "
        "per request",
        details=details,
    )


def json_depth_check(data: Any, limit: int = MAX_JSON_DEPTH) -> None:
    """Raise LimitExceeded when `data` nests objects or arrays deeper than `limit`.

    Iterative, so the check itself cannot run out of stack on what it is checking.
    """
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            raise json_too_deep(limit)
        stack.extend((child, depth + 1) for child in children)


def json_too_deep(limit: int = MAX_JSON_DEPTH) -> LimitExceeded:
    return LimitExceeded(
        f"JSON body is nested deeper than {limit} levels", details={"max_depth": limit}
    )


def integer_too_large(field: str, maximum: int) -> LimitExceeded:
    return LimitExceeded(
        f"{field} must be at most {maximum}",
        details={field: "too large", "maximum": maximum},
    )


def too_many(field: str, count: int, maximum: int) -> LimitExceeded:
    return LimitExceeded(
        f"{field} may hold at most {maximum} entries per request (got {count}); "
        "split it over several requests",
        details={field: "too many", "maximum": maximum, "count": count},
    )
