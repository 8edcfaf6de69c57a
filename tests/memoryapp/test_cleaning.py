"""What reaches memory from the chat: session ids and text, made safe at the edge."""

from __future__ import annotations

import pytest

from assistant.protocol.validation import text_normalise, turn_request_parse
from memoryapp.cleaning import session_id_clean, session_number, session_number_highest, text_clean


@pytest.mark.parametrize(
    "raw", ["session1", "session123", "abc", "A-b_9", "x" * 100, "conv-2026-05-01"]
)
def test_ids_memory_can_look_up_are_kept(raw):
    assert session_id_clean(raw) == raw


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "",
        " ",
        "session1\x00",
        "session1\n",
        "a?b",
        "a#b",
        "a%2Fb",
        "a/b",
        ".",
        "..",
        "session.1",
        " session1",
        "x" * 101,
        "séssion1",
        12,
        ["session1"],
        {"id": "session1"},
    ],
)
def test_anything_else_asks_for_a_new_session(raw):
    assert session_id_clean(raw) is None


def test_the_highest_minted_number_counts_not_how_many():
    assert session_number_highest(["session1", "session7", "session3", "other9"]) == 7
    assert session_number_highest([]) == 0 and session_number_highest(None) == 0
    assert session_number_highest(["session01x", "draft"]) == 0


def test_lone_surrogates_and_nul_are_removed_everything_else_kept():
    assert text_clean("jeans\x00 in M\ud800 please") == "jeans in M please"
    assert text_clean("tab\tnew\nline ü 😀") == "tab\tnew\nline ü 😀"
    # A pair that arrived as two halves is joined into its character, not dropped.
    assert text_clean("smile \ud83d\ude00") == "smile 😀"
    assert text_clean("\udfff\ud800") == ""
    text_clean("x\ud800").encode("utf-8")  # would raise UnicodeEncodeError if one survived


def test_plain_ascii_text_loses_only_its_nul():
    assert text_clean("jeans\x00 in M") == "jeans in M"
    assert text_clean("size M, black") == "size M, black"


def test_only_minted_ids_have_a_number():
    assert session_number("session12") == 12
    assert session_number("session007") == 7
    assert session_number("session") is None
    assert session_number("conv-2026-05-01") is None
    assert session_number("session12a") is None


@pytest.mark.parametrize(
    "raw", ["smile \ud83d\ude00", "jeans\x00 in M\ud800", "\udfff\ud800", "a\ud83d\x00\ude00"]
)
def test_a_chat_frame_is_cleaned_exactly_as_a_memory_write(raw):
    """The frame validation and memory share one rule: a pair sent as two halves keeps its
    emoji in the panel's own message as well as in memory."""
    request = turn_request_parse({"type": "message", "text": f"hi {raw}"})
    assert request.text == text_clean(f"hi {raw}").strip()
    assert text_normalise(raw) == text_clean(raw)
    assert text_normalise("smile \ud83d\ude00") == "smile 😀"


@pytest.mark.parametrize("raw", ["session1", "A-b_9", "a/b", "séssion1", "x" * 101, ".."])
def test_a_chat_frame_names_a_session_exactly_when_memory_could_look_it_up(raw):
    request = turn_request_parse({"type": "message", "text": "hi", "session_id": raw})
    assert request.session_id == session_id_clean(raw)
