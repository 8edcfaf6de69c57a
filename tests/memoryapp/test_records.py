"""A record's expiry, derived as the server computes it: write time + effective TTL."""

from __future__ import annotations

from memoryapp.records import block_ttl, expires_at, record_from_block
from tests.support.memory_blocks import episode, fact, turn


def test_a_turn_expires_its_sessions_retention_after_it_was_written():
    block = turn("show me jeans", "Here.", at="2026-05-01T10:00:00.123456+00:00")
    ttl = block_ttl(block, session_ttls={"session1": 60}, fact_ttl=0)
    assert ttl == 60
    record = record_from_block(block, ttl=ttl)
    assert record.expires_at == "2026-05-01T10:01:00+00:00"


def test_a_fact_takes_the_fact_ttl_whatever_its_session_keeps():
    block = fact("The shopper wears size M.", at="2026-05-01T10:00:00+00:00")
    assert block_ttl(block, session_ttls={"session1": 60}, fact_ttl=0) == 0
    assert record_from_block(block, ttl=0).expires_at is None
    assert block_ttl(block, session_ttls={"session1": 60}, fact_ttl=3600) == 3600


def test_an_episode_inherits_its_session_and_an_unknown_session_gives_no_expiry():
    block = episode(
        "Looked for boots.", at="2026-05-01T10:00:00+00:00", session="session2", resolved=True
    )
    assert block_ttl(block, session_ttls={"session2": 300}, fact_ttl=0) == 300
    assert block_ttl(block, session_ttls={}, fact_ttl=0) is None
    assert record_from_block(block, ttl=None).expires_at is None


def test_expiry_reads_naive_and_z_stamps_as_utc():
    assert expires_at("2026-05-01T10:00:00Z", 90 * 86_400) == "2026-07-30T10:00:00+00:00"
    assert expires_at("2026-05-01T10:00:00", 1) == "2026-05-01T10:00:01+00:00"
    assert expires_at("not a time", 60) is None


def _slotted(block, *, kind: str = "fact"):
    block.annotations = {"type": kind, "category": "size", "slot": "size/tops", "value": "M"}
    return block


def test_a_turn_record_shows_both_sides_of_the_exchange_and_no_slot():
    block = turn("show me jeans", "Here are 3.", at="2026-05-01T10:00:00+00:00", session="session4")
    block.annotations = {"type": "turn", "category": "size", "slot": "size/tops"}
    record = record_from_block(block, ttl=60)
    assert record.as_dict() == {
        "block_id": block.block_id,
        "session_id": "session4",
        "kind": "turn",
        "text": "Shopper: show me jeans\nAssistant: Here are 3.",
        "created_at": "2026-05-01T10:00:00+00:00",
        "ingested_at": "2026-05-01T10:00:00+00:00",
        "expires_at": "2026-05-01T10:01:00+00:00",
        "status": "ready",
        "category": None,
        "slot": None,
        "superseded": False,
    }


def test_a_fact_record_shows_where_consolidation_files_it():
    block = _slotted(fact("The shopper wears size M.", at="2026-05-01T10:00:00+00:00"))
    record = record_from_block(block, ttl=0)
    assert (record.kind, record.text, record.category, record.slot, record.superseded) == (
        "fact",
        "The shopper wears size M.",
        "size",
        "size/tops",
        False,
    )


def test_a_replaced_fact_is_listed_as_a_superseded_fact_kept_like_facts():
    block = _slotted(fact("The shopper wears size M.", at="2026-05-01T10:00:00+00:00"))
    block.annotations["type"] = "superseded_fact"
    assert block_ttl(block, session_ttls={"session1": 60}, fact_ttl=0) == 0
    record = record_from_block(block, ttl=0)
    assert (record.kind, record.slot, record.superseded, record.expires_at) == (
        "fact",
        "size/tops",
        True,
        None,
    )


def test_an_episode_record_is_its_summary_and_a_block_of_unknown_type_keeps_its_shape():
    block = episode(
        "Looked for boots.", at="2026-05-01T10:00:00+00:00", session="s2", resolved=False
    )
    record = record_from_block(block, ttl=None)
    assert (record.kind, record.text, record.category) == ("episode", "Looked for boots.", None)
    odd_fact = fact("Something.", at="2026-05-01T10:00:00+00:00")
    odd_fact.annotations = {"type": "note"}
    assert record_from_block(odd_fact, ttl=None).kind == "fact"
    odd_turn = turn("hi", "Hello.", at="2026-05-01T10:00:00+00:00")
    odd_turn.annotations = {"type": "note"}
    assert record_from_block(odd_turn, ttl=None).kind == "turn"
    unannotated = turn("hi", "Hello.", at="2026-05-01T10:00:00+00:00")
    unannotated.annotations = None
    assert block_ttl(unannotated, session_ttls={"session1": 300}, fact_ttl=0) == 300
    assert record_from_block(unannotated, ttl=300).kind == "turn"


def test_expiry_reads_utc_stamps_in_any_spelling_and_never_guesses():
    assert expires_at("2026-05-01T10:00:00Z", 3600) == "2026-05-01T11:00:00+00:00"
    # A naive stamp is UTC, as the server writes it.
    assert expires_at("2026-05-01T10:00:00", 90) == "2026-05-01T10:01:30+00:00"
    assert expires_at("2026-05-01T12:00:00+02:00", 60) == "2026-05-01T12:01:00+02:00"
    assert expires_at("not a date", 60) is None
    assert expires_at("2026-05-01T10:00:00Z", 0) is None
    assert expires_at("2026-05-01T10:00:00Z", None) is None
