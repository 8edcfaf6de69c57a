"""Questions of what is kept about the shopper, in the ways people ask them: answered from
what they told, never searched."""

from __future__ import annotations

import pytest

from assistant.management.commands.score_conversations import conversation_score
from shop.selectors import catalog_vocabulary

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]


def _misses(*turns: tuple[str, dict], facts: list[str]) -> list[str]:
    conversation = {
        "id": "t",
        "signed_in": True,
        "facts": facts,
        "turns": [
            {"visit": 1, "text": text, "page": None, "act": "memory_question", "expect": expect}
            for text, expect in turns
        ],
    }
    results = conversation_score(conversation, vocabulary=catalog_vocabulary())
    return [f"{r.turn['text']!r}: {'; '.join(r.misses)}" for r in results if r.misses]


def test_what_the_shop_has_the_shopper_down_as_is_a_memory_question() -> None:
    misses = _misses(
        ("so what size have you put me down as?", {"no_search": True, "answer_has": ["XL"]}),
        ("and what do you have me at for shoes", {"no_search": True, "answer_has": ["44"]}),
        facts=["size/tops=XL", "size/shoes=44"],
    )
    assert misses == []


def test_what_the_shopper_does_not_like_asked_with_no_kind_is_answered() -> None:
    misses = _misses(
        ("hmm what did i not like, remind me?", {"no_search": True, "answer_has": ["orange"]}),
        ("what do I hate again", {"no_search": True, "answer_has": ["Copperleaf"]}),
        facts=["colour/orange=dislike", "brand/copperleaf=dislike"],
    )
    assert misses == []
