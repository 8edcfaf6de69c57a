"""A closed visit's summary, read back to the shopper on their next visit."""

from __future__ import annotations

import re

import pytest

from tests.support.chat import Chat

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_what_do_you_remember_reads_the_last_visit_as_it_happened(live_memory, shopper):
    _username, cookie = shopper
    async with Chat(cookie=cookie) as chat:
        asked = await chat.turn("what size am I?")
        session_id = asked[0]["session_id"]
        shown = await chat.turn("show me black jeans", session_id=session_id, turn_count=1)
        done = next(e for e in shown if e["type"] == "done")
        names = [card["name"] for card in done["products"]]
        assert names
        await chat.send({"type": "close", "session_id": session_id})
        closed = await chat.events_until("closed")
        assert closed[-1]["episode_block_id"]
        again = await chat.turn("what do you remember about me?", session_id=None)
    answer = next(e for e in again if e["type"] == "done")["text"]
    # The goal is what was looked for, the products are those shown, and a visit that
    # showed products is no visit where nothing was found.
    assert "black jeans" in answer
    assert names[0] in answer
    assert not re.search(r"what size am i", answer, re.I)
    assert not re.search(r"did(n't| not) find|nothing matching", answer, re.I)
