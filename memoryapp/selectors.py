"""Reads of a shopper's stored memory for the inspector's records and the admin's page.

Everything goes through the SDK under the shopper's memory user (`memoryapp.accounts`),
so a record of another shopper is never listed and never found: the lookup itself is
scoped by the path /users/{user_id}/..., not by a check afterwards. The turn's own reads
(recall) live with the session in `memoryapp.recall`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentmemory import AgentMemoryClient, UserResource
from agentmemory.exceptions import NotFoundError, ValidationError

from memoryapp.clients import memory_client_sync
from memoryapp.conf import memory_conf, retention_preset_for
from memoryapp.guard import outage_translated
from memoryapp.records import (
    MemoryRecord,
    RecordNotFound,
    RecordPage,
    block_ttl,
    record_from_block,
)

BLOCKS_PER_PAGE = 100
SESSIONS_PAGE = 500  # the most the API lists at once
# The largest offset into a listing the memory server accepts: past it the request is
# refused before memory is called (400 in the records API and the admin's page).
MAX_LIST_OFFSET = 1_000_000_000
MAX_RECORDS_LIMIT = 100


@dataclass(frozen=True)
class SessionRow:
    session_id: str
    start_time: str | None
    end_time: str | None
    session_date: str | None
    retention: str


@dataclass(frozen=True)
class BlockRow:
    record: MemoryRecord
    annotations: dict[str, str]


@dataclass(frozen=True)
class ShopperMemory:
    exists: bool
    sessions: list[SessionRow]
    blocks: list[BlockRow]
    total_blocks: int
    offset: int


def _user_or_none(client: AgentMemoryClient, user_id: str) -> UserResource | None:
    try:
        return client.get_user(user_id)
    except NotFoundError:
        return None  # never remembered anything yet


def _sessions_all(user: UserResource) -> list[Any]:
    """Every session of the user, paging past the API's largest page."""
    if not user.sessions:
        return []
    sessions: list[Any] = []
    while True:
        page = user.list_sessions(limit=SESSIONS_PAGE, offset=len(sessions))
        sessions.extend(page.sessions)
        if page.count < SESSIONS_PAGE or (page.total is not None and len(sessions) >= page.total):
            return sessions


def sessions_metadata_read(
    *, user_id: str, timeout: float | None = None
) -> dict[str, dict[str, Any]]:
    """Each of the shopper's sessions with its metadata; {} for a shopper never remembered.

    Raises MemoryUnavailable.
    """
    with (
        outage_translated(path="read", lost="the shopper's sessions"),
        memory_client_sync(timeout=timeout) as client,
    ):
        user = _user_or_none(client, user_id)
        if user is None:
            return {}
        try:
            sessions = _sessions_all(user)
        except NotFoundError:
            return {}  # erased between the calls
    return {s.session_id: dict(s.metadata or {}) for s in sessions}


def _records(blocks: list[Any], sessions: list[Any]) -> list[MemoryRecord]:
    session_ttls = {s.session_id: s.blocks_ttl for s in sessions}
    fact_ttl = memory_conf().fact_ttl_seconds
    return [
        record_from_block(b, ttl=block_ttl(b, session_ttls=session_ttls, fact_ttl=fact_ttl))
        for b in blocks
    ]


def records_list(*, user_id: str, limit: int = 20, offset: int = 0) -> RecordPage:
    """The shopper's records across every session, newest first. Raises MemoryUnavailable."""
    empty = RecordPage(records=[], total=0, limit=limit, offset=offset)
    with (
        outage_translated(path="read", lost="the shopper's record list"),
        memory_client_sync() as client,
    ):
        user = _user_or_none(client, user_id)
        if user is None:
            return empty
        try:
            page = user.list_memories(limit=limit, offset=offset, order_by="ingested_at")
            sessions = _sessions_all(user)
        except NotFoundError:
            return empty  # erased between the calls: nothing to show
    return RecordPage(
        records=_records(list(page.memory_blocks), sessions),
        total=page.total,
        limit=limit,
        offset=offset,
    )


