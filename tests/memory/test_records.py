"""A record's expiry, derived as the server computes it: write time + effective TTL."""

from __future__ import annotations

from memoryapp.records import block_ttl, expires_at, record_from_block
from tests.memory.factories import episode, fact, turn


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
