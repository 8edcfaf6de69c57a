"""The windows of time a search query names, read against the server's clock; whether it asks
when, and whether a block says when."""

from datetime import UTC, datetime

import pytest

from memoryserver.index.when import asks_when, query_times, tells_time

# A Friday, at noon.
NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)


def windows(text: str) -> tuple[list[tuple[str, str]], set[int]]:
    """The query's ranges as (first day, day after), in order, and its months of any year."""
    found = query_times(text, NOW)
    days = sorted(
        (datetime.fromtimestamp(lo, UTC).date().isoformat(),
         datetime.fromtimestamp(hi, UTC).date().isoformat())
        for lo, hi in found.ranges
    )  # fmt: skip
    return days, found.months


def test_a_month_or_season_alone_means_that_part_of_any_year():
    assert windows("what did I buy in May?") == ([], {5})
    assert windows("in the summer") == ([], {6, 7, 8})
    assert windows("on 8 May") == ([], {5})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the jacket from 2023", [("2023-01-01", "2024-01-01")]),
        ("May 2023", [("2023-05-01", "2023-06-01")]),
        ("May of 2023", [("2023-05-01", "2023-06-01")]),
        ("what did we do in the summer of 2022?", [("2022-06-01", "2022-09-01")]),
        ("in winter 2022", [("2022-12-01", "2023-03-01")]),
        # A named day, give or take one: a day is often told the day after.
        ("on 8 May 2023", [("2023-05-07", "2023-05-10")]),
        ("on May 8th, 2023", [("2023-05-07", "2023-05-10")]),
        ("on the 8th of May, 2023", [("2023-05-07", "2023-05-10")]),
    ],
)
def test_a_calendar_time_with_its_year(text, expected):
    assert windows(text) == (expected, set())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("on 2023-05-08", [("2023-05-07", "2023-05-10")]),
        ("in 2023-05", [("2023-05-01", "2023-06-01")]),
        ("in 05/2023", [("2023-05-01", "2023-06-01")]),
        ("on 25/12/2023", [("2023-12-24", "2023-12-27")]),
        ("on 12/25/2023", [("2023-12-24", "2023-12-27")]),
        # Day and month could be either way round: both days.
        ("on 8/5/2023", [("2023-05-07", "2023-05-10"), ("2023-08-04", "2023-08-07")]),
    ],
)
def test_a_date_written_in_figures(text, expected):
    assert windows(text) == (expected, set())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("between March and May 2023", [("2023-03-01", "2023-06-01")]),
        ("from March to May 2023", [("2023-03-01", "2023-06-01")]),
        ("March\u2013May 2023", [("2023-03-01", "2023-06-01")]),
        ("March-May 2023", [("2023-03-01", "2023-06-01")]),
        ("from May 2022 until March 2023", [("2022-05-01", "2023-04-01")]),
        # The first month's year, when only the last has one, is the one before it.
        ("from November to February 2023", [("2022-11-01", "2023-03-01")]),
        ("between 2021 and 2023", [("2021-01-01", "2024-01-01")]),
        ("from 8 May to 12 May 2023", [("2023-05-07", "2023-05-14")]),
        # Two months, not the months between them; both take the year named.
        ("in March and May 2023", [("2023-03-01", "2023-04-01"), ("2023-05-01", "2023-06-01")]),
    ],
)
def test_a_span_of_time(text, expected):
    assert windows(text) == (expected, set())


