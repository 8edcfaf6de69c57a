"""memory.changed reaches exactly the shopper's open panels, on the in-memory channel layer."""

from __future__ import annotations

import logging

import pytest
from channels.layers import get_channel_layer

from assistant.panels import (
    memory_changed_send,
    memory_changed_send_async,
    shopper_group,
)
from tests.support.panels import PanelListener


@pytest.mark.parametrize(
    "username",
    ["ann", "ann.lee+shop@example.com", "Zoë", "名前", "a" * 150, "x y", "a/b?c#d%e"],
)
def test_every_username_gets_a_group_name_the_layer_accepts(username):
    group = shopper_group(username)
    assert get_channel_layer().require_valid_group_name(group)
    assert group == shopper_group(username)


def test_two_shoppers_never_share_a_group():
    names = ["ann", "Ann", "ann ", "ann.", "ann_", "bob", "a" * 150, "a" * 149]
    assert len({shopper_group(n) for n in names}) == len(names)


def test_an_erase_reaches_every_open_panel_of_that_shopper_only():
    first_tab, second_tab = PanelListener("ann"), PanelListener("ann")
    bystander = PanelListener("bob")

    assert memory_changed_send(
        username="ann", reason="erased", session_ids=["session1", "session2"]
    )

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
    panel = await PanelListener.opened("cleo")
    assert await memory_changed_send_async(
        username="cleo", reason="record_deleted", session_ids=[], block_id="b-42"
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
        assert memory_changed_send(username="dan", reason="erased", session_ids=[]) is False
    assert "Could not tell dan's open panels that their memory was erased" in caplog.text
