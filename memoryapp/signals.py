"""What memory announces to the rest of the shop.

`memory_changed` is sent once a shopper's memory has changed under their open chat panels:
staff erased it all (`reason="erased"`, with the `session_ids` that went) or one record was
deleted (`reason="record_deleted"`, its `block_id`). Memory does not know the panels: the
chat app listens and tells them (`assistant.protocol.panels`). A receiver's failure must not
undo or fail a change already made, so receivers catch their own errors.
"""

from __future__ import annotations

from typing import Literal

from django.dispatch import Signal

ChangeReason = Literal["erased", "record_deleted"]

# Sent with account_id (the account's primary key), reason: ChangeReason, session_ids: list[str], block_id: str | None.
memory_changed = Signal()


def memory_changed_announce(
    *, account_id: int, reason: ChangeReason, session_ids: list[str], block_id: str | None = None
) -> None:
    memory_changed.send(
        sender=memory_changed_announce,
        account_id=account_id,
        reason=reason,
        session_ids=list(session_ids),
        block_id=block_id,
    )
