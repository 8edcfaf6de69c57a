"""Expiry: when a block goes, restarting it, and deleting what has gone."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial

from django.conf import settings

from memoryserver import selectors
from memoryserver.clock import clock
from memoryserver.index.slot import UserIndex
from memoryserver.models import MemoryBlock, MemorySession
from memoryserver.services.common import WRITE_LOCK, chunks, with_index


def expiry(now: datetime, ttl: int | None) -> datetime | None:
    """Return the expiry for `ttl` seconds from `now`; 0 or None means never."""
    return now + timedelta(seconds=ttl) if ttl else None


def effective_ttl(block_ttl: int | None, session: MemorySession) -> int:
    if block_ttl is not None:
        return block_ttl
    if session.blocks_ttl is not None:
        return session.blocks_ttl
    return settings.AGENT_MEMORY_DEFAULT_BLOCK_TTL


def ttl_modify(
    *, user_id: str, new_ttl: int, session_id: str | None, block_ids: list[str] | None
) -> int:
    """Restart expiry at now + new_ttl for the chosen scope; return how many blocks changed."""
    selectors.user_get(user_id=user_id)
    now = clock.now()
    blocks = selectors.live_blocks(now).filter(user_key=user_id)
    if session_id is not None:
        selectors.session_get(user_id=user_id, session_id=session_id)
        blocks = blocks.filter(session_key=session_id)
    if block_ids is not None:
        blocks = blocks.filter(block_id__in=block_ids)
    expires_at = expiry(now, new_ttl)
    with WRITE_LOCK:
        ids = list(blocks.values_list("block_id", flat=True))
        for chunk in chunks(ids):
            MemoryBlock.objects.filter(block_id__in=chunk).update(expires_at=expires_at)

        def apply(index: UserIndex) -> None:
            for block_id in ids:
                index.set_fields(block_id, expires_at=expires_at)

        with_index(user_id, apply)
    return len(ids)


def blocks_expired_sweep() -> int:
    """Delete expired blocks and drop them from loaded indexes; return how many went."""
    now = clock.now()
    expired = MemoryBlock.objects.filter(expires_at__lte=now)
    with WRITE_LOCK:
        doomed = list(expired.values_list("block_id", "user_key"))
        for chunk in chunks([b for b, _ in doomed]):
            MemoryBlock.objects.filter(block_id__in=chunk).delete()
        by_user: dict[str, list[str]] = {}
        for block_id, user_id in doomed:
            by_user.setdefault(user_id, []).append(block_id)
        for user_id, ids in by_user.items():
            with_index(user_id, partial(UserIndex.remove, block_ids=ids))
    return len(doomed)