def _ttl_label(seconds: int | None) -> str:
    if seconds is None:
        return "server default"
    if seconds == 0:
        return "never expire"
    preset = retention_preset_for(seconds)
    days, rest = divmod(seconds, 86_400)
    plain = f"{days} d" if days and not rest else f"{seconds} s"
    return f"{preset} ({plain})" if preset else plain


def shopper_memory_read(*, user_id: str, offset: int = 0) -> ShopperMemory:
    """The shopper's sessions and one page of blocks, newest first. Raises MemoryUnavailable."""
    offset = max(0, offset)
    missing = ShopperMemory(False, [], [], 0, 0)
    with (
        outage_translated(path="read", lost="the admin's shopper memory page"),
        memory_client_sync() as client,
    ):
        user = _user_or_none(client, user_id)
        if user is None:
            return missing
        try:
            sessions = _sessions_all(user)
            page = user.list_memories(limit=BLOCKS_PER_PAGE, offset=offset, order_by="ingested_at")
        except NotFoundError:
            return missing  # erased between the calls
    session_rows = [
        SessionRow(
            session_id=s.session_id,
            start_time=s.start_time,
            end_time=s.end_time,
            session_date=(s.metadata or {}).get("session_date"),
            retention=_ttl_label(s.blocks_ttl),
        )
        for s in sorted(sessions, key=lambda s: s.start_time or "", reverse=True)
    ]
    blocks = list(page.memory_blocks)
    rows = [
        BlockRow(record=record, annotations=dict(block.annotations or {}))
        for block, record in zip(blocks, _records(blocks, sessions), strict=True)
    ]
    return ShopperMemory(True, session_rows, rows, page.total, offset)


def record_read(*, user_id: str, block_id: str) -> MemoryRecord:
    """One of the shopper's records, with its expiry, e.g. to confirm a deletion.

    Raises RecordNotFound when no such record is theirs, MemoryUnavailable on an outage.
    """
    if not block_id.strip() or any(ch in block_id for ch in "/?#"):
        raise RecordNotFound(block_id)  # the SDK refuses these in a path: never a record
    with (
        outage_translated(path="read", lost="reading one record"),
        memory_client_sync() as client,
    ):
        try:
            user = client.get_user(user_id)
            block = record_block_find(user, block_id)
            if block is None:
                raise RecordNotFound(block_id)
            session = user.get_session(block.session_id)
        except (NotFoundError, ValidationError) as exc:
            raise RecordNotFound(block_id) from exc
    return _records([block], [session])[0]


def record_block_find(user: UserResource, block_id: str) -> Any | None:
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


def session_texts_read(*, user_id: str, session_id: str) -> dict[str, str]:
    """The text of every block still stored in one of the shopper's sessions, by block id.

    The admin's chat record shows each turn's exchange from here, live, rather than keeping
    a copy: a block deleted from memory (by the shopper, staff or an erasure) or expired is
    simply absent, so its text is gone from the admin too. {} when the shopper or the
    session is not in memory. Raises MemoryUnavailable.
    """
    texts: dict[str, str] = {}
    if not session_id.strip() or any(ch in session_id for ch in "/?#%"):
        return texts  # never a session the SDK can name
    with (
        outage_translated(path="read", lost="the admin's chat record texts"),
        memory_client_sync() as client,
    ):
        user = _user_or_none(client, user_id)
        if user is None:
            return texts
        try:
            session = user.get_session(session_id)
            while True:
                page = session.list_memories(
                    limit=BLOCKS_PER_PAGE, offset=len(texts), order_by="ingested_at"
                )
                for block in page.memory_blocks:
                    texts[block.block_id] = record_from_block(block, ttl=None).text
                if page.count < BLOCKS_PER_PAGE or len(texts) >= page.total:
                    return texts
        except NotFoundError:
            return texts  # the session (or the shopper) was erased
