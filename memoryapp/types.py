"""Values the memory policy hands to the assistant and the inspector (never SDK objects)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from datetime import date
from typing import Literal

from memoryapp.fence import notes_message, recalled_line_defuse

Scope = Literal["session", "fact", "turn", "episode", "tool"]


@dataclass(frozen=True)
class RecalledItem:
    """One recalled block as the model and the inspector see it."""

    block_id: str
    scope: Scope
    line: str
    score: float | None = None
    session_id: str = ""

    def as_dict(self) -> dict:
        return asdict(self)

    def defused(self) -> RecalledItem:
        """The item as a tool result hands it to the model: a label forged inside its line
        kept as words (`memoryapp.fence.recalled_line_defuse`), as the notes' lines are."""
        return replace(self, line=recalled_line_defuse(self.line))


@dataclass
class Recall:
    items: list[RecalledItem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    duration_ms: float = 0.0
    failed: list[str] = field(default_factory=list)
    started: float = 0.0  # time.perf_counter() when its calls went out; 0 for none

    @property
    def lines(self) -> list[str]:
        return [item.line for item in self.items]

    @property
    def notes(self) -> str | None:
        """The notes message the model reads (`memoryapp.fence.notes_message`); None when
        nothing was recalled."""
        return notes_message(self.lines)


@dataclass(frozen=True)
class BlockIds:
    """The ids of the blocks one write stored, by kind: the exchange's, its facts'."""

    turn: list[str] = field(default_factory=list)
    fact: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[str]]:
        """As the protocol's `memory.added` and the chat records name them."""
        return {"turn": list(self.turn), "fact": list(self.fact)}


@dataclass(frozen=True)
class Remembered:
    """What remembering one exchange stored.

    `ids` holds the saved blocks; `facts` the fact sentences stored, in `ids.fact`'s order;
    `failed` the writes that failed ("turn", "facts"); `screened_out` how many of the
    judge's items the screen dropped. A fact the shopper only restated is not stored again,
    so it is in neither the ids nor the failures.
    """

    ids: BlockIds
    facts: list[str]
    failed: list[str]
    screened_out: int


@dataclass(frozen=True)
class SessionInfo:
    session_id: str
    session_date: date | None
    retention_seconds: int | None
    created: bool
    # The retention preset the session's TTL corresponds to (None: none of them).
    retention: str | None = None


class MemoryUnavailable(Exception):
    """The memory server could not be reached or refused; the turn goes on without memory."""


class MemoryRefused(MemoryUnavailable):
    """Memory answered and refused this one request (a 4xx such as 400, 404 or 422).

    Not an outage: the server is up and says the request was wrong, so nothing is logged as
    one. A subclass so that a caller who only knows MemoryUnavailable still carries on
    without memory; the REST API answers it with 400 instead of 503.
    """
