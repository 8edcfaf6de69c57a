"""The block vocabulary: what the policy annotates each kind of block with, and its times.

Every module that stores or reads blocks (and the benchmarks that store like the policy)
imports these, so a kind is spelt in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

TURN = {"type": "turn"}
FACT = {"type": "fact"}
EPISODE = {"type": "episode"}

# Injectable so tests can place "now" where they need it.
clock: Callable[[], datetime] = lambda: datetime.now(UTC)  # noqa: E731


def created_at_for(session_date: date | None, *, now: datetime | None = None) -> str | None:
    """A dated session's day with the real time of day, so its turns stay in order."""
    if session_date is None:
        return None
    now = now or clock()
    return datetime.combine(session_date, now.astimezone(UTC).time(), tzinfo=UTC).isoformat()
