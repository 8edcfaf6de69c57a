"""The block vocabulary: what the policy annotates each kind of block with, and its times.

Every module that stores or reads blocks (and the benchmarks that store like the policy)
imports these, so a kind is spelt in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any, Literal, get_args

# The kinds a shopper's record can be (the inspector, the admin, the records API).
Kind = Literal["turn", "fact", "episode"]
KINDS: tuple[Kind, ...] = get_args(Kind)
TURN_KIND, FACT_KIND, EPISODE_KIND = KINDS
# A fact replaced by a newer one of its slot, kept as a superseded copy (consolidation.py).
SUPERSEDED = "superseded_fact"

# The annotations each kind is stored with, and searched by.
# The SDK takes annotations as str to str.
TURN: dict[str, str] = {"type": TURN_KIND}
FACT: dict[str, str] = {"type": FACT_KIND}
EPISODE: dict[str, str] = {"type": EPISODE_KIND}

# Injectable so tests can place "now" where they need it.
clock: Callable[[], datetime] = lambda: datetime.now(UTC)  # noqa: E731


def created_at_for(session_date: date | None, *, now: datetime | None = None) -> str | None:
    """A dated session's day with the real time of day, so its turns stay in order."""
    if session_date is None:
        return None
    now = now or clock()
    return datetime.combine(session_date, now.astimezone(UTC).time(), tzinfo=UTC).isoformat()


def block_date(block: Any) -> str:
    """The day a block speaks for: its created_at (the shopper's timeline), else ingested_at."""
    stamp = getattr(block, "created_at", None) or getattr(block, "ingested_at", None) or ""
    return stamp[:10]


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def block_time(block: Any) -> datetime:
    """When a block happened, as an aware UTC datetime (naive stamps are UTC)."""
    stamp = getattr(block, "created_at", None) or getattr(block, "ingested_at", None) or ""
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return _EPOCH
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def block_kind(block: Any) -> str:
    """turn, fact, episode, or superseded_fact, which is never recalled."""
    annotations = getattr(block, "annotations", None) or {}
    if annotations.get("type") == SUPERSEDED:
        return SUPERSEDED
    if getattr(block, "fact", None) and annotations.get("type") != EPISODE_KIND:
        return FACT_KIND
    return annotations.get("type") or (TURN_KIND if getattr(block, "message", None) else FACT_KIND)
