"""Staff and shopper deletions (synchronous: the admin, commands and the REST API)."""

from __future__ import annotations

from agentmemory.exceptions import NotFoundError, ValidationError

from memoryapp.clients import memory_client_sync
from memoryapp.guard import outage_translated
from memoryapp.records import RecordNotFound
from memoryapp.selectors import record_block_find
from memoryapp.sessions import session_forgotten
from memoryapp.signals import memory_changed_announce
from memoryapp.types import MemoryUnavailable


def record_delete(*, username: str, block_id: str) -> str:
    """Delete one of the shopper's own records through its session, and tell their panels.

    Raises RecordNotFound when no such record is theirs, MemoryUnavailable on an outage.
    """
    # The SDK refuses these in a block id; refusing them here keeps that a "not found".
    if not block_id.strip() or any(ch in block_id for ch in "/?#"):
        raise RecordNotFound(block_id)
    with (
        outage_translated(path="write", lost="a record deletion"),
        memory_client_sync() as client,
    ):
        try:
            user = client.get_user(username)
            block = record_block_find(user, block_id)
            if block is None:
                raise RecordNotFound(block_id)
            result = user.get_session(block.session_id).delete_memory([block_id])
        except (NotFoundError, ValidationError) as exc:
            raise RecordNotFound(block_id) from exc
    if result.deleted_count < 1 or block_id in (result.failed_block_ids or []):
        raise MemoryUnavailable(f"the server did not delete {block_id}")
    memory_changed_announce(
        username=username, reason="record_deleted", session_ids=[], block_id=block_id
    )
    return block_id


def shopper_memory_erase(*, username: str) -> bool:
    """Delete the shopper's Agent Memory user with everything in it, and tell their panels.

    Returns False when there was nothing to delete. Raises MemoryUnavailable, having
    changed nothing, when memory cannot be reached.
    """
    with (
        outage_translated(path="write", lost="erasing a shopper's memory"),
        memory_client_sync() as client,
    ):
        try:
            user = client.get_user(username)
            client.delete_user(username)
        except NotFoundError:
            return False
    session_forgotten(username=username)
    memory_changed_announce(
        username=username, reason="erased", session_ids=sorted(user.sessions or [])
    )
    return True
