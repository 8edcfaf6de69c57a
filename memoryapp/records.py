"""A shopper's own memory records, for the inspector: list them and delete one.

Everything goes through the SDK under the signed-in shopper's memory user (their Django
username), so a record of another shopper is never listed and never found for deleting:
the lookup itself is scoped by the path /users/{username}/..., not by a check afterwards.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from agentmemory import AgentMemoryClient, UserResource
from agentmemory.exceptions import NotFoundError, ValidationError

from memoryapp.clients import memory_client_sync
from memoryapp.guard import MEMORY_ERRORS, outages
from memoryapp.render import SUPERSEDED, block_kind
from memoryapp.types import MemoryUnavailable

Kind = Literal["turn", "fact", "episode"]
KINDS: tuple[Kind, ...] = ("turn", "fact", "episode")


class RecordNotFound(Exception):
    """No record with that id belongs to this shopper (it may never have existed)."""


@dataclass(frozen=True)
class MemoryRecord:
    block_id: str
    session_id: str
    kind: Kind
    text: str
    created_at: str | None
    ingested_at: str
    expires_at: str | None
    status: str
    # Facts only: where consolidation files them, and whether a newer fact replaced this one
    # (then it is history: shown here, never recalled).
    category: str | None = None
    slot: str | None = None
    superseded: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RecordPage:
    records: list[MemoryRecord]
    total: int
    limit: int
    offset: int


def record_from_block(block: Any) -> MemoryRecord:
    kind = block_kind(block)
    if block.message is not None:
        text = (
            f"Shopper: {block.message.user_content}\nAssistant: {block.message.assistant_content}"
        )
    else:
        text = block.fact or ""
    status = getattr(block.status, "value", block.status)
    annotations = block.annotations or {}
    is_fact = kind in ("fact", SUPERSEDED)
    return MemoryRecord(
        block_id=block.block_id,
        session_id=block.session_id,
        kind=kind if kind in KINDS else "turn" if block.message is not None else "fact",
        text=text,
        created_at=block.created_at,
        ingested_at=block.ingested_at,
        # The SDK's MemoryBlock carries no expiry; a server or SDK that adds one shows it.
        expires_at=getattr(block, "expires_at", None),
        status=str(status),
        category=annotations.get("category") if is_fact else None,
        slot=annotations.get("slot") if is_fact else None,
        superseded=kind == SUPERSEDED,
    )


def _user_or_none(client: AgentMemoryClient, username: str) -> UserResource | None:
    try:
        return client.get_user(username)
    except NotFoundError:
        return None  # never remembered anything yet


def records_list(*, username: str, limit: int = 20, offset: int = 0) -> RecordPage:
    """The shopper's records across every session, newest first. Raises MemoryUnavailable."""
    try:
        with memory_client_sync() as client:
            user = _user_or_none(client, username)
            if user is None:
                return RecordPage(records=[], total=0, limit=limit, offset=offset)
            page = user.list_memories(limit=limit, offset=offset, order_by="ingested_at")
    except NotFoundError:
        # The user vanished between the two calls (deleted by staff): nothing to show.
        return RecordPage(records=[], total=0, limit=limit, offset=offset)
    except MEMORY_ERRORS as exc:
        outages.failed("read", "the shopper's record list", exc)
        raise MemoryUnavailable(str(exc) or type(exc).__name__) from exc
    outages.succeeded("read")
    return RecordPage(
        records=[record_from_block(b) for b in page.memory_blocks],
        total=page.total,
        limit=limit,
        offset=offset,
    )


def _block_find(user: UserResource, block_id: str) -> Any | None:
    """Find block_id among this user's blocks, searching through one of their sessions.

    A filter-only search with session_ids "all" covers every session of the path's user
    and no one else's, so another shopper's id simply comes back empty.
    """
    if not user.sessions:
        return None
    probe = user.get_session(user.sessions[0])
    found = probe.search_memory(filters={"session_ids": "all", "block_ids": [block_id]})
    for block in found.memory_blocks:
        if block.block_id == block_id and block.user_id == user.user_id:
            return block
    return None


def record_delete(*, username: str, block_id: str) -> str:
    """Delete one of the shopper's own records through its session.

    Raises RecordNotFound when no such record is theirs, MemoryUnavailable on an outage.
    """
    if not block_id.strip() or any(ch in block_id for ch in "/?#"):
        raise RecordNotFound(block_id)
    try:
        with memory_client_sync() as client:
            user = _user_or_none(client, username)
            if user is None:
                raise RecordNotFound(block_id)
            block = _block_find(user, block_id)
            if block is None:
                raise RecordNotFound(block_id)
            session = user.get_session(block.session_id)
            result = session.delete_memory([block_id])
    except (NotFoundError, ValidationError) as exc:
        raise RecordNotFound(block_id) from exc
    except MEMORY_ERRORS as exc:
        outages.failed("write", "a record deletion", exc)
        raise MemoryUnavailable(str(exc) or type(exc).__name__) from exc
    outages.succeeded("write")
    if result.deleted_count < 1 or block_id in (result.failed_block_ids or []):
        raise MemoryUnavailable(f"the server did not delete {block_id}")
    return block_id
