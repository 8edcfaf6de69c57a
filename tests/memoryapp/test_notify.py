"""memory.changed reaches exactly the shopper's open panels, on the in-memory channel layer."""

from __future__ import annotations

import logging

import pytest
from channels.layers import get_channel_layer

from assistant.protocol.panels import (
    memory_changed_send,
    memory_changed_send_async,
    shopper_group,
)
from tests.support.panels import PanelListener


@pytest.mark.parametrize("account_id", [1, 42, "42", 2**63 - 1])
def test_every_account_gets_a_group_name_the_layer_accepts(account_id):
    group = shopper_group(account_id)
    assert get_channel_layer().require_valid_group_name(group)
    assert group == shopper_group(str(account_id))


def test_two_accounts_never_share_a_group():
    ids = [1, 2, 11, 12, 21, 112]
    assert len({shopper_group(n) for n in ids}) == len(ids)


def test_an_erase_reaches_every_open_panel_of_that_shopper_only():
    first_tab, second_tab = PanelListener(1), PanelListener(1)
    bystander = PanelListener(2)

    assert memory_changed_send(account_id=1, reason="erased", session_ids=["session1", "session2"])

    expected = {
        "type": "memory.changed",
        "reason": "erased",
        "session_ids": ["session1", "session2"],
        "block_id": None,
    }
    assert first_tab.received() == [expected]
    assert second_tab.received() == [expected]
    assert bystander.received() == []


async def test_the_async_variant_sends_the_same_message():
    panel = await PanelListener.opened(3)
    assert await memory_changed_send_async(
        account_id=3, reason="record_deleted", session_ids=[], block_id="b-42"
    )
    assert await panel.received_async() == [
        {
            "type": "memory.changed",
            "reason": "record_deleted",
            "session_ids": [],
            "block_id": "b-42",
        }
    ]


def test_a_layer_that_fails_is_logged_and_does_not_raise(monkeypatch, caplog):
    layer = get_channel_layer()

    async def broken(group, message):
        raise ConnectionError("redis is down")

    monkeypatch.setattr(layer, "group_send", broken)
    with caplog.at_level(logging.WARNING, logger="assistant"):
        assert memory_changed_send(account_id=4, reason="erased", session_ids=[]) is False
    assert "Could not tell account 4's open panels that their memory was erased" in caplog.text
