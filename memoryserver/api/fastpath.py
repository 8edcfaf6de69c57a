"""Fast paths of the read routes of a recall: the common shapes checked without DRF.

A chat turn's recall sends three searches and a listing of the session at once, and DRF's
view and serializer machinery cost more than the search itself (its serializers deep-copy
every declared field on every request). Requests of the common shape are checked here:

- a search with a query and filters among `session_ids`, `annotations`, `relevant_k`,
  `order_by` and `annotation_filter_mode`, every value plain and valid;
- a listing with `limit`, `offset`, `order_by` and `session_ids` as plain values.

Anything else, including every doubtful value, goes to the DRF view of the route, which stays
the one authority on what is valid and on every error message. `tests/memoryserver/test_fastpath.py`
checks that both paths give the same status, headers and bytes for the same request.
"""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from rest_framework.renderers import JSONRenderer

from memoryserver import selectors
from memoryserver.api.errors import handle_exception
from memoryserver.api.serializers import ANNOTATION_KEY
from memoryserver.limits import MAX_IDS_PER_REQUEST, MAX_OFFSET

_FILTERS = frozenset(
    {"session_ids", "annotations", "relevant_k", "order_by", "annotation_filter_mode"}
)
_ORDERS = frozenset({"ingested_at", "created_at"})
_MODES = frozenset({"pre", "post"})
_RENDERER = JSONRenderer()


class _Doubtful(Exception):
    """Not the common shape: DRF decides."""


def _text(value: Any) -> str:
    """A string DRF's CharField takes as it is: no NUL, no lone surrogate."""
    if not isinstance(value, str) or "\x00" in value:
        raise _Doubtful
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _Doubtful from None
    return value


def _identifier(value: Any) -> str:
    if not _text(value).strip() or "/" in value:
        raise _Doubtful
    return value


def _never(value: str) -> Any:
    raise _Doubtful  # NaN and Infinity: DRF's strict parser refuses them


def search_input(body: bytes) -> tuple[str | None, dict[str, Any]]:
    """(query, filters) as `MemorySearch` validates them; _Doubtful when DRF must decide."""
    try:
        data = json.loads(body, parse_constant=_never)
    except (ValueError, RecursionError):
        raise _Doubtful from None
    if not isinstance(data, dict) or not data.keys() <= {"query", "filters"}:
        raise _Doubtful
    query = data.get("query")
    if query is not None and not _text(query).strip():
        raise _Doubtful
    raw = data.get("filters")
    if raw is None:
        return query, {}
    if not isinstance(raw, dict) or not raw.keys() <= _FILTERS:
        raise _Doubtful
    filters: dict[str, Any] = {"annotation_filter_mode": "pre", "order_by": "ingested_at"}
    if "session_ids" in raw:
        filters["session_ids"] = _sessions(raw["session_ids"])
    annotations = raw.get("annotations")
    if annotations is not None:
        if not isinstance(annotations, dict):
            raise _Doubtful
        for key, value in annotations.items():
            if not ANNOTATION_KEY.match(key):
                raise _Doubtful
            _text(value)
        filters["annotations"] = annotations
    elif "annotations" in raw:
        filters["annotations"] = None
    if "relevant_k" in raw:
        k = raw["relevant_k"]
        if k is not None and (type(k) is not int or not 1 <= k <= 1000):
            raise _Doubtful
        filters["relevant_k"] = k
    if "order_by" in raw:
        order = raw["order_by"]
        if order is not None and order not in _ORDERS:
            raise _Doubtful
        filters["order_by"] = order
    if "annotation_filter_mode" in raw:
        if raw["annotation_filter_mode"] not in _MODES:
            raise _Doubtful
        filters["annotation_filter_mode"] = raw["annotation_filter_mode"]
    return query, filters


def _sessions(value: Any) -> str | list[str] | None:
    if value is None:
        return None
    if isinstance(value, str) and value.lower() == "all":
        return "all"
    if not isinstance(value, list) or not value or len(value) > MAX_IDS_PER_REQUEST:
        raise _Doubtful
    ids = [_identifier(s) for s in value]
    return "all" if len(ids) == 1 and ids[0].lower() == "all" else ids


def search(request: HttpRequest, user_id: str, session_id: str, *, fallback: Any) -> HttpResponse:
    """Answer a search of the common shape; hand anything else to `fallback` (DRF's view)."""
    try:
        if (
            request.method != "POST"
            or request.content_type != "application/json"
            or request.content_params.get("charset", "utf-8").lower() not in ("utf-8", "utf8")
        ):
            raise _Doubtful
        _identifier(user_id)
        _identifier(session_id)
        query, filters = search_input(request.body)
    except _Doubtful:
        return fallback(request, user_id, session_id)
    try:
        found = selectors.blocks_search(
            user_id=user_id, session_id=session_id, query=query, filters=filters
        )
        response = HttpResponse(
            _RENDERER.render({"memory_blocks": found, "count": len(found)}),
            content_type="application/json",
        )
    except Exception as exc:  # the same envelope, and the same logging, as through DRF
        response = handle_exception(exc, {})
    response["Allow"] = "POST, OPTIONS"  # what DRF's view adds to every answer of this route
    return response


_LIST_PARAMS = frozenset({"limit", "offset", "order_by", "session_ids"})


def _whole(raw: str | None, default: int, low: int, high: int) -> int:
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 10) or not low <= int(raw) <= high:
        raise _Doubtful
    return int(raw)


def list_input(params: Any) -> dict[str, Any]:
    """The listing's query parameters as `MemoryListQuery` validates them, or _Doubtful."""
    if not params.keys() <= _LIST_PARAMS:
        raise _Doubtful
    order = params.get("order_by", "ingested_at")
    if order not in _ORDERS:
        raise _Doubtful
    sessions = _text(params.get("session_ids", "")).strip()
    ids: list[str] | None = None
    if sessions.lower() not in ("", "all"):
        ids = [_identifier(v.strip()) for v in sessions.split(",") if v.strip()]
        if len(ids) > MAX_IDS_PER_REQUEST:
            raise _Doubtful
    return {
        "limit": _whole(params.get("limit"), 20, 1, 200),
        "offset": _whole(params.get("offset"), 0, 0, MAX_OFFSET),
        "order_by": order,
        "session_ids": ids,
    }


def memory_list(request: HttpRequest, user_id: str, *, fallback: Any) -> HttpResponse:
    """Answer a listing of the common shape; hand anything else to `fallback` (DRF's view)."""
    try:
        if request.method != "GET":
            raise _Doubtful
        _identifier(user_id)
        query = list_input(request.GET)
    except _Doubtful:
        return fallback(request, user_id)
    try:
        blocks, total = selectors.blocks_list(user_id=user_id, **query)
        answer = {
            "memory_blocks": blocks,
            "count": len(blocks),
            "total": total,
            "limit": query["limit"],
            "offset": query["offset"],
        }
        response = HttpResponse(_RENDERER.render(answer), content_type="application/json")
    except Exception as exc:  # the same envelope, and the same logging, as through DRF
        response = handle_exception(exc, {})
    response["Allow"] = "GET, HEAD, OPTIONS"  # what DRF's view adds to every answer of this route
    return response
