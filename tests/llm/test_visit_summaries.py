"""Visit summaries say what happened: the goal, the products shown, the true outcome, and
a request to the writer that stays bounded however long the visit was."""

from __future__ import annotations

import json

import pytest

from llm.offline.payload import payload_read as payload_of
from llm.offline.writers import episode_write
from llm.prompts import EPISODE_MAX_TOKENS, episode_messages, messages_tokens
from llm.transcript import exchange_with_products
from memoryapp.judge import validate_episode

LIST_ANSWER = (
    "Here are 3 of 9 jeans:\n\n- **Tern Slim Jeans** — dark wash.\n- **Vela Bootcut Jeans** — "
    "relaxed.\n- **Mistral Wide Jeans** — high rise.\n\nWant me to check a size or colour?"
)
ONE_ANSWER = "Yes, the **Vela Bootcut Jeans** is in stock in size M (4 left)."


def _text(record: dict) -> str:
    """The episode as it is stored and read back next visit."""
    episode = validate_episode(json.dumps(record))
    assert episode is not None
    return episode.text


def test_the_goal_is_what_the_shopper_looked_for_never_a_memory_question():
    record = episode_write(
        [
            ("what size am I?", "You told me you wear size M."),
            ("hi, show me jeans", LIST_ANSWER),
        ]
    )
    assert record["summary"].startswith("The shopper looked for “hi, show me jeans”")
    assert "size am I" not in _text(record)


def test_a_visit_of_memory_questions_looked_for_nothing_and_did_not_fail():
    record = episode_write([("what do you remember about me?", "You told me you wear size M.")])
    assert record["outcome"] == "browsing" and record["found"] is False
    assert "remember" not in record["summary"].split("asked")[0]
    assert "did not find" not in _text(record).lower()
    assert record["follow_ups"] == []


def test_products_shown_and_none_chosen_is_no_failure():
    record = episode_write([("show me jeans", LIST_ANSWER), ("thanks, bye", "Bye!")])
    assert record["outcome"] == "shown"
    assert "Tern Slim Jeans, Vela Bootcut Jeans, Mistral Wide Jeans" in record["summary"]
    text = _text(record).lower()
    assert "did not find" not in text and "nothing matching" not in text


def test_the_product_followed_up_on_is_said():
    record = episode_write([("show me jeans", LIST_ANSWER), ("the bootcut in M?", ONE_ANSWER)])
    assert "They followed up on the Vela Bootcut Jeans." in record["summary"]


def test_did_not_find_only_when_searches_came_back_empty_or_the_shopper_said_so():
    empty = episode_write([("yellow boots", "I couldn't find any yellow boots in stock.")])
    assert empty["outcome"] == "not_found" and "Did not find what they wanted." in _text(empty)
    said = episode_write([("show me jeans", LIST_ANSWER), ("none of these, sorry", "Okay!")])
    assert said["outcome"] == "not_found"
    assert "They said nothing shown suited them." in said["summary"]


def test_the_products_an_answer_showed_come_from_its_cards():
    answer = exchange_with_products(
        "Here are a few options.", [{"sku": "JN-0001", "name": "Tern Slim Jeans"}]
    )
    messages = episode_messages([("jeans please", answer)])
    exchange = payload_of(messages)["exchanges"][0]
    assert exchange["shown"] == ["Tern Slim Jeans"]
    assert "Products shown" not in exchange["assistant"]


def _visit(turns: int) -> list[tuple[str, str]]:
    products = [
        {
            "sku": f"JN-{i:04d}",
            "name": f"Brand{i} Jeans No. {i}",
            "price_eur": 60.0 + i,
            "colours": ["black", "navy", "blue"],
            "sizes_in_stock": ["XS", "S", "M", "L", "XL"],
        }
        for i in range(4)
    ]
    answer = exchange_with_products(LIST_ANSWER.replace("\n", " ") * 2, products)
    return [
        (f"show me jeans in a relaxed fit for the weekend, take {n}", answer) for n in range(turns)
    ]


@pytest.mark.parametrize("turns", [30, 200])
def test_the_summary_request_stays_under_its_bound_whatever_the_visit(turns):
    visit = _visit(turns)
    facts = [f"The shopper wears size M (fact {n})." for n in range(40)]
    messages = episode_messages(visit, facts=facts)
    assert messages_tokens(messages) <= EPISODE_MAX_TOKENS
    payload = payload_of(messages)
    kept = payload["exchanges"]
    # The newest exchanges go in; how many were left out is said.
    assert kept[-1]["shopper"].endswith(f"take {turns - 1}")
    assert payload["left_out"] == turns - len(kept) > 0
    assert payload["facts"][0] == facts[0]


def test_a_short_visit_goes_in_whole():
    visit = _visit(3)
    payload = payload_of(episode_messages(visit))
    assert len(payload["exchanges"]) == 3 and "left_out" not in payload
