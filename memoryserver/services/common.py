"""What every write shares: the process-wide write lock and keeping loaded indexes in step.

Every database write runs under WRITE_LOCK (SQLite has one writer anyway, and it keeps the
in-memory index in step with the rows in commit order), then applies its change to that
user's index under that user's lock only, so a block is searchable the moment its request
returns and a write never waits for another user's searches or for any index load. Slow
work (embedding, validation) happens before WRITE_LOCK is taken.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from memoryserver import selectors
from memoryserver.errors import SessionEnded
from memoryserver.index.registry import get_registry
from memoryserver.index.slot import UserIndex
from memoryserver.models import MemorySession

WRITE_LOCK = threading.RLock()


def with_index(user_id: str, apply: Callable[[UserIndex], object]) -> None:
    """Apply `apply(index)` to the user's index when loaded or loading; absent ones load fresh.

    Call after the commit, still under WRITE_LOCK, so changes reach the index in commit order.
    """
    get_registry().change(user_id, apply)


def session_get_writable(*, user_id: str, session_id: str) -> MemorySession:
    """The session, if it still accepts writes (an ended one raises SESSION_ALREADY_ENDED)."""
    session = selectors.session_get(user_id=user_id, session_id=session_id)
    if session.end_time is not None:
        raise SessionEnded(
            f"session {session_id!r} has ended and accepts no more writes",
            details={"user_id": user_id, "session_id": session_id},
        )
    return session


def chunks(values: list[Any], size: int = 500) -> list[list[Any]]:
    return [values[i : i + size] for i in range(0, len(values), size)]
