"""Sessions: create, relabel, delete, end."""

from __future__ import annotations

from typing import Any

from memoryserver import selectors
from memoryserver.clock import clock
from memoryserver.errors import Conflict
from memoryserver.models import MemorySession
from memoryserver.services.common import WRITE_LOCK, session_get_writable, with_index


def session_create(
    *,
    user_id: str,
    session_id: str,
    annotations: dict[str, str] | None,
    metadata: dict[str, Any] | None,
    blocks_ttl: int | None,
) -> MemorySession:
    with WRITE_LOCK:
        user = selectors.user_get(user_id=user_id)
        if MemorySession.objects.filter(user=user, session_id=session_id).exists():
            raise Conflict(
                f"session {session_id!r} already exists for user {user_id!r}",
                code="SESSION_ALREADY_EXISTS",
                details={"user_id": user_id, "session_id": session_id},
            )
        return MemorySession.objects.create(
            user=user,
            session_id=session_id,
            start_time=clock.now(),
            annotations=annotations or None,
            metadata=metadata or None,
            blocks_ttl=blocks_ttl,
        )


def session_update(
    *,
    user_id: str,
    session_id: str,
    annotations: dict[str, str] | None,
    metadata: dict[str, Any] | None,
) -> MemorySession:
    # Allowed on ended sessions: it changes labels, not memory (spec section 4.2 is silent).
    with WRITE_LOCK:
        session = selectors.session_get(user_id=user_id, session_id=session_id)
        if annotations is not None:
            session.annotations = annotations
        if metadata is not None:
            session.metadata = metadata
        session.save()
        return session


def session_delete(*, user_id: str, session_id: str) -> None:
    with WRITE_LOCK:
        session = selectors.session_get(user_id=user_id, session_id=session_id)
        session.delete()
        with_index(user_id, lambda index: index.remove_session(session_id))


def session_end(*, user_id: str, session_id: str) -> MemorySession:
    with WRITE_LOCK:
        session = session_get_writable(user_id=user_id, session_id=session_id)
        session.end_time = clock.now()
        session.save(update_fields=["end_time"])
        return session
