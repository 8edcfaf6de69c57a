"""Users, sessions and blocks written in process through the server's own services."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from memoryserver.services.blocks import NewBlock, block_update, blocks_add
from memoryserver.services.sessions import session_create
from memoryserver.services.users import user_create

# What a plain add passes: a fact block with no extraction, written in the background.
PLAIN_ADD: dict[str, Any] = dict(
    annotations=None,
    block_ttl=None,
    context_required=False,
    created_at=None,
    async_processing=True,
    prompt_id=None,
    prompt_vid=None,
)


def user_stocked(
    user_id: str,
    sessions: Iterable[str] = ("s",),
    *,
    name: str = "U",
    blocks_ttl: int | None = None,
) -> str:
    """Create the user and its sessions (each with blocks_ttl); the user id."""
    user_create(user_id=user_id, name=name, metadata=None)
    for session_id in sessions:
        session_create(
            user_id=user_id,
            session_id=session_id,
            annotations=None,
            metadata=None,
            blocks_ttl=blocks_ttl,
        )
    return user_id


def blocks_stocked(
    user_id: str, session_id: str, items: Sequence[NewBlock | str], **options: Any
) -> list[str]:
    """`blocks_add` with PLAIN_ADD's options unless given; a string is a fact. The new ids."""
    result = blocks_add(
        user_id=user_id,
        session_id=session_id,
        items=[NewBlock(fact=item) if isinstance(item, str) else item for item in items],
        **{**PLAIN_ADD, **options},
    )
    return result.block_ids


def block_text_set(*, user_id: str, session_id: str, block_id: str, text: str) -> None:
    """Replace a block's text, as a PUT with new content does; nothing else changes."""
    block_update(
        user_id=user_id,
        session_id=session_id,
        block_id=block_id,
        content=NewBlock(fact=text),
        annotations=None,
        block_ttl=None,
        async_processing=True,
        context_required=None,
        prompt_id=None,
        prompt_vid=None,
    )
