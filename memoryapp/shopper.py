"""A shopper's memory outside a turn: what a visit needs before, after and beside its turns.

A turn holds `memoryapp.turn.TurnMemory`, opened for that turn and closed with it. What
reads or ends a shopper's memory across visits is asked of `ShopperMemory` instead: the
panel's greeting, the close of a visit with its episode, the erase, and for the seeding and
the admin, the shopper's sessions and a session's texts. Its class carries what is no one
shopper's: whether memory answers, closing an event loop's client, and the signal sent when
a shopper's memory changed.
"""

from __future__ import annotations

from typing import Any

from memoryapp.accounts import account_memory_user_id, account_memory_user_id_async
from memoryapp.clients import memory_client_async, memory_health_status
from memoryapp.episodes import CloseOutcome, session_end
from memoryapp.erasure import shopper_memory_erase
from memoryapp.greeting import GreetingMemory, greeting_read
from memoryapp.selectors import session_texts_read, sessions_metadata_read
from memoryapp.signals import memory_changed

__all__ = ["GreetingMemory", "ShopperMemory"]


class ShopperMemory:
    """The memory of one shopper (`account`, a saved user), across their visits.

    Memory files it under the account's own id (`memoryapp.accounts`), never its username.
    """

    # Sent once memory has erased the shopper or deleted one of their records; the chat app
    # listens to tell the shopper's open panels (`memoryapp.signals`).
    changed = memory_changed

    def __init__(self, *, account: Any) -> None:
        self._account = account

    @property
    def memory_user_id(self) -> str:
        """The shopper's id in memory, minted on its first need (reads the database)."""
        return account_memory_user_id(account=self._account)

    async def greeting(self) -> GreetingMemory | None:
        """What the shopper's memory offers the panel's greeting; None when memory could
        not be read (see `greeting_read`)."""
        user_id = await account_memory_user_id_async(account=self._account)
        return await greeting_read(user_id=user_id)

    async def visit_close(self, *, display_name: str, session_id: str) -> CloseOutcome:
        """End a visit the shopper closed: its episode written, its session ended (see
        `session_end`); the outcome says whether memory was reached."""
        return await session_end(
            user_id=await account_memory_user_id_async(account=self._account),
            display_name=display_name,
            session_id=session_id,
        )

    def erase(self) -> bool:
        """Delete the shopper's memory with everything in it, and tell their panels; False
        when there was nothing to delete. Raises MemoryUnavailable, having changed nothing."""
        return shopper_memory_erase(account=self._account)

    def sessions_metadata(self, *, timeout: float | None = None) -> dict[str, dict[str, Any]]:
        """Each of the shopper's sessions with its metadata ({} for a shopper never
        remembered), read synchronously. Raises MemoryUnavailable."""
        return sessions_metadata_read(user_id=self.memory_user_id, timeout=timeout)

    def session_texts(self, *, session_id: str) -> dict[str, str]:
        """The text of every block still stored in one of the shopper's sessions, by block
        id (`memoryapp.selectors.session_texts_read`). Raises MemoryUnavailable."""
        return session_texts_read(user_id=self.memory_user_id, session_id=session_id)

    # --- no one shopper's ------------------------------------------------------------------

    @staticmethod
    def reachable(*, timeout: float | None = None) -> bool:
        """Whether the memory server answers its health check within `timeout`."""
        return memory_health_status(timeout=timeout) == "ok"

    @staticmethod
    async def clients_close() -> None:
        """Close this event loop's memory client (a run that owns its loop, like the seeding)."""
        await memory_client_async().close()
