"""Tell a shopper's open chat panels that their memory changed under them.

Every path that erases a shopper's memory or deletes one of their records (the admin, the
`forget_shopper` command, the records API) sends one `memory.changed` message to the
shopper's group on the channel layer; each open panel's consumer joins that group and
forwards the event, so no panel resumes a session that no longer exists. With the
in-memory layer only panels served by the same process hear it; with Redis every process's
panels do (a command run from a terminal reaches panels only through Redis).
"""

from __future__ import annotations

import hashlib
import logging
from typing import Literal

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger("memoryapp")

Reason = Literal["erased", "record_deleted"]
MESSAGE_TYPE = "memory.changed"  # Channels dispatches it to a consumer's memory_changed()


def shopper_group(username: str) -> str:
    """The shopper's channel-layer group: valid for any username, and never shared.

    Group names allow only ASCII letters, digits, "-", "_" and "." and fewer than 100
    characters, while a username may hold "@", "+" or any letter; a digest of the name
    fits every username and keeps two shoppers apart.
    """
    digest = hashlib.sha256(username.encode("utf-8", "surrogatepass")).hexdigest()
    return f"memory.shopper.{digest}"


def memory_changed_message(
    *, reason: Reason, session_ids: list[str], block_id: str | None = None
) -> dict[str, object]:
    return {
        "type": MESSAGE_TYPE,
        "reason": reason,
        "session_ids": list(session_ids),
        "block_id": block_id,
    }


async def memory_changed_send_async(
    *, username: str, reason: Reason, session_ids: list[str], block_id: str | None = None
) -> bool:
    """Send `memory.changed` to the shopper's panels; False when the layer could not take it.

    The memory has already changed when this runs, so a channel layer that is down or full
    must not turn a done erase into an error: it is logged with what was lost (open panels
    not told; they find out on their next message, which starts a new session).
    """
    layer = get_channel_layer()
    if layer is None:
        return False
    message = memory_changed_message(reason=reason, session_ids=session_ids, block_id=block_id)
    try:
        await layer.group_send(shopper_group(username), message)
    # The layer backend is pluggable (in-memory, Redis, others), so its errors are not a
    # closed set; whatever it raises, the change itself stands.
    except Exception as exc:
        logger.warning(
            "Could not tell %s's open panels that their memory was %s: %s: %s",
            username,
            reason.replace("_", " "),
            type(exc).__name__,
            exc,
        )
        return False
    return True


def memory_changed_send(
    *, username: str, reason: Reason, session_ids: list[str], block_id: str | None = None
) -> bool:
    """The same, from synchronous code (admin views, management commands, the REST API)."""
    return async_to_sync(memory_changed_send_async)(
        username=username, reason=reason, session_ids=session_ids, block_id=block_id
    )
