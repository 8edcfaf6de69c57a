"""The events the assistant sends to the chat panel and API clients (docs/protocol.md).

Each event type is defined once, here: the turn pipeline builds them, the websocket
consumer and the REST API send `to_dict()`. A test reads the protocol document's event
tables and checks every documented field against these classes, and the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal, TypedDict

from llm.cards import MAX_CARDS  # a handful; more products are one "show more" away
from llm.modes import MODES, Mode  # noqa: F401 (MODES: the protocol document is checked against it)

ChangeReason = Literal["erased", "record_deleted"]
# Why a socket stopped speaking for its shopper (assistant/protocol/identity.py).
SignOutReason = Literal["signed_out", "deactivated", "deleted"]
# The websocket close codes the panel tells apart: after SIGNED_OUT it stays closed (the
# next person at this browser is not the shopper it was for); after MEMORY_ERASED it
# reconnects, as the same shopper, with nothing of the erased session.
CLOSE_SIGNED_OUT = 4001
CLOSE_MEMORY_ERASED = 4002

# 400 bad frame, 409 a turn is already running, 422 malformed session_date, 500 unexpected,
# 502 the model failed, 504 the model timed out.
ERROR_CODES = (400, 409, 422, 500, 502, 504)


class Card(TypedDict, total=False):
    """A product card: catalog data a tool returned this turn."""

    sku: str
    name: str
    brand: str
    price_eur: float
    colours: list[str]
    sizes_in_stock: list[str]
    url: str
    blurb: str


class Span(TypedDict):
    name: str
    start_ms: float
    duration_ms: float


class RecalledLine(TypedDict):
    block_id: str
    scope: str
    line: str
    score: float | None


def recalled_line(item: Any) -> RecalledLine:
    """What the panel sees of a recalled item (a RecalledItem or its `as_dict()`)."""
    data = item if isinstance(item, dict) else item.as_dict()
    return {
        "block_id": data["block_id"],
        "scope": data["scope"],
        "line": data["line"],
        "score": data.get("score"),
    }


@dataclass(frozen=True)
class Event:
    type: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **{f.name: getattr(self, f.name) for f in fields(self)}}


@dataclass(frozen=True)
class Session(Event):
    type: ClassVar[str] = "session"
    session_id: str | None
    mode: Mode
    shopper: str | None
    session_date: str | None
    retention: str | None
    retention_seconds: int | None
    created: bool


@dataclass(frozen=True)
class MemorySearched(Event):
    type: ClassVar[str] = "memory.searched"
    counts: dict[str, int]
    failed: list[str]
    duration_ms: float
    items: list[RecalledLine]


@dataclass(frozen=True)
class Token(Event):
    type: ClassVar[str] = "token"
    text: str


@dataclass(frozen=True)
class Tool(Event):
    type: ClassVar[str] = "tool"
    name: str
    arguments: str
    summary: str
    duration_ms: float
    items: list[RecalledLine] = field(default_factory=list)


@dataclass(frozen=True)
class Done(Event):
    type: ClassVar[str] = "done"
    text: str
    products: list[Card]
    more: bool
    turn_id: int | None
    model: str
    spans: list[Span]
    # The grounding check's verdict counts: checked, backed, corrected, dropped.
    grounding: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # The protocol promises at most MAX_CARDS cards whatever a model hands back.
        object.__setattr__(self, "products", list(self.products)[:MAX_CARDS])


@dataclass(frozen=True)
class MemoryAdded(Event):
    type: ClassVar[str] = "memory.added"
    block_ids: dict[str, list[str]]
    facts: list[str]
    # The writes that failed ("turn", "facts"): a lost exchange is not a turn with nothing
    # to save. Empty when everything was written.
    failed: list[str]
    duration_ms: float


@dataclass(frozen=True)
class Error(Event):
    type: ClassVar[str] = "error"
    code: int
    message: str
    retryable: bool


@dataclass(frozen=True)
class Stopped(Event):
    type: ClassVar[str] = "stopped"
    turn_id: int | None


@dataclass(frozen=True)
class Closed(Event):
    type: ClassVar[str] = "closed"
    session_id: str | None
    episode_block_id: str | None


@dataclass(frozen=True)
class Welcome(Event):
    type: ClassVar[str] = "welcome"
    greeting: str
    suggestions: list[str]
    mode: Mode


@dataclass(frozen=True)
class MemoryChanged(Event):
    type: ClassVar[str] = "memory.changed"
    reason: ChangeReason
    session_ids: list[str]
    block_id: str | None


@dataclass(frozen=True)
class SignedOut(Event):
    type: ClassVar[str] = "signed_out"
    reason: SignOutReason


@dataclass(frozen=True)
class ModeChanged(Event):
    type: ClassVar[str] = "mode.changed"
    mode: Mode


UNEXPECTED = Error(
    code=500, message="Something went wrong on our side. Please try again.", retryable=True
)

EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        Session,
        MemorySearched,
        Token,
        Tool,
        Done,
        MemoryAdded,
        Error,
        Stopped,
        Closed,
        Welcome,
        MemoryChanged,
        SignedOut,
        ModeChanged,
    )
}


def event_fields(event_type: str) -> list[str]:
    """The fields an event of this type carries besides `type`, in order."""
    return [f.name for f in fields(EVENT_TYPES[event_type])]
