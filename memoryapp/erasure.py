"""Staff and shopper deletions (synchronous: the admin, commands and the REST API), and the
erasure of a deleted account's memory (marked, tried, retried: see `memoryapp.accounts`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from agentmemory.exceptions import NotFoundError, ValidationError
from django.db import transaction
from django.utils import timezone

from memoryapp.accounts import account_memory_user_id
from memoryapp.clients import memory_client_sync
from memoryapp.guard import outage_translated
from memoryapp.models import MemoryAccount, MemoryErasure
from memoryapp.records import RecordNotFound
from memoryapp.selectors import record_block_find
from memoryapp.sessions import session_forgotten
from memoryapp.signals import memory_changed_announce
from memoryapp.types import MemoryUnavailable

logger = logging.getLogger("memoryapp")


def record_delete(*, account, block_id: str) -> str:
    """Delete one of the account's own records through its session, and tell their panels.

    Raises RecordNotFound when no such record is theirs, MemoryUnavailable on an outage.
    """
    # The SDK refuses these in a block id; refusing them here keeps that a "not found".
    if not block_id.strip() or any(ch in block_id for ch in "/?#"):
        raise RecordNotFound(block_id)
    user_id = account_memory_user_id(account=account)
    with (
        outage_translated(path="write", lost="a record deletion"),
        memory_client_sync() as client,
    ):
        try:
            user = client.get_user(user_id)
            block = record_block_find(user, block_id)
            if block is None:
                raise RecordNotFound(block_id)
            result = user.get_session(block.session_id).delete_memory([block_id])
        except (NotFoundError, ValidationError) as exc:
            raise RecordNotFound(block_id) from exc
    if result.deleted_count < 1 or block_id in (result.failed_block_ids or []):
        raise MemoryUnavailable(f"the server did not delete {block_id}")
    memory_changed_announce(
        account_id=account.pk, reason="record_deleted", session_ids=[], block_id=block_id
    )
    return block_id


def memory_user_delete(*, user_id: str) -> list[str] | None:
    """Delete Agent Memory user `user_id` with everything in it: the sessions that went, or
    None when there was no such user. Raises MemoryUnavailable, having changed nothing."""
    with (
        outage_translated(path="write", lost="erasing a shopper's memory"),
        memory_client_sync() as client,
    ):
        try:
            user = client.get_user(user_id)
            client.delete_user(user_id)
        except NotFoundError:
            return None
    session_forgotten(user_id=user_id)
    return sorted(user.sessions or [])


def shopper_memory_erase(*, account) -> bool:
    """Delete the account's memory with everything in it, and tell their panels.

    Returns False when there was nothing to delete. Raises MemoryUnavailable, having
    changed nothing, when memory cannot be reached.
    """
    sessions = memory_user_delete(user_id=account_memory_user_id(account=account))
    if sessions is None:
        return False
    memory_changed_announce(account_id=account.pk, reason="erased", session_ids=sessions)
    return True


# --- The memory of deleted accounts ---------------------------------------------------------


def account_erasure_mark(*, account) -> None:
    """Mark the memory of an account being deleted for erasure, and try it once committed.

    Runs inside the deletion's transaction: rolled back with it, it marks nothing.
    """
    memory_user_id = (
        MemoryAccount.objects.filter(user=account).values_list("memory_user_id", flat=True).first()
    )
    if memory_user_id is None:
        return  # never filed anything: there is nothing to erase
    MemoryErasure.objects.get_or_create(
        memory_user_id=memory_user_id, defaults={"username": account.get_username()[:150]}
    )
    transaction.on_commit(
        lambda: memory_erasures_retry(memory_user_ids=[memory_user_id]), robust=True
    )


@dataclass
class ErasureRun:
    """What one pass over the pending erasures did."""

    erased: list[str] = field(default_factory=list)  # usernames whose memory is gone now
    pending: dict[str, str] = field(default_factory=dict)  # username -> why it is still there


def memory_erasures_retry(*, memory_user_ids: list[str] | None = None) -> ErasureRun:
    """Try every pending erasure (or those of `memory_user_ids`) once.

    An erased memory user, or one memory never had, takes its mark with it; one memory
    could not erase keeps its mark, with the attempt counted and the reason kept for staff.
    """
    run = ErasureRun()
    marks = MemoryErasure.objects.all()
    if memory_user_ids is not None:
        marks = marks.filter(memory_user_id__in=memory_user_ids)
    for mark in list(marks):
        try:
            memory_user_delete(user_id=mark.memory_user_id)
        except MemoryUnavailable as exc:
            MemoryErasure.objects.filter(pk=mark.pk).update(
                attempts=mark.attempts + 1,
                last_attempt_at=timezone.now(),
                last_error=str(exc)[:300],
            )
            run.pending[mark.username] = str(exc)
        else:
            mark.delete()
            run.erased.append(mark.username)
    if run.pending:
        logger.warning(
            "memory of %d deleted account(s) still to erase (%s); kept marked for a retry",
            len(run.pending),
            next(iter(run.pending.values())),
        )
    return run
