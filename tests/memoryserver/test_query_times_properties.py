"""The reading of times in a query never raises, whatever the words and whatever the clock:
a phrase it cannot place on the calendar names no time, and the rest of the query is read.

Property-based (Hypothesis): queries are drawn from the reader's own vocabulary (amounts,
units, months, seasons, weekdays, "ago", "since", "last", spans) mixed with numbers of any
size and dates in figures with any year, month and day, read against any clock from year 1
to 9999.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memoryserver.index.when import query_times
from tests.support.time_phrases import queries

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)

_clocks = st.datetimes(
    min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59), timezones=st.just(UTC)
)


def _well_formed(found) -> bool:
    return all(math.isfinite(lo) and math.isfinite(hi) and lo < hi for lo, hi in found.ranges) and (
        found.months <= set(range(1, 13))
    )


@settings(max_examples=400, deadline=None)
@given(text=queries, now=_clocks)
@example(text="0 days ago", now=NOW)
@example(text="on 9999-12-31", now=NOW)
@example(text="1/1/0001", now=NOW)
@example(text="a year ago", now=datetime(1, 1, 1, tzinfo=UTC))
@example(text="next week today", now=datetime(9999, 12, 31, 23, tzinfo=UTC))
@example(text="9" * 4400 + " days ago", now=NOW)
def test_any_query_read_against_any_clock_gives_windows_never_an_error(text, now):
    assert _well_formed(query_times(text, now))


@settings(max_examples=200, deadline=None)
@given(before=queries, after=queries)
def test_a_time_past_the_calendar_leaves_the_rest_of_the_query_read(before, after):
    # "May 2023" is read whatever sits around it, an impossible date included.
    found = query_times(f"{before} . on 9999-12-31 , in May 2023 . {after}", NOW)
    assert (1682899200.0, 1685577600.0) in found.ranges  # 2023-05-01 to 2023-06-01
    assert _well_formed(found)


def test_amounts_of_nothing_or_past_all_reckoning_name_no_time():
    for text in (
        "0 days ago",
        "the last 0 weeks",
        "00 years ago",
        "99999 years ago",
        "the last " + "9" * 400 + " days",
        "9" * 5000 + " days ago",
    ):
        assert not query_times(text, NOW), text


def test_dates_at_the_calendars_ends_or_impossible_name_no_time():
    for text in (
        "on 9999-12-31",
        "on 0001-01-01",
        "31/12/9999",
        "1.1.0001",
        "on 0000-01-01",
        "on 2023-02-30",
        "on 31/02/2023",
        "since 0001-01-01",
    ):
        assert not query_times(text, NOW), text


def test_the_clock_at_the_calendars_ends_reads_what_it_can():
    first_day = datetime(1, 1, 1, 12, tzinfo=UTC)
    assert not query_times("yesterday, last month, last year", first_day)
    # Today still has its day in year 1.
    assert query_times("today", first_day).ranges == [
        (datetime(1, 1, 1, tzinfo=UTC).timestamp(), datetime(1, 1, 2, tzinfo=UTC).timestamp())
    ]
    assert not query_times("today", datetime(9999, 12, 31, 12, tzinfo=UTC))
