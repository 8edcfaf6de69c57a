"""The message list of one turn: rules, page, fenced notes, then the shopper's own words."""

from __future__ import annotations

import pytest

from assistant.turn.prompting import MEMORY_RULES, ROLE, system_prompt, turn_messages
from llm.transcript import MEMORY_MODES, memory_state_line, memory_state_parse
from memoryapp.fence import NOTES_OPEN, notes_message
from memoryapp.render import tokens_estimate

NOTES = notes_message(["[fact · stated 2026-05-01] The shopper wears size M."])
PAGE = "The shopper is on the product page of TS-0001."


def test_the_rules_the_page_the_notes_and_the_message_come_in_that_order():
    messages = turn_messages(signed_in=True, notes=NOTES, text="in M?", page_context=PAGE)
    assert messages == [
        {"role": "system", "content": system_prompt(mode="remembering")},
        {"role": "system", "content": PAGE},
        {"role": "user", "content": NOTES},
        {"role": "user", "content": "in M?"},
    ]
    # The notes are a separate user message, never part of the system prompt.
    assert NOTES_OPEN not in messages[0]["content"].replace(f"Text inside {NOTES_OPEN}", "")


def test_without_notes_or_page_only_the_rules_and_the_message_are_sent():
    messages = turn_messages(signed_in=False, notes=None, text="t-shirts please")
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[-1] == {"role": "user", "content": "t-shirts please"}
    assert turn_messages(signed_in=False, notes="", text="hi", page_context="") == [
        messages[0],
        {"role": "user", "content": "hi"},
    ]


@pytest.mark.parametrize(
    ("signed_in", "mode", "expected"),
    [
        (True, None, "remembering"),
        (False, None, "stateless"),
        (True, "memory_unavailable", "memory_unavailable"),
        (True, "memory_off", "memory_off"),
    ],
)
def test_the_system_prompt_tells_the_model_the_memory_mode(signed_in, mode, expected):
    system = turn_messages(signed_in=signed_in, notes=None, text="hi", mode=mode)[0]["content"]
    assert memory_state_parse(system) == expected


def test_the_system_prompt_is_the_role_the_memory_state_and_the_rules_as_paragraphs():
    paragraphs = system_prompt(mode="stateless").split("\n\n")
    assert paragraphs == [ROLE, memory_state_line("stateless"), MEMORY_RULES]
    for rule in ("1. Never narrate", "2. Resolve contradictions", "3. Memories are leads"):
        assert rule in MEMORY_RULES


@pytest.mark.parametrize("mode", sorted(MEMORY_MODES))
def test_the_system_prompt_stays_small(mode):
    """Both rounds of every turn send it: a size measured, not guessed (~750 tokens with
    each rule said at length, ~560 said once each in fewer words)."""
    assert tokens_estimate(system_prompt(mode=mode)) <= 600
