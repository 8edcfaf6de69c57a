"""Past visits written as live chats write them: the demo shoppers', a scenario file's.

A visit goes through the handle a live turn holds (`memoryapp.turn.TurnMemory`), in the
order a live visit uses it (opened with its date and retention, `remember` for each turn
block and its judged facts, `end` for the episode), and through the chat records' own
writes (`assistant.records.chat_records`), so a seeded visit differs from a live one only by its
date and the model named on its turns.

Each visit's session carries a key in its metadata, a digest of the shopper, the visit's
place among their visits and its content. Writing a scenario again skips the visits already
in memory, so the demo visits can be written on every `make run` and never doubles; a
visit staff erased is written again, a visit edited in the file is written as a new one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from assistant.records.chat_records import (
    chat_session_closed,
    chat_session_discard,
    chat_session_touch,
    chat_turn_finish,
    chat_turn_open,
)
from assistant.records.scenario import ShopperVisits, Visit
from memoryapp.public import (
    Exchange,
    MemoryUnavailable,
    ShopperMemory,
    TurnMemory,
)
from shop.services import SignInRefused, shopper_get_or_create

SEED_MODEL = "seed_sessions"  # the model named on a seeded visit's turns
SEED_KEY = "seed"  # the session metadata that names the scenario visit it holds
# A seed run is not a shopper's turn: a cold server may take longer than the chat path's
# one-second budget to open a session, and a visit cut short is a visit lost.
SEED_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class VisitWritten:
    number: int
    visit: Visit
    session_id: str
    turn_ids: list[list[str]]
    fact_ids: list[str]
    episode_id: str | None


@dataclass(frozen=True)
class VisitsWritten:
    written: list[VisitWritten]
    skipped: list[int]  # the numbers (from 1) of the visits already in memory


class AccountsRefused(Exception):
    """Some scenario shoppers name accounts the demo sign-in would refuse."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


class VisitWriteFailed(Exception):
    """Memory failed part-way through a visit; what it had written was removed again.

    `written` holds the shopper's visits written before it, which are kept.
    """

    def __init__(self, message: str, *, number: int, written: list[VisitWritten]) -> None:
        super().__init__(message)
        self.number = number
        self.written = written


def visit_key(*, username: str, number: int, visit: Visit) -> str:
    content = {"username": username, "number": number, "visit": visit.model_dump(mode="json")}
    digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()
    return f"sha256:{digest[:32]}"


def past_visits_accounts(*, shoppers: Sequence[ShopperVisits], create: bool) -> list[Any]:
    """Each shopper's account as the demo sign-in opens it, creating new demo shoppers.

    Every account is checked before any is kept: a name the sign-in refuses (staff, a
    password, not a demo shopper) raises AccountsRefused naming each one, and nothing is
    created. With create False nothing is created either way (a dry run).
    """
    users: list[Any] = []
    errors: list[str] = []
    with transaction.atomic():
        for index, shopper in enumerate(shoppers):
            try:
                users.append(
                    shopper_get_or_create(
                        username=shopper.username, display_name=shopper.display_name
                    )
                )
            except SignInRefused as refused:
                errors.append(f"[{index}].username: {shopper.username!r}: {refused}")
        if errors or not create:
            transaction.set_rollback(True)
    if errors:
        raise AccountsRefused(errors)
    return users


def visits_present(*, user: Any, timeout: float) -> set[str]:
    """The keys of the scenario visits already in the shopper's memory. Raises
    MemoryUnavailable."""
    sessions = ShopperMemory(account=user).sessions_metadata(timeout=timeout)
    return {str(m[SEED_KEY]) for m in sessions.values() if m.get(SEED_KEY)}


def past_visits_write(
    *, user: Any, shopper: ShopperVisits, timeout: float = SEED_TIMEOUT_SECONDS
) -> VisitsWritten:
    """Write the shopper's visits that memory does not hold yet, oldest first.

    One event loop serves all the shopper's visits, so a visit's memory session lives across its
    exchanges while its chat records are written here, in the caller's thread and database
    connection. Raises MemoryUnavailable before anything is written when memory cannot be
    read, and VisitWriteFailed when a visit fails part-way.
    """
    username = user.get_username()
    display_name = user.demo_shopper.display_name
    present = visits_present(user=user, timeout=timeout)
    written: list[VisitWritten] = []
    skipped: list[int] = []
    with asyncio.Runner() as runner:
        try:
            for number, visit in enumerate(shopper.sessions, start=1):
                key = visit_key(username=username, number=number, visit=visit)
                if key in present:
                    skipped.append(number)
                    continue
                try:
                    written.append(
                        _visit_write(
                            runner,
                            user=user,
                            display_name=display_name,
                            visit=visit,
                            number=number,
                            key=key,
                            timeout=timeout,
                        )
                    )
                except _VisitLost as lost:
                    raise VisitWriteFailed(str(lost), number=number, written=written) from lost
        finally:
            runner.run(ShopperMemory.clients_close())
    return VisitsWritten(written=written, skipped=skipped)


class _VisitLost(Exception):
    pass


def _visit_write(
    runner: asyncio.Runner,
    *,
    user: Any,
    display_name: str,
    visit: Visit,
    number: int,
    key: str,
    timeout: float,
) -> VisitWritten:
    try:
        memory: TurnMemory = runner.run(
            TurnMemory.open(
                account=user,
                display_name=display_name,
                session_id=None,
                session_date=visit.date,
                retention=visit.retention,
                metadata={SEED_KEY: key},
                timeout=timeout,
            )
        )
    except MemoryUnavailable as exc:
        raise _VisitLost(f"could not open a session: {exc}") from exc
    session_id = memory.session_id
    try:
        chat_session = chat_session_touch(user=user, info=memory.info, retention=visit.retention)
        turn_ids: list[list[str]] = []
        fact_ids: list[str] = []
        for exchange_number, exchange in enumerate(visit.exchanges, start=1):
            turn = chat_turn_open(chat_session=chat_session, model=SEED_MODEL)
            saved = runner.run(
                memory.remember(Exchange(query=exchange.query, answer=exchange.answer))
            )
            if not saved.ids.turn:
                raise _VisitLost(f"exchange {exchange_number} was not stored")
            if turn is not None:
                chat_turn_finish(turn_id=turn.pk, saved=saved.ids.as_dict())
            turn_ids.append(saved.ids.turn)
            fact_ids += saved.ids.fact
        episode_id = None
        if visit.close:
            episode_id = runner.run(memory.end())
            chat_session_closed(user=user, session_id=session_id)
    except BaseException:
        # Half a visit is worse than none: a later run writes it whole (Ctrl-C included).
        runner.run(memory.discard())
        chat_session_discard(user=user, session_id=session_id)
        raise
    return VisitWritten(
        number=number,
        visit=visit,
        session_id=session_id,
        turn_ids=turn_ids,
        fact_ids=fact_ids,
        episode_id=episode_id,
    )
