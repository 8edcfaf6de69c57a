"""Fixtures for the admin tests."""

from __future__ import annotations

import json
import secrets
from io import StringIO

import pytest
from django.core.management import call_command

from shop.models import DemoShopper


@pytest.fixture
def username(shopper_name):
    """A demo-shopper username unique to the test (3-30 of a-z, 0-9, '-', '_')."""
    return f"{shopper_name[:22].rstrip('-')}-{secrets.token_hex(3)}"


@pytest.fixture
def shopper_client(client, django_user_model):
    """A signed-in shopper: not staff."""
    user = django_user_model.objects.create_user("plain-shopper", password="x")
    client.force_login(user)
    return client


@pytest.fixture
def remembered_shopper(live_memory, username, tmp_path) -> DemoShopper:
    """A demo shopper with one dated, closed visit written through the memory policy."""
    path = tmp_path / "scenario.json"
    path.write_text(
        json.dumps(
            [
                {
                    "username": username,
                    "display_name": "Wren",
                    "sessions": [
                        {
                            "date": "2026-04-12",
                            "retention": "1h",
                            "exchanges": [
                                {
                                    "query": "I'm a size M and I hate yellow, show me dresses",
                                    "answer": "Here is the Loom & Lane Wrap Midi Dress in M.",
                                }
                            ],
                            "close": True,
                        }
                    ],
                }
            ]
        )
    )
    call_command("seed_sessions", str(path), verbosity=0, stdout=StringIO())
    return DemoShopper.objects.select_related("user").get(user__username=username)
