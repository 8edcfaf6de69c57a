"""Whose memory is whose: the Agent Memory user each account's memory is filed under, and
the erasure of a deleted account's memory.

Memory is filed under an id minted for the account (`account_memory_user_id`), never read
off its username: staff can rename an account, and once a name is free anyone can create
an account under it through the demo sign-in; neither may carry memory from one person to
another. A renamed account keeps its id, so it keeps its memory. Accounts that existed when
ids were introduced keep the username their memory was filed under as their id (the
migration that made the table stored it): their memory stays where it is, on the embedded
server and on a real one alike, with nothing copied, and a later account of that name gets
an id of its own.

Deleting an account, however it is deleted (the admin, a bulk action, the shell, a cascade),
marks its memory for erasure in the deletion's own transaction (a `MemoryErasure`), and the
erasure is tried once the deletion has committed. What Agent Memory could not erase then
stays marked, never silently kept (`memoryapp.erasure`): `manage.py erase_pending_memory` (which `make run` runs
once memory answers; a cron job on a real deployment) and the admin's list of pending
erasures try again, and a mark goes only once the memory user is gone. The chat records go
with the account (their foreign key cascades).
"""

from __future__ import annotations

import secrets

from channels.db import database_sync_to_async
from django.db import IntegrityError, transaction

from memoryapp.models import MemoryAccount

# "acct-" and 32 hex digits: never an id an existing account's username was filed under
# (the table's uniqueness holds it against the rest).
_MINTED_PREFIX = "acct-"
_CACHE = "_memory_user_id"


def _minted() -> str:
    return f"{_MINTED_PREFIX}{secrets.token_hex(16)}"


def account_memory_user_id(*, account) -> str:
    """The Agent Memory user id of `account` (a saved user), minted on its first need.

    Kept on the account object once read: it never changes, and a caller that has read it
    (the seeding, in its own thread and connection) lets later async calls skip the database.
    """
    cached = account.__dict__.get(_CACHE)
    if cached is not None:
        return cached
    found = (
        MemoryAccount.objects.filter(user=account).values_list("memory_user_id", flat=True).first()
    )
    if found is None:
        try:
            with transaction.atomic():
                found = MemoryAccount.objects.create(
                    user=account, memory_user_id=_minted()
                ).memory_user_id
        except IntegrityError:
            # Another request minted it a moment ago: that one is the account's.
            found = MemoryAccount.objects.get(user=account).memory_user_id
    account.__dict__[_CACHE] = found
    return found


async def account_memory_user_id_async(*, account) -> str:
    cached = account.__dict__.get(_CACHE)
    if cached is not None:
        return cached
    return await database_sync_to_async(account_memory_user_id)(account=account)
