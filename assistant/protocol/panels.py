"""Tell a shopper's open chat panels what changed under them, over the channel layer.

Every path that erases a shopper's memory or deletes one of their records (the admin, the
`forget_shopper` command, the records API) makes memory announce it (`memoryapp`'s
`memory_changed` signal); `assistant.signals` hears it and sends one `memory.changed`
message to the shopper's group here. Each open panel's consumer joins that group and
forwards the event, so no panel resumes a session that no longer exists. With the
in-memory layer only panels served by the same process hear it; with Redis every process's
panels do (a command run from a terminal reaches panels only through Redis).

The same layer carries the end of a shopper's sign-in (`shopper.ended`: signed out,
deactivated, deleted; the panel's socket closes) to the shopper's group, and staff's memory
switch (`memory.switched`) to the one group every signed-in panel joins (docs/protocol.md).
"""

from __future__ import annotations

import hashlib
import logging
from typing import Literal

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger("assistant")

Reason = Literal["erased", "record_deleted"]
MESSAGE_TYPE = "memory.changed"  # Channels dispatches it to a consumer's memory_changed()


def shopper_group(account_id: int | str) -> str:
    """The shopper's channel-layer group, named by the account's primary key: a renamed
    account's panels stay in it, and an account created later under a freed name never
    joins it (a key is never handed out twice)."""
    return f"memory.shopper.{account_id}"


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
    *, account_id: int, reason: Reason, session_ids: list[str], block_id: str | None = None
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
        await layer.group_send(shopper_group(account_id), message)
    # The layer backend is pluggable (in-memory, Redis, others), so its errors are not a
    # closed set; whatever it raises, the change itself stands.
    except Exception as exc:
        logger.warning(
            "Could not tell account %s's open panels that their memory was %s: %s: %s",
            account_id,
            reason.replace("_", " "),
            type(exc).__name__,
            exc,
        )
        return False
    return True


def memory_changed_send(
    *, account_id: int, reason: Reason, session_ids: list[str], block_id: str | None = None
) -> bool:
    """The same, from synchronous code (admin views, management commands, the REST API)."""
    return async_to_sync(memory_changed_send_async)(
        account_id=account_id, reason=reason, session_ids=session_ids, block_id=block_id
    )


# --- the end of a shopper's sign-in, and staff's memory switch -----------------------------

EndReason = Literal["signed_out", "deactivated", "deleted"]
ENDED_MESSAGE_TYPE = "shopper.ended"  # dispatched to a consumer's shopper_ended()
SWITCHED_MESSAGE_TYPE = "memory.switched"  # dispatched to a consumer's memory_switched()
# Every signed-in panel joins this one group as well as its shopper's: staff's switch
# concerns them all, and one send reaches them whatever the number of shoppers, where a
# send per shopper's group would need the list of everyone with a panel open.
PANELS_GROUP = "memory.panels"


def session_tag(session_key: str) -> str:
    """A browser session's name on the channel layer: a digest, never the key itself.

    The key is the session cookie's secret; a message naming one browser's sign-in must
    not put it where anything that reads the layer (Redis) could lift it.
    """
    return hashlib.sha256(session_key.encode("utf-8")).hexdigest()


def _group_send(group: str, message: dict[str, object], *, what: str) -> bool:
    layer = get_channel_layer()
    if layer is None:
        return False
    try:
        async_to_sync(layer.group_send)(group, message)
    # As above: whatever a pluggable layer raises, the change itself stands, and every
    # socket still checks the sign-in on its next frame.
    except Exception as exc:
        logger.warning("Could not tell open panels %s: %s: %s", what, type(exc).__name__, exc)
        return False
    return True


def shopper_ended_send(
    *, account_id: int, reason: EndReason, session_key: str | None = None
) -> bool:
    """Close the shopper's open sockets: those of one browser session, or all of them.

    Sent when a browser signs out (`session_key` given: the shopper's other browsers stay
    signed in) and when the account is deactivated or deleted (every socket).
    """
    message = {
        "type": ENDED_MESSAGE_TYPE,
        "reason": reason,
        "session": session_tag(session_key) if session_key else None,
    }
    what = f"that account {account_id} is {reason}"
    return _group_send(shopper_group(account_id), message, what=what)


def memory_switched_send(*, enabled: bool) -> bool:
    """Tell every open signed-in panel that staff switched memory on or off."""
    message = {"type": SWITCHED_MESSAGE_TYPE, "enabled": enabled}
    return _group_send(
        PANELS_GROUP, message, what=f"that memory was switched {'on' if enabled else 'off'}"
    )
