"""What the memory server holds for a shopper's account, read straight through the SDK client.

The app files an account's memory under the id minted for it (`memoryapp.accounts`), never
its username: these helpers look the id up the way the app does, then ask memory.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async

from memoryapp.clients import memory_client_sync


def memory_user_of(username: str) -> str:
    """The Agent Memory user the account named `username` has its memory filed under."""
    from django.contrib.auth import get_user_model

    from memoryapp.accounts import account_memory_user_id

    return account_memory_user_id(account=get_user_model().objects.get(username=username))


async def memory_user_of_async(username: str) -> str:
    return await sync_to_async(memory_user_of)(username)


def memory_user_id_exists(user_id: str) -> bool:
    from agentmemory.exceptions import NotFoundError

    with memory_client_sync() as client:
        try:
            client.get_user(user_id)
        except NotFoundError:
            return False
    return True


def memory_user_exists(username: str) -> bool:
    """Whether memory holds a user for the account `username` (no account, no memory)."""
    from django.contrib.auth import get_user_model

    if not get_user_model().objects.filter(username=username).exists():
        return False
    return memory_user_id_exists(memory_user_of(username))


def memory_blocks(username: str) -> list:
    return memory_blocks_filed(memory_user_of(username))


def memory_blocks_filed(user_id: str) -> list:
    """The blocks filed under a memory user id: no database read, so a test can call it
    where the ORM may not run (inside Playwright's sync API, which runs an event loop)."""
    with memory_client_sync() as client:
        return list(client.get_user(user_id).list_memories(limit=200).memory_blocks)
