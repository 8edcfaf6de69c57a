"""What the memory server holds for a shopper, read straight through the SDK client."""

from __future__ import annotations

from memoryapp.clients import memory_client_sync


def memory_user_exists(user_id: str) -> bool:
    from agentmemory.exceptions import NotFoundError

    with memory_client_sync() as client:
        try:
            client.get_user(user_id)
        except NotFoundError:
            return False
    return True


def memory_blocks(user_id: str) -> list:
    with memory_client_sync() as client:
        return list(client.get_user(user_id).list_memories(limit=200).memory_blocks)
