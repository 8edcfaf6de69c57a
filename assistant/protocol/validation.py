"""Parse client frames strictly: a bad frame gets a clear error and writes nothing.

The websocket and the REST API parse with the same functions. Every string field is
normalised first (lone surrogates and NUL removed: neither can be stored or sent on), and
every field's type is checked before its value is used, so no input reaches a later
stage in a shape it cannot handle.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

from memoryapp.public import RETENTION, session_id_clean, text_clean
from shop.numbers import NumberRefused, number_checked, price_limit_checked

RETENTION_NAMES = tuple(p.name for p in RETENTION)

MAX_TEXT_CHARS = 4000
# A visit's turns counted by the client: far past any conversation, far inside the database's
# integer column.
MAX_TURN_COUNT = 1_000_000
# Three history exchanges of two full texts each, with room for the other fields.
MAX_FRAME_CHARS = 64_000
MAX_HISTORY_EXCHANGES = 3
# The shopper's own earlier messages, older than the history's exchanges: read only for what
# they state about the shopper (a size said ten messages ago), never shown to the model.
MAX_SAID_MESSAGES = 20
MAX_SAID_CHARS = 1000
MAX_HISTORY_SKUS = 10
MAX_SKU_CHARS = 40
MAX_FILTER_CHARS = 100
CATALOG_FILTERS = ("q", "category", "colour", "size", "brand", "max_price")
PAGE_KINDS = ("product", "catalog", "other")

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class FrameError(ValueError):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class PageRequest:
    """The page the shopper is on, as the panel reports it (a lead, looked up before use)."""

    kind: Literal["product", "catalog", "other"]
    sku: str | None = None
    filters: dict[str, str | float] = field(default_factory=dict)


@dataclass(frozen=True)
class HistoryExchange:
    """One exchange of a signed-out conversation, as the browser kept it."""

    user: str
    assistant: str
    skus: tuple[str, ...] = ()


@dataclass(frozen=True)
class TurnRequest:
    text: str
    session_id: str | None
    turn_count: int = 0
    session_date: date | None = None
    retention: str | None = None
    page: PageRequest | None = None
    history: tuple[HistoryExchange, ...] = ()
    said: tuple[str, ...] = ()


@dataclass(frozen=True)
class CloseRequest:
    session_id: str | None


@dataclass(frozen=True)
class HelloRequest:
    page: PageRequest | None


def text_normalise(value: str) -> str:
    """Remove what can be neither stored nor encoded: NUL and lone UTF-16 surrogates.

    The memory policy's own rule (`memoryapp.cleaning.text_clean`): a frame is cleaned
    exactly as a memory write would be.
    """
    return text_clean(value)


def frame_decode(raw: str | None) -> dict[str, Any]:
    if raw is None:
        raise FrameError(400, "Frames must be JSON text.")
    if len(raw) > MAX_FRAME_CHARS:
        raise FrameError(400, f"Frames are limited to {MAX_FRAME_CHARS} characters.")
    try:
        data = json.loads(raw)
    # Not only JSONDecodeError: an integer of more than 4,300 digits is a plain ValueError,
    # deep nesting a RecursionError. Whatever the decoder refuses is the client's bad frame.
    except Exception:
        raise FrameError(400, "That frame is not valid JSON.") from None
    if not isinstance(data, dict):
        raise FrameError(400, "A frame must be a JSON object with a type.")
    return data


def frame_type(data: dict[str, Any]) -> str:
    kind = data.get("type")
    if not isinstance(kind, str):
        raise FrameError(400, "A frame needs a type: message, stop, hello or close.")
    return kind


def _session_id(data: dict[str, Any]) -> str | None:
    """The client's session id, or None (a new session) when it is absent or malformed.

    A malformed id is treated like an unknown one: it can never name a session, so the
    shopper gets a new session rather than an error or a turn without memory.
    """
    value = data.get("session_id")
    if value is None:
        return None
    if not isinstance(value, str):
        raise FrameError(400, "session_id must be a string or null.")
    # The memory policy's own rule: an id it could not look up never reaches it.
    return session_id_clean(value)


def _message_text(data: dict[str, Any]) -> str:
    text = data.get("text")
    if not isinstance(text, str):
        raise FrameError(400, "text is required and must be a string.")
    text = text_normalise(text).strip()
    if not text:
        raise FrameError(400, "Type a message first.")
    if len(text) > MAX_TEXT_CHARS:
        raise FrameError(400, f"Messages are limited to {MAX_TEXT_CHARS} characters.")
    return text


def _turn_count(data: dict[str, Any]) -> int:
    turn_count = data.get("turn_count", 0)
    if turn_count is None:
        return 0
    try:
        return int(
            number_checked(turn_count, name="turn_count", low=0, high=MAX_TURN_COUNT, whole=True)
        )
    except NumberRefused as refused:
        raise FrameError(400, f"{refused}.") from None


def _session_date(data: dict[str, Any]) -> date | None:
    raw = data.get("session_date")
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise FrameError(400, "session_date must be a string (YYYY-MM-DD) or null.")
    raw = text_normalise(raw).strip()
    if not raw:
        return None
    if not _DATE.match(raw):
        raise FrameError(422, "session_date must be a date written YYYY-MM-DD.")
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise FrameError(422, f"{raw} is not a real date (YYYY-MM-DD).") from None


def _retention(data: dict[str, Any]) -> str | None:
    retention = data.get("retention")
    if retention is None:
        return None
    if not isinstance(retention, str) or retention not in RETENTION_NAMES:
        raise FrameError(400, f"retention must be null or one of: {', '.join(RETENTION_NAMES)}.")
    return retention


def _sku(value: Any, *, what: str) -> str:
    if not isinstance(value, str):
        raise FrameError(400, f"{what} must be a string.")
    sku = text_normalise(value).strip()
    if not sku or len(sku) > MAX_SKU_CHARS:
        raise FrameError(400, f"{what} must be 1 to {MAX_SKU_CHARS} characters.")
    return sku


def _catalog_filters(raw: Any) -> dict[str, str | float]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise FrameError(400, "page.filters must be an object.")
    unknown = sorted(str(key) for key in raw if key not in CATALOG_FILTERS)
    if unknown:
        raise FrameError(
            400,
            f"Unknown page filter {', '.join(unknown)}; use {', '.join(CATALOG_FILTERS)}.",
        )
    filters: dict[str, str | float] = {}
    for key, value in raw.items():
        if value is None:
            continue
        if key == "max_price":
            try:
                filters[key] = price_limit_checked(value, name="page.filters.max_price")
            except NumberRefused as refused:
                raise FrameError(400, f"{refused} (EUR).") from None
            continue
        if not isinstance(value, str):
            raise FrameError(400, f"page.filters.{key} must be a string.")
        value = text_normalise(value).strip()
        if len(value) > MAX_FILTER_CHARS:
            raise FrameError(
                400, f"page.filters.{key} is limited to {MAX_FILTER_CHARS} characters."
            )
        if value:
            filters[key] = value
    return filters


def _page(data: dict[str, Any]) -> PageRequest | None:
    raw = data.get("page")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise FrameError(400, "page must be an object or null.")
    kind = raw.get("kind")
    if kind not in PAGE_KINDS:
        raise FrameError(400, f"page.kind must be one of: {', '.join(PAGE_KINDS)}.")
    if kind == "product":
        return PageRequest(kind="product", sku=_sku(raw.get("sku"), what="page.sku"))
    if kind == "catalog":
        return PageRequest(kind="catalog", filters=_catalog_filters(raw.get("filters")))
    return PageRequest(kind="other")


def _history_text(item: dict[str, Any], name: str) -> str:
    value = item.get(name)
    if not isinstance(value, str):
        raise FrameError(400, f"Each history exchange needs {name} as a string.")
    value = text_normalise(value).strip()
    if len(value) > MAX_TEXT_CHARS:
        raise FrameError(400, f"history {name} texts are limited to {MAX_TEXT_CHARS} characters.")
    return value


def _history(data: dict[str, Any]) -> tuple[HistoryExchange, ...]:
    raw = data.get("history")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise FrameError(400, "history must be a list or null.")
    if len(raw) > MAX_HISTORY_EXCHANGES:
        raise FrameError(400, f"history holds at most {MAX_HISTORY_EXCHANGES} exchanges.")
    exchanges = []
    for item in raw:
        if not isinstance(item, dict):
            raise FrameError(400, "Each history exchange must be an object.")
        skus = item.get("skus") or []
        if not isinstance(skus, list):
            raise FrameError(400, "history skus must be a list.")
        if len(skus) > MAX_HISTORY_SKUS:
            raise FrameError(400, f"history exchanges carry at most {MAX_HISTORY_SKUS} SKUs.")
        exchanges.append(
            HistoryExchange(
                user=_history_text(item, "user"),
                assistant=_history_text(item, "assistant"),
                skus=tuple(_sku(sku, what="history skus") for sku in skus),
            )
        )
    return tuple(exchanges)


def _said(data: dict[str, Any]) -> tuple[str, ...]:
    raw = data.get("said")
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise FrameError(400, "said must be a list of strings or null.")
    if len(raw) > MAX_SAID_MESSAGES:
        raise FrameError(400, f"said holds at most {MAX_SAID_MESSAGES} messages.")
    if any(len(item) > MAX_SAID_CHARS for item in raw):
        raise FrameError(400, f"said messages are limited to {MAX_SAID_CHARS} characters.")
    return tuple(text_normalise(item).strip() for item in raw)


def turn_request_parse(data: dict[str, Any]) -> TurnRequest:
    return TurnRequest(
        text=_message_text(data),
        session_id=_session_id(data),
        turn_count=_turn_count(data),
        session_date=_session_date(data),
        retention=_retention(data),
        page=_page(data),
        history=_history(data),
        said=_said(data),
    )


def close_request_parse(data: dict[str, Any]) -> CloseRequest:
    return CloseRequest(session_id=_session_id(data))


def hello_request_parse(data: dict[str, Any]) -> HelloRequest:
    return HelloRequest(page=_page(data))
