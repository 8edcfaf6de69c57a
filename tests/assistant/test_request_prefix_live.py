"""What a hosted model is sent: the stable part first, the same on every turn."""

from __future__ import annotations

import json

import pytest

from harness.fake_openai import Reply
from llm.prompts import NOTES_OPEN, role_of
from tests.support.chat import Chat

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def _search(query: str) -> Reply:
    return Reply(tool_calls=[("search_products", json.dumps({"query": query}))])


async def test_two_turns_send_the_same_system_prompt_and_tools_before_what_changes(
    live_memory, shopper, fake_openai
):
    _username, cookie = shopper
    for query in ("shirt", "jeans"):
        fake_openai.script("assistant", _search(query), Reply(text="Here are a few."))
    async with Chat(cookie=cookie) as chat:
        first = await chat.turn("I'm a size M, a shirt for Ottoline's garden party")
        session_id = first[0]["session_id"]
        await chat.turn("and some jeans", session_id=session_id, turn_count=1)
    rounds = [r for r in fake_openai.requests if role_of(r["messages"]) == "assistant"]
    firsts = [r for r in rounds if not any(m["role"] == "tool" for m in r["messages"])]
    assert len(firsts) == 2
    one, two = firsts

    # The second turn has notes the first had not: what changes comes after the stable part.
    def notes(request):
        return [
            m for m in request["messages"] if m["role"] == "user" and NOTES_OPEN in m["content"]
        ]

    assert notes(one) == [] and len(notes(two)) == 1
    assert json.dumps(one["tools"]) == json.dumps(two["tools"])
    assert one["messages"][0] == two["messages"][0]
    assert one["messages"][0]["role"] == "system"
    # Nothing of the turn (notes, page, message) is in the shared part.
    assert "ottoline" not in json.dumps([one["tools"], one["messages"][0]]).lower()
