"""Fixtures for the management-command tests."""

from __future__ import annotations

import secrets

import pytest


@pytest.fixture
def username(shopper_name):
    """A demo-shopper username unique to the test."""
    return f"{shopper_name[:22].rstrip('-')}-{secrets.token_hex(3)}"
