"""Frames are parsed at the edge: every field's type, every string's characters."""

from __future__ import annotations

import json
from datetime import date

import pytest
from agentmemory.exceptions import ValidationError
from agentmemory.validation import require_non_blank

from assistant.protocol.validation import (
    MAX_FRAME_CHARS,
    FrameError,
    HistoryExchange,
    PageRequest,
    close_request_parse,
    frame_decode,
    frame_type,
    hello_request_parse,
    text_normalise,
    turn_request_parse,
)


def parse(**fields):
    return turn_request_parse({"type": "message", "text": "hi", **fields})


def refused(code: int, fragment: str, **fields) -> None:
    with pytest.raises(FrameError) as caught:
        parse(**fields)
    assert caught.value.code == code and fragment in caught.value.message


def test_a_full_message_frame_parses():
    request = parse(
        text="  I'm a size M  ",
        session_id="session3",
        turn_count=2,
        session_date="2026-05-01",
        retention="1h",
        page={"kind": "product", "sku": "JNS-0042"},
        history=[{"user": "jeans?", "assistant": "Here are two.", "skus": ["JNS-0042"]}],
    )
    assert request.text == "I'm a size M"
    assert (request.session_id, request.turn_count, request.retention) == ("session3", 2, "1h")
    assert request.session_date == date(2026, 5, 1)
    assert request.page == PageRequest(kind="product", sku="JNS-0042")
    assert request.history == (HistoryExchange("jeans?", "Here are two.", ("JNS-0042",)),)


def test_lone_surrogates_and_nul_are_removed_before_anything_else():
    # A lone surrogate cannot be encoded as UTF-8 (storing it fails); a NUL cannot be stored.
    raw = json.dumps({"type": "message", "text": "black\ud800 jeans\x00 in M"})
    request = turn_request_parse(frame_decode(raw))
    assert request.text == "black jeans in M"
    request.text.encode("utf-8")  # would raise UnicodeEncodeError with the surrogate
    # A well-formed pair is one character, kept.
    assert text_normalise("👖\ud800") == "👖"
    # Nothing but the removed characters: nothing left to say.
    refused(400, "Type a message", text="\x00\udfff ")


@pytest.mark.parametrize(
    "session_id",
    [
        "a/b",
        "..",
        ".",
        "x?y",
        "x#y",
        "a%2Fb",
        "session1\n",
        " session1",
        "nul\x00",
        "line\nbreak",
        "two words",
        "",
        "   ",
        "s" * 101,
        "sessi\ud800on1",
        "naïve",
    ],
)
def test_a_malformed_session_id_asks_for_a_new_session(session_id):
    assert parse(session_id=session_id).session_id is None
    assert close_request_parse({"session_id": session_id}).session_id is None


@pytest.mark.parametrize("session_id", ["session1", "session42", "abc-DEF_123", "s" * 100])
def test_a_well_formed_session_id_is_kept_and_the_sdk_accepts_it(session_id):
    kept = parse(session_id=session_id).session_id
    assert kept == session_id
    # The SDK's own check for ids it interpolates into URL paths passes.
    assert require_non_blank(kept, "session_id") == kept


@pytest.mark.parametrize("session_id", ["a/b", "..", ".", "x?y", "x#y", "a%2Fb", "", "   "])
def test_every_id_the_sdk_refuses_is_malformed_here(session_id):
    with pytest.raises(ValidationError):
        require_non_blank(session_id, "session_id")
    assert parse(session_id=session_id).session_id is None


