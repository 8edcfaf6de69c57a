"""Questions about the shopper are answered from their own facts and visits, or plainly not."""

from __future__ import annotations

import pytest

from assistant.turn.grounding import DROPPED_LINES
from tests.support.shopping import (
    SIGNED_OUT_TOOLS,
    Shopper,
    answer_after,
    conversation,
    first_reply,
    first_tool_call,
)

FACTS = [
    "[fact · stated 2026-03-01] The shopper dislikes yellow.",
    "[fact · stated 2026-05-01] The shopper wears size M.",
    "[fact · stated 2026-02-01] The shopper wears shoe size 42.",
    "[fact · stated 2026-02-02] The shopper's budget is up to 60 EUR.",
    "[fact · stated 2026-02-03] The shopper prefers the brand Vela.",
]
VISIT = (
    "[past visit summary · 2026-04-12 · unresolved] The shopper looked for “a wedding dress”. "
    "They did not settle on anything. Occasion: wedding. Did not find what they wanted. "
    "Follow-ups: Offer new options."
)
INSPECTOR = "Memory tab of the inspector"


async def _answer(question: str, **kwargs) -> str:
    message = await first_reply(question, **kwargs)
    assert message.tool_calls is None, "a question about the shopper needs no catalog look-up"
    return message.content


@pytest.mark.parametrize("question", ["what size am I?", "do you remember my size?"])
async def test_size_questions_are_answered_from_the_facts(question: str) -> None:
    text = await _answer(question, notes=FACTS)
    assert text.startswith("You told me you wear size M")
    assert "shoe size 42" in text
    assert INSPECTOR in text
    assert "I can only help with shopping" not in text


@pytest.mark.parametrize(
    "question", ["what shoe size am I?", "what size shoes do I wear?", "do you know my shoe size?"]
)
async def test_a_shoe_size_question_is_answered_with_the_shoe_size_alone(question: str) -> None:
    text = await _answer(question, notes=FACTS)
    assert text.startswith("You told me you wear shoe size 42.")
    assert "size M" not in text
    assert INSPECTOR in text


async def test_a_shoe_size_never_told_is_not_answered_with_a_letter_size() -> None:
    text = await _answer(
        "what shoe size am I?", notes=["[fact · stated 2026-05-01] The shopper wears size M."]
    )
    assert text.startswith("You haven't told me your shoe size yet.")
    assert "size M" not in text


async def test_which_colours_do_i_dislike() -> None:
    text = await _answer("which colours do I dislike?", notes=FACTS)
    assert text.startswith("You told me you dislike yellow.")


async def test_what_do_you_know_about_me_lists_every_current_fact_and_the_last_visit() -> None:
    text = await _answer("what do you know about me?", notes=[VISIT, *FACTS])
    assert text.startswith("Here's what you've told me:")
    for said in (
        "you wear size M (1 May 2026)",
        "you dislike yellow (1 March 2026)",
        "you wear shoe size 42",
        "your budget is up to 60 EUR",
        "you prefer the brand Vela",
    ):
        assert f"- {said}" in text
    # Told to the shopper, not about them, and without the assistant's bookkeeping.
    assert (
        "On 12 April 2026: You looked for “a wedding dress”. You did not settle on anything."
        in text
    )
    assert "Follow-ups" not in text and "The shopper" not in text
    assert text.rstrip().endswith(INSPECTOR + ".")


async def test_what_do_you_know_about_me_tells_a_visit_not_an_earlier_question_about_me() -> None:
    # Asked again on a later day, the newest earlier exchange is the same question: telling
    # it back ("Shopper asked: what size am I? You told me…") tells nothing.
    asked_before = (
        "[earlier visit · 2026-06-01] Shopper asked: what size am I?; You told me you wear size M."
    )
    text = await _answer("what do you know about me?", notes=[VISIT, asked_before, *FACTS])
    assert "what size am I" not in text
    assert "On 12 April 2026: You looked for “a wedding dress”." in text
    alone = await _answer("what do you know about me?", notes=[asked_before, *FACTS])
    assert "what size am I" not in alone and "Shopper asked" not in alone


