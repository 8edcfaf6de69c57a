"""Forget a shopper: everything Aisle keeps about them, in one place for every caller.

The admin's "erase" and the `forget_shopper` command both call `shopper_forget`, so the
two can never behave differently. The memory goes first (through the memory policy,
which also tells the shopper's open panels); the chat records go only once it has: they
hold block ids and scores, never memory text, but a ChatSession names a memory session
that no longer exists, and a forgotten shopper should leave nothing behind. If memory
cannot be reached nothing is deleted, so the request can simply be made again.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count

from assistant.models import ChatSession
from memoryapp.public import ShopperMemory


@dataclass(frozen=True)
class ShopperForgotten:
    had_memory: bool
    chat_sessions: int
    chat_turns: int


@transaction.atomic
def _chat_records_delete(*, user: AbstractBaseUser) -> tuple[int, int]:
    sessions = ChatSession.objects.filter(shopper=user)
    counts = sessions.aggregate(sessions=Count("pk", distinct=True), turns=Count("turns"))
    sessions.delete()  # turns cascade
    return counts["sessions"], counts["turns"]


def shopper_forget(*, user: AbstractBaseUser) -> ShopperForgotten:
    """Erase the shopper's memory user, then their chat sessions and turns; keep the account.

    Raises MemoryUnavailable, having deleted nothing, when memory cannot be reached.
    """
    had_memory = ShopperMemory(account=user).erase()
    sessions, turns = _chat_records_delete(user=user)
    return ShopperForgotten(had_memory=had_memory, chat_sessions=sessions, chat_turns=turns)


def shopper_chat_sessions_count(*, user: AbstractBaseUser) -> int:
    return ChatSession.objects.filter(shopper=user).count()
