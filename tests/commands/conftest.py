"""Fixtures for the management-command tests."""

from __future__ import annotations

import secrets

import pytest

from memoryapp.clients import memory_client_sync


@pytest.fixture
def username(shopper_name):
    """A demo-shopper username unique to the test."""
    return f"{shopper_name[:22].rstrip('-')}-{secrets.token_hex(3)}"


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