@pytest.mark.parametrize(
    ("fields", "code", "fragment"),
    [
        ({"session_id": 42}, 400, "session_id"),
        ({"session_id": ["session1"]}, 400, "session_id"),
        ({"retention": ["1h"]}, 400, "retention"),
        ({"retention": {"preset": "1h"}}, 400, "retention"),
        ({"retention": 60}, 400, "retention"),
        ({"retention": "forever"}, 400, "retention"),
        ({"turn_count": 1.5}, 400, "turn_count"),
        ({"turn_count": True}, 400, "turn_count"),
        ({"turn_count": "3"}, 400, "turn_count"),
        ({"session_date": 20260501}, 400, "session_date"),
        ({"session_date": ["2026-05-01"]}, 400, "session_date"),
        ({"session_date": "01/05/2026"}, 422, "YYYY-MM-DD"),
        ({"session_date": "2026-02-30"}, 422, "not a real date"),
        ({"text": ["hi"]}, 400, "text is required"),
        ({"text": "x" * 4001}, 400, "4000"),
        ({"page": "product"}, 400, "page must be an object"),
        ({"page": {"kind": "basket"}}, 400, "page.kind"),
        ({"page": {"kind": ["product"]}}, 400, "page.kind"),
        ({"page": {"kind": "product"}}, 400, "page.sku"),
        ({"page": {"kind": "product", "sku": 42}}, 400, "page.sku"),
        ({"page": {"kind": "product", "sku": "X" * 41}}, 400, "page.sku"),
        ({"page": {"kind": "catalog", "filters": ["jeans"]}}, 400, "page.filters"),
        ({"page": {"kind": "catalog", "filters": {"sort": "price"}}}, 400, "Unknown page filter"),
        ({"page": {"kind": "catalog", "filters": {"colour": 3}}}, 400, "colour"),
        ({"page": {"kind": "catalog", "filters": {"q": "x" * 101}}}, 400, "100"),
        ({"page": {"kind": "catalog", "filters": {"max_price": "60"}}}, 400, "max_price"),
        ({"page": {"kind": "catalog", "filters": {"max_price": -1}}}, 400, "max_price"),
        ({"history": {"user": "hi"}}, 400, "history must be a list"),
        ({"history": ["hi"]}, 400, "must be an object"),
        ({"history": [{"user": "hi"}]}, 400, "assistant"),
        ({"history": [{"user": 1, "assistant": "a"}]}, 400, "user"),
        ({"history": [{"user": "u", "assistant": "a", "skus": "JNS-1"}]}, 400, "skus"),
        ({"history": [{"user": "u", "assistant": "a", "skus": [1]}]}, 400, "skus"),
        ({"history": [{"user": "u", "assistant": "a", "skus": ["S"] * 11}]}, 400, "10 SKUs"),
        ({"history": [{"user": "u" * 4001, "assistant": "a"}]}, 400, "4000"),
        ({"history": [{"user": "u", "assistant": "a"}] * 4}, 400, "at most 3"),
    ],
)
def test_wrong_types_and_values_are_refused_with_a_clear_error(fields, code, fragment):
    refused(code, fragment, **fields)


def test_catalog_filters_and_history_texts_are_normalised():
    request = parse(
        page={"kind": "catalog", "filters": {"q": " lin\x00en ", "colour": "", "max_price": 60}},
        history=[{"user": "jea\ud800ns", "assistant": " ok ", "skus": [" JNS-1 "]}],
    )
    assert request.page.filters == {"q": "linen", "max_price": 60.0}
    assert request.history == (HistoryExchange("jeans", "ok", ("JNS-1",)),)


def test_nulls_mean_absent():
    request = parse(
        session_id=None, turn_count=None, session_date=None, retention=None, page=None, history=None
    )
    assert (request.session_id, request.turn_count, request.session_date) == (None, 0, None)
    assert (request.retention, request.page, request.history) == (None, None, ())
    assert hello_request_parse({"type": "hello"}).page is None


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (None, "JSON text"),
        ("not json", "not valid JSON"),
        ('["a list"]', "JSON object"),
        ("[" * 50_000, "not valid JSON"),
        ("x" * (MAX_FRAME_CHARS + 1), "limited to"),
    ],
)
def test_undecodable_frames_are_400(raw, fragment):
    with pytest.raises(FrameError) as caught:
        frame_decode(raw)
    assert caught.value.code == 400 and fragment in caught.value.message


@pytest.mark.parametrize("frame", [{}, {"type": None}, {"type": 3}, {"type": ["message"]}])
def test_a_frame_type_must_be_a_string(frame):
    with pytest.raises(FrameError) as caught:
        frame_type(frame)
    assert caught.value.code == 400


