"""A chat turn's memory: the one object the turn pipeline and the seeded visits hold.

`TurnMemory.open` resumes (or mints) the shopper's session and, when the client named a
session, starts the turn's recall alongside the lookup: the two cost one round trip instead
of two before the first token, an optimisation that stays inside memory. The caller then
asks for what it needs (`recall`, `remember`, `look_up`) and always ends with `close`, which
drops a recall the turn went on without (memory failed, or the shopper pressed Stop).

The handle serves the turn only. What a visit needs of memory outside its turns (the
panel's greeting, the close of a visit, the erase) is asked of the shopper's face,
`memoryapp.shopper.ShopperMemory`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import date
from typing import Any

from memoryapp.accounts import account_memory_user_id_async
from memoryapp.clients import memory_client_async
from memoryapp.conf import memory_conf
from memoryapp.episodes import session_close
from memoryapp.guard import MEMORY_ERRORS
from memoryapp.recall import (
    EarlyRecall,
    memories_recall,
    memory_tool_recall,
    recall_abandon,
    recall_begin,
    recall_finish,
)
from memoryapp.recording import exchange_remember, keyed_blocks_find
from memoryapp.render import exchange_line, verbatim_lines
from memoryapp.sessions import OpenSession, session_open
from memoryapp.types import BlockIds, MemoryUnavailable, Recall, Remembered, SessionInfo

# What a turn's caller may use of memory: the handle, the values it takes and hands back,
# and the one error it raises.
__all__ = [
    "BlockIds",
    "Exchange",
    "MemoryUnavailable",
    "Recall",
    "Remembered",
    "SessionInfo",
    "TurnMemory",
]


@dataclass(frozen=True)
class Exchange:
    """One exchange to remember: the shopper's message and the answer they were shown."""

    query: str
    answer: str

    def note_lines(self, *, max_chars: int | None = None) -> list[str]:
        """The exchange as the notes' verbatim window writes it, over lines of at most
        `max_chars` (the policy's note length unless given): a chat memory does not hold
        (signed out) reaches the model as a recalled exchange would."""
        limit = memory_conf().note_max_chars if max_chars is None else max_chars
        return verbatim_lines(exchange_line(self.query, self.answer), max_chars=limit)


class TurnMemory:
    """The shopper's memory session for one turn (or one seeded visit)."""

    def __init__(
        self,
        session: OpenSession,
        *,
        display_name: str,
        early: EarlyRecall | None,
        message: str,
        turn_count: int,
    ) -> None:
        self._session = session
        self._display_name = display_name
        self._early = early
        self._message = message
        self._turn_count = turn_count

    @classmethod
    async def open(
        cls,
        *,
        account: Any,
        display_name: str,
        session_id: str | None,
        message: str = "",
        turn_count: int = 0,
        recall_early: bool = True,
        session_date: date | None = None,
        retention: str | None = None,
        metadata: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> TurnMemory:
        """Open the turn's session (see `session_open`), its recall of `message` under way.

        With `recall_early` False the recall waits for `recall()` (a benchmark timing the
        recall's own calls); a session minted now has nothing to recall early anyway.

        Raises MemoryUnavailable, having dropped the early recall; so does a turn stopped
        while the session is being opened. `account` is the signed-in user: memory is filed
        under its own id (`memoryapp.accounts`), never its username.
        """
        user_id = await account_memory_user_id_async(account=account)
        early = (
            recall_begin(
                user_id=user_id, session_id=session_id, message=message, turn_count=turn_count
            )
            if recall_early
            else None
        )
        try:
            session = await session_open(
                user_id=user_id,
                display_name=display_name,
                session_id=session_id,
                session_date=session_date,
                retention=retention,
                metadata=metadata,
                timeout=timeout,
            )
        except BaseException:
            recall_abandon(early)
            raise
        return cls(
            session,
            display_name=display_name,
            early=early,
            message=message,
            turn_count=turn_count,
        )

    @property
    def info(self) -> SessionInfo:
        return self._session.info

    @property
    def session_id(self) -> str:
        return self._session.session_id

    async def recall(self) -> Recall:
        """The turn's recall: the one begun with the session's lookup when it still applies."""
        if self._early is not None:
            # Kept until it is done, so a turn stopped meanwhile still drops it (`close`).
            recall = await recall_finish(self._early, memory=self._session)
            self._early = None
            return recall
        return await memories_recall(
            memory=self._session, message=self._message, turn_count=self._turn_count
        )

    async def remember(
        self,
        exchange: Exchange,
        *,
        key: str | None = None,
        protected: frozenset[str] = frozenset(),
    ) -> Remembered:
        """Record the exchange and its judged facts (see `exchange_remember`): `key` is the
        write's idempotency key (the chat turn's id), `protected` the facts the shopper was
        told were saved."""
        return await exchange_remember(
            memory=self._session,
            query=exchange.query,
            answer=exchange.answer,
            key=key,
            protected=protected,
        )

    async def written_under(self, key: str) -> BlockIds:
        """The blocks of this session written under idempotency key `key`, by kind."""
        found = await keyed_blocks_find(memory=self._session, key=key)
        return BlockIds(turn=found.get("turn", []), fact=found.get("fact", []))

    async def look_up(self, query: str) -> list[Any]:
        """The recall_memory tool's search over this shopper's memory only."""
        return await memory_tool_recall(memory=self._session, query=query)

    async def end(self) -> str | None:
        """Write the visit's episode and end its session; the episode's block id."""
        return await session_close(
            user_id=self._session.user_id,
            display_name=self._display_name,
            session_id=self.session_id,
        )

    async def discard(self) -> None:
        """Delete the session with what it holds; best effort (the caller is failing)."""
        with contextlib.suppress(*MEMORY_ERRORS):
            user = await memory_client_async().get_user(self._session.user_id)
            await (await user.get_session(self.session_id)).delete()

    def close(self) -> None:
        """Drop a recall the turn never awaited; a no-op once it has been."""
        early, self._early = self._early, None
        recall_abandon(early)
