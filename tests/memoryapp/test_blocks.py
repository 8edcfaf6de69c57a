"""The block vocabulary's times: a dated session's turns keep the shopper's timeline."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

from memoryapp import blocks
from memoryapp.blocks import block_date, block_time, created_at_for
from tests.support.memory_blocks import turn


def test_an_undated_session_leaves_the_write_time_to_memory():
    assert created_at_for(None) is None
    assert created_at_for(None, now=datetime(2026, 5, 1, 9, 0, tzinfo=UTC)) is None


def test_a_dated_sessions_turn_takes_its_day_and_the_real_time_of_day_in_utc():
    # 23:30 at UTC+2 is 21:30 UTC: the day is the session's, the time the real one's.
    now = datetime(2026, 5, 1, 23, 30, 15, tzinfo=timezone(timedelta(hours=2)))
    stamp = created_at_for(date(2025, 6, 1), now=now)
    assert stamp == "2025-06-01T21:30:15+00:00"
    assert stamp is not None and datetime.fromisoformat(stamp).utcoffset() == timedelta(0)


def test_without_a_time_given_the_policys_clock_says_now(monkeypatch):
    monkeypatch.setattr(blocks, "clock", lambda: datetime(2026, 5, 1, 8, 5, tzinfo=UTC))
    assert created_at_for(date(2025, 6, 1)) == "2025-06-01T08:05:00+00:00"


def test_a_dated_turn_reads_back_as_its_day_and_time():
    stamp = created_at_for(date(2025, 6, 1), now=datetime(2026, 5, 1, 8, 5, tzinfo=UTC))
    block = turn("I'm a size M", "Noted.", at=stamp)
    assert block_date(block) == "2025-06-01"
    assert block_time(block) == datetime(2025, 6, 1, 8, 5, tzinfo=UTC)
