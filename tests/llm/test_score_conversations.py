"""score_conversations: labelled conversations replayed through the offline model."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from assistant.management.commands.score_conversations import TUNING, conversations_load

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]


def _score(tmp_path, tuning: list[dict], frozen: list[dict]) -> str:
    paths = {}
    for name, lines in (("tuning", tuning), ("frozen", frozen)):
        paths[name] = tmp_path / f"{name}.jsonl"
        paths[name].write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = io.StringIO()
    call_command(
        "score_conversations",
        "--tuning",
        paths["tuning"],
        "--second",
        tmp_path / "no-second.jsonl",
        "--third",
        tmp_path / "no-third.jsonl",
        "--frozen",
        paths["frozen"],
        stdout=out,
    )
    return out.getvalue()


def _turn(text: str, act: str, expect: dict, visit: int = 1) -> dict:
    return {"visit": visit, "text": text, "page": None, "act": act, "expect": expect}


JEANS = _turn("black jeans", "request", {"search": {"category": "jeans", "colour": "black"}})
# The answer after a list of black jeans is about the list's second product.
SECOND = _turn("tell me about the second one", "reference", {"refers_to": {"positions": [2]}})
# Labelled wrong on purpose: the size is not asked for, so it must not be sent.
WRONG = _turn("t-shirts", "request", {"search": {"category": "t-shirts", "size": "XL"}})


def _conversation(*turns: dict, facts: list[str] | None = None, signed_in: bool = True) -> dict:
    return {"id": "t1", "signed_in": signed_in, "facts": facts or [], "turns": list(turns)}


def test_each_acts_share_and_each_tuning_miss_with_its_reason_are_printed(tmp_path) -> None:
    out = _score(tmp_path, [_conversation(JEANS, SECOND, WRONG)], [])
    assert "tuning: 2/3 turns understood (66.7%) in 1 conversations" in out
    assert "request: 1/2 (50.0%)" in out and "reference: 1/1 (100.0%)" in out
    assert "MISS t1 request 't-shirts'" in out and "expected {'category': 't-shirts'" in out


def test_the_frozen_file_prints_totals_by_act_and_never_a_miss(tmp_path) -> None:
    out = _score(tmp_path, [_conversation(JEANS)], [_conversation(JEANS, WRONG)])
    assert "frozen: 1/2 turns understood (50.0%)" in out
    assert out.count("MISS") == 0


def test_a_reference_to_a_product_no_answer_showed_is_a_miss(tmp_path) -> None:
    out = _score(tmp_path, [_conversation(SECOND)], [])
    assert "tuning: 0/1" in out and "not resolvable" in out


def test_a_later_visit_is_a_new_chat_and_memory_carries_what_was_stated(tmp_path) -> None:
    said = _turn("I'm a size L", "statement", {})
    later = _turn("t-shirts", "request", {"search": {"category": "t-shirts", "size": "L"}}, 2)
    gone = _turn("the first one", "reference", {"refers_to": {"positions": [1]}}, 2)
    out = _score(tmp_path, [_conversation(JEANS, said, later)], [])
    assert "tuning: 3/3" in out
    assert "not resolvable" in _score(tmp_path, [_conversation(JEANS, gone)], [])
    signed_out = _score(tmp_path, [_conversation(JEANS, said, later, signed_in=False)], [])
    assert "tuning: 2/3" in signed_out


def test_a_turn_with_an_unknown_expectation_is_refused_with_where_it_is(tmp_path) -> None:
    bad = _turn("jeans", "request", {"query": "x"})
    with pytest.raises(CommandError, match=r"tuning\.jsonl:1 turn 1: unknown keys"):
        _score(tmp_path, [_conversation(bad)], [])


def test_the_tuning_file_has_fifteen_conversations_and_every_act() -> None:
    conversations = conversations_load(TUNING)
    turns = [turn for conversation in conversations for turn in conversation["turns"]]
    assert len(conversations) >= 15 and len(turns) >= 150
    assert {turn["act"] for turn in turns} >= {"request", "reference", "lift", "statement"}


def test_a_material_named_counts_as_a_filter_or_as_a_search_word_and_no_other() -> None:
    from assistant.turn.conversation_checks import _same_search

    wanted = {"category": "shirts"}
    assert _same_search({"category": "shirts", "material": "flannel"}, wanted, "flannel shirt?")
    assert _same_search(
        {"category": "shirts", "query": "linen"},
        {"category": "shirts", "material": "linen"},
        "linen?",
    )
    # A material the shopper never named, or another filter wrong, is still a miss.
    assert not _same_search({"category": "shirts", "material": "wool"}, wanted, "a warm shirt")
    assert not _same_search({"category": "jeans", "material": "flannel"}, wanted, "flannel shirt")