# The message of each refusal is what the panel (or an API client) shows: exact wording.
@pytest.mark.parametrize(
    ("fields", "code", "message"),
    [
        ({"text": None}, 400, "text is required and must be a string."),
        ({"text": "  \x00 "}, 400, "Type a message first."),
        ({"text": "x" * 4001}, 400, "Messages are limited to 4000 characters."),
        ({"session_id": 42}, 400, "session_id must be a string or null."),
        ({"turn_count": -1}, 400, "turn_count must be a whole number from 0 to 1,000,000."),
        ({"session_date": 1}, 400, "session_date must be a string (YYYY-MM-DD) or null."),
        ({"session_date": "1 May"}, 422, "session_date must be a date written YYYY-MM-DD."),
        (
            {"retention": "forever"},
            400,
            "retention must be null or one of: default, 1m, 5m, 1h, never.",
        ),
        ({"page": "product"}, 400, "page must be an object or null."),
        ({"page": {"kind": "basket"}}, 400, "page.kind must be one of: product, catalog, other."),
        ({"page": {"kind": "product", "sku": 42}}, 400, "page.sku must be a string."),
        ({"page": {"kind": "catalog", "filters": []}}, 400, "page.filters must be an object."),
        (
            {"page": {"kind": "catalog", "filters": {"sort": "price", "gender": "f"}}},
            400,
            "Unknown page filter gender, sort; use q, category, colour, size, brand, max_price.",
        ),
        (
            {"page": {"kind": "catalog", "filters": {"max_price": "60"}}},
            400,
            "page.filters.max_price must be a number from 0 to 1,000,000 (EUR).",
        ),
        ({"history": "hi"}, 400, "history must be a list or null."),
        ({"history": ["hi"]}, 400, "Each history exchange must be an object."),
        (
            {"history": [{"user": "u", "assistant": "a", "skus": "S"}]},
            400,
            "history skus must be a list.",
        ),
        (
            {"history": [{"user": "u", "assistant": "a", "skus": [""]}]},
            400,
            "history skus must be 1 to 40 characters.",
        ),
    ],
)
def test_each_refusal_says_exactly_what_is_wrong(fields, code, message):
    with pytest.raises(FrameError) as caught:
        parse(**fields)
    assert (caught.value.code, caught.value.message, str(caught.value)) == (code, message, message)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (None, "Frames must be JSON text."),
        ("not json", "That frame is not valid JSON."),
        ("[1]", "A frame must be a JSON object with a type."),
    ],
)
def test_an_undecodable_frame_says_why(raw, message):
    with pytest.raises(FrameError) as caught:
        frame_decode(raw)
    assert caught.value.message == message


def test_a_frame_names_its_type_or_is_told_which_types_there_are():
    assert frame_type({"type": "close"}) == "close"
    with pytest.raises(FrameError) as caught:
        frame_type({"TYPE": "close"})
    assert caught.value.message == "A frame needs a type: message, stop, hello or close."


def test_every_limit_lets_through_a_value_exactly_at_it():
    request = parse(
        text="x" * 4000,
        page={"kind": "catalog", "filters": {"q": "q" * 100, "max_price": 0}},
        history=[{"user": "u" * 4000, "assistant": "a", "skus": ["S" * 40] * 10}] * 3,
    )
    assert len(request.text) == 4000 and request.page.filters == {"q": "q" * 100, "max_price": 0.0}
    assert len(request.history) == 3 and len(request.history[0].skus) == 10
    assert parse(page={"kind": "product", "sku": "S" * 40}).page.sku == "S" * 40
    frame = json.dumps({"type": "message", "text": "x"})
    frame = frame[:-1] + " " * (MAX_FRAME_CHARS - len(frame)) + "}"
    assert len(frame) == MAX_FRAME_CHARS and frame_decode(frame)["text"] == "x"
    assert parse(page={"kind": "catalog", "filters": {"max_price": 0.5}}).page.filters == {
        "max_price": 0.5
    }


def test_filters_after_an_empty_one_or_a_price_are_still_read():
    filters = {"colour": None, "max_price": 60, "size": "M", "brand": "Kestrel"}
    request = parse(page={"kind": "catalog", "filters": filters})
    assert request.page.filters == {"max_price": 60.0, "size": "M", "brand": "Kestrel"}


def test_pages_and_session_ids_reach_every_kind_of_frame():
    assert parse().turn_count == 0
    assert parse(page={"kind": "catalog"}).page == PageRequest(kind="catalog")
    assert parse(page={"kind": "other", "sku": "TS-0001"}).page == PageRequest(kind="other")
    assert close_request_parse({"type": "close", "session_id": "session4"}).session_id == (
        "session4"
    )
    assert hello_request_parse({"type": "hello", "page": {"kind": "other"}}).page == PageRequest(
        kind="other"
    )
