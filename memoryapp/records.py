"""A shopper's memory records as the inspector and the admin show them, with their expiry.

The SDK's block carries no expiry, but the server computes it as write time + effective
TTL (the block's own, else its session's; 0 never expires), and the memory policy is the
only writer: it gives facts their own TTL (MEMORY_FACT_TTL_SECONDS) and lets everything else
inherit the session's retention. So the expiry is derived from the block's `ingested_at`
and that TTL. Pure functions, no I/O.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from memoryapp.blocks import FACT_KIND, KINDS, SUPERSEDED, TURN_KIND, Kind, block_kind


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
    # ISO 8601 with seconds, or None when the record is kept (TTL 0, or none known).
    expires_at: str | None
    status: str
    # Facts only: where consolidation files them, and whether a newer fact replaced this one
    # (then it is superseded: shown here, never recalled).
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


def block_ttl(block: Any, *, session_ttls: dict[str, int | None], fact_ttl: int) -> int | None:
    """The TTL the server applies to block, in seconds; None when no TTL is known."""
    if (block.annotations or {}).get("type") in (FACT_KIND, SUPERSEDED):
        return fact_ttl
    return session_ttls.get(block.session_id)


def expires_at(ingested_at: str, ttl: int | None) -> str | None:
    """Write time + TTL, as the server computes it; None for TTL 0 (kept) or unknown."""
    if not ttl:
        return None
    try:
        written = datetime.fromisoformat(ingested_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    if written.tzinfo is None:
        written = written.replace(tzinfo=UTC)
    return (written + timedelta(seconds=ttl)).isoformat(timespec="seconds")


def record_from_block(block: Any, *, ttl: int | None) -> MemoryRecord:
    kind = block_kind(block)
    if block.message is not None:
        text = (
            f"Shopper: {block.message.user_content}\nAssistant: {block.message.assistant_content}"
        )
    else:
        text = block.fact or ""
    status = getattr(block.status, "value", block.status)
    annotations = block.annotations or {}
    is_fact = kind in (FACT_KIND, SUPERSEDED)
    return MemoryRecord(
        block_id=block.block_id,
        session_id=block.session_id,
        kind=kind if kind in KINDS else TURN_KIND if block.message is not None else FACT_KIND,
        text=text,
        created_at=block.created_at,
        ingested_at=block.ingested_at,
        expires_at=expires_at(block.ingested_at, ttl),
        status=str(status),
        category=annotations.get("category") if is_fact else None,
        slot=annotations.get("slot") if is_fact else None,
        superseded=kind == SUPERSEDED,
    )