async def test_contradicting_facts_the_newest_wins_and_its_date_says_why() -> None:
    notes = [
        "[fact · stated 2026-05-01] The shopper wears size M.",
        "[fact · stated 2026-01-10] The shopper wears size S.",
        "[fact · stated 2026-03-01] The shopper dislikes yellow.",
        "[fact · stated 2026-06-01] The shopper likes yellow again.",
    ]
    size = await _answer("what size am I?", notes=notes)
    assert size.startswith("You told me you wear size M (on 1 May 2026).")
    assert "size S" not in size
    everything = await _answer("what do you know about me?", notes=notes)
    assert "size S" not in everything and "dislike yellow" not in everything
    assert "- you like yellow again (1 June 2026)" in everything


async def test_knowing_nothing_is_said_plainly() -> None:
    text = await _answer("what do you know about me?")
    assert text.startswith("I don't know anything about you yet")
    size = await _answer(
        "what size am I?", notes=["[fact · stated 2026-03-01] The shopper dislikes yellow."]
    )
    assert size.startswith("You haven't told me your size yet.")


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("stateless", "You're not signed in"),
        ("memory_off", "Memory is switched off"),
        ("memory_unavailable", "I can't get to what you've told me before right now"),
    ],
)
async def test_when_nothing_is_remembered_the_answer_says_so_and_why(mode: str, words: str) -> None:
    text = await _answer(
        "what size am I?",
        mode=mode,
        signed_in=mode != "stateless",
        tools=SIGNED_OUT_TOOLS,
        notes=FACTS if mode == "stateless" else None,
    )
    assert text.startswith(words)
    assert "size M" not in text
    # Switched off, what was kept before is still listed (and deletable) in the inspector.
    assert (INSPECTOR in text) is (mode == "memory_off")


async def test_asking_to_forget_points_at_the_inspector() -> None:
    text = await _answer("please forget my size", notes=FACTS)
    assert INSPECTOR.replace(" of the inspector", "") in text and "Delete" in text
    signed_out = await _answer(
        "forget everything about me", signed_in=False, tools=SIGNED_OUT_TOOLS
    )
    assert signed_out.startswith("There's nothing to forget")


async def test_what_did_i_look_at_last_time_looks_it_up_then_answers_with_dates() -> None:
    question = "what did I look at last time?"
    call = await first_tool_call(question, notes=FACTS)
    assert call == ("recall_memory", {"query": question})
    found = {
        "notes": "Background recalled from this shopper's earlier messages.\n<memory-notes>\n"
        "[2026-04-12] Shopper asked: navy chinos; Shown: Tern Chino; €59.00; colours navy; "
        "sizes in stock S, M\n"
        "</memory-notes>",
        "count": 1,
    }
    text = (await answer_after(conversation(question, notes=FACTS), call, found)).content
    assert "- 12 April 2026: Shopper asked: navy chinos; Shown: Tern Chino" in text
    # A remembered price is a lead, never said as a fact (the grounding check would drop it).
    assert "59" not in text and "€" not in text and "sizes in stock" not in text
    assert "Shown: Tern Chino; colours navy" in text
    assert "may have changed" in text
    assert "](" not in text, "a product remembered from memory is never linked"


@pytest.mark.parametrize(
    "question",
    ["what do you know about waterproof jackets?", "do you have my size in these boots?"],
)
async def test_questions_about_products_are_not_questions_about_the_shopper(question: str) -> None:
    message = await first_reply(question, notes=FACTS)
    assert not (message.content or "").startswith(("You told me", "Here's what you've told me"))


async def test_asking_for_something_in_my_size_is_still_shopping() -> None:
    assert await first_tool_call("show me jeans in my size", notes=FACTS) == (
        "search_products",
        {
            "category": "jeans",
            "exclude_colours": ["yellow"],
            "size": "M",
            "brand": "Vela",
            "max_price": 60,
        },
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "mode, facts, said",
    [
        ("remembering", FACTS, "your budget is up to 60 EUR"),
        # Signed out: the budget stated earlier in this chat, as the notes carry it.
        ("stateless", ["[fact · this chat] The shopper's budget is up to 60 EUR."], "budget"),
    ],
)
async def test_the_shoppers_own_budget_survives_the_grounding_check(mode, facts, said) -> None:
    answer = await Shopper(mode=mode, facts=list(facts)).ask("what do you remember about me?")
    assert "60 EUR" in answer.text and said in answer.text, answer.text
    assert not any(line in answer.text for line in DROPPED_LINES.values()), answer.text
