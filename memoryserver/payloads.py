"""The JSON shape of a memory block, defined once.

Two paths produce it: a model instance (writes and listings) and a bare-cursor row (search
hits not yet cached in the index, where the ORM's query compiler and model construction
cost ten times the SELECT itself). Both go through `block_payload_from_row`, so the shape
cannot drift between them.

It lives below the API layer, not in `memoryserver.api`, because the search's selector
builds and caches these payloads inside the index while it holds the index's read lock.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from memoryserver.models import MemoryBlock

# The block's fields in payload order; the model's attribute names and the table's column
# names alike.
BLOCK_PAYLOAD_FIELDS = (
    "block_id",
    "user_key",
    "session_key",
    "fact",
    "user_content",
    "assistant_content",
    "ingested_at",
    "created_at",
    "last_queued_at",
    "fail_count",
    "annotations",
    "summary",
    "contexts",
    "status",
    "prompt_id",
    "prompt_vid",
    "expires_at",
)
BLOCK_PAYLOAD_COLUMNS = ", ".join(BLOCK_PAYLOAD_FIELDS)


def iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def _db_time(value: Any) -> datetime | None:
    # SQLite hands back naive UTC datetimes (or their text); Django would make them aware.
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def _db_json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def block_payload_from_row(row: tuple[Any, ...]) -> dict[str, Any]:
    """The block's payload from its BLOCK_PAYLOAD_FIELDS values, raw from SQLite or not."""
    (
        block_id,
        user_key,
        session_key,
        fact,
        user_content,
        assistant_content,
        ingested_at,
        created_at,
        last_queued_at,
        fail_count,
        annotations,
        summary,
        contexts,
        status,
        prompt_id,
        prompt_vid,
        expires_at,
    ) = row
    return {
        "block_id": block_id,
        "user_id": user_key,
        "session_id": session_key,
        "message": None
        if fact is not None
        else {"user_content": user_content or "", "assistant_content": assistant_content or ""},
        "fact": fact,
        "ingested_at": iso(_db_time(ingested_at)),
        "created_at": iso(_db_time(created_at)),
        "last_queued_at": iso(_db_time(last_queued_at)),
        "fail_count": fail_count,
        "annotations": _db_json(annotations),
        "summary": summary,
        "contexts": _db_json(contexts),
        "status": status,
        "rel_score": None,
        "prompt_id": prompt_id,
        "prompt_vid": prompt_vid,
        # Not in the SDK model (ignored there); lets a caller see when a block will go.
        "expires_at": iso(_db_time(expires_at)),
    }


def block_payload(block: MemoryBlock) -> dict[str, Any]:
    return block_payload_from_row(tuple(getattr(block, name) for name in BLOCK_PAYLOAD_FIELDS))