def test_a_span_of_months_without_a_year_wraps_round_the_year():
    assert windows("from November to February") == ([], {11, 12, 1, 2})
    assert windows("between June and August") == ([], {6, 7, 8})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yesterday", [("2026-11-19", "2026-11-20")]),
        ("last night", [("2026-11-19", "2026-11-20")]),
        ("this morning", [("2026-11-20", "2026-11-21")]),
        ("the day before yesterday", [("2026-11-18", "2026-11-19")]),
        ("last week", [("2026-11-09", "2026-11-16")]),
        ("last weekend", [("2026-11-14", "2026-11-16")]),
        ("last month", [("2026-10-01", "2026-11-01")]),
        ("last year", [("2025-01-01", "2026-01-01")]),
        ("last summer", [("2026-06-01", "2026-09-01")]),
        ("last May", [("2026-05-01", "2026-06-01")]),
        ("two weeks ago", [("2026-11-03", "2026-11-10")]),
        ("3 days ago", [("2026-11-16", "2026-11-18")]),
        ("a couple of months ago", [("2026-09-05", "2026-10-05")]),
        # A weekday: the latest one, today counted unless it is "last".
        ("what did I buy on Tuesday?", [("2026-11-17", "2026-11-18")]),
        ("last Friday", [("2026-11-13", "2026-11-14")]),
        ("what did you show me on Friday?", [("2026-11-20", "2026-11-21")]),
        ("what did I order on Sunday evening?", [("2026-11-15", "2026-11-16")]),
        # Up to now.
        ("in the past two weeks", [("2026-11-06", "2026-11-20")]),
        ("over the last 3 months", [("2026-08-21", "2026-11-20")]),
        ("the past week", [("2026-11-13", "2026-11-20")]),
        ("the last few days", [("2026-11-17", "2026-11-20")]),
        ("since March", [("2026-03-01", "2026-11-20")]),
        ("since December", [("2025-12-01", "2026-11-20")]),
        ("since 2024", [("2024-01-01", "2026-11-20")]),
        ("since last summer", [("2026-06-01", "2026-11-20")]),
    ],
)
def test_a_time_told_from_today(text, expected):
    assert windows(text) == (expected, set())


@pytest.mark.parametrize(
    "text",
    [
        "the jacket you showed me last time",
        "is it the one from my last visit?",
        "as in our previous chat",
    ],
)
def test_last_time_is_the_visit_before_this_one(text):
    found = query_times(text, NOW)
    assert found.previous_visit and found
    assert not query_times("show me the jacket this time", NOW).previous_visit


@pytest.mark.parametrize(
    "text, visit",
    [
        # A clause after "the last time" names an event, which can be in any session.
        ("When was the last time Melanie went camping?", False),
        ("the last time I bought boots, what size were they?", False),
        ("the last time my sister visited", False),
        # Unless it is the meeting itself, or what the assistant did on one.
        ("the jacket from the last time I was here", True),
        ("the last time we spoke you said navy", True),
        ("the last time you showed me a jacket", True),
        ("the one from the last time, do you have it?", True),
    ],
)
def test_the_last_time_of_an_event_is_not_the_last_visit(text, visit):
    assert query_times(text, NOW).previous_visit is visit


@pytest.mark.parametrize(
    "text",
    [
        "May I see the boots in size 2000?",
        "the band will march on",
        "a 2-for-1 offer on sizes 10/12",
        "my Sunday best",
        # The coming Monday, not the last.
        "I have an interview on Monday",
        "the last two jackets you showed me",
        "the past is past",
    ],
)
def test_words_that_only_look_like_times(text):
    assert windows(text) == ([], set())


@pytest.mark.parametrize(
    "text, asks",
    [
        ("When did Gina go to Tbilisi?", True),
        ("which year did she move?", True),
        ("How long ago was the race?", True),
        ("what day does it arrive?", True),
        ("Where did Gina go?", False),
        ("Ship it whenever you like", False),
    ],
)
def test_a_question_asking_when(text, asks):
    assert asks_when(text) is asks


@pytest.mark.parametrize(
    "text, tells",
    [
        ("Gina: I finally tried pottery last Tuesday!", True),
        ("We adopted a puppy yesterday.", True),
        ("Back in June I went to Crete", True),
        ("in 2021 we moved", True),
        ("It was three weeks ago", True),
        ("Last summer in Crete was hot", True),
        ("I may go, if it fits", False),  # "may" reads as a month only after "in", "of"...
        ("The pottery class is fun, I go every week", False),
        ("A size 10, please", False),
    ],
)
def test_a_block_that_says_when(text, tells):
    assert tells_time(text) is tells
