"""Windows of time as epoch ranges: the calendar arithmetic behind a query's times.

`memoryserver.index.when` reads a query's words into these; the index matches its blocks'
dates against them (`TimeWindows.matches`). All in UTC.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np

# Northern seasons, by their months.
SEASONS = {
    "spring": (3, 4, 5),
    "summer": (6, 7, 8),
    "autumn": (9, 10, 11),
    "fall": (9, 10, 11),
    "winter": (12, 1, 2),
}


@dataclass
class TimeWindows:
    """Epoch ranges [lo, hi) and months of any year (1-12) a query names."""

    ranges: list[tuple[float, float]] = field(default_factory=list)
    months: set[int] = field(default_factory=set)
    # "last time", "on my last visit": the latest session before the one searching, which
    # only the index knows (`memoryserver.index.slot`).
    previous_visit: bool = False

    def __bool__(self) -> bool:
        return bool(self.ranges or self.months or self.previous_visit)

    def matches(self, when: np.ndarray) -> np.ndarray:
        """Which of these epochs (NaN = undated) fall in any window."""
        inside = np.zeros(when.shape[0], dtype=bool)
        for lo, hi in self.ranges:
            inside |= (when >= lo) & (when < hi)
        if self.months:
            dated = ~np.isnan(when)
            seconds = np.where(dated, when, 0.0).astype("datetime64[s]")
            month = seconds.astype("datetime64[M]").astype(np.int64) % 12 + 1
            inside |= dated & np.isin(month, list(self.months))
        return inside


def month_start(year: int, month: int) -> datetime:
    return datetime(year + (month - 1) // 12, (month - 1) % 12 + 1, 1, tzinfo=UTC)


def span(start: datetime, end: datetime) -> tuple[float, float]:
    return start.timestamp(), end.timestamp()


def month_range(year: int, month: int) -> tuple[float, float]:
    return span(month_start(year, month), month_start(year, month + 1))


def day_range(start: datetime) -> tuple[float, float]:
    # A day, give or take one: "on 8 May" is often told the day after.
    return span(start - timedelta(days=1), start + timedelta(days=2))


def season_range(year: int, season: str) -> tuple[float, float]:
    """The season that starts in `year` (winter runs into the next year)."""
    first = SEASONS[season][0]
    return span(month_start(year, first), month_start(year, first + 3))


def last_season(now: datetime, season: str) -> tuple[float, float]:
    """The most recent such season that has ended (or the one under way, if none has)."""
    for year in (now.year, now.year - 1, now.year - 2):
        lo, hi = season_range(year, season)
        if hi <= now.timestamp():
            return lo, hi
    return season_range(now.year - 1, season)


def year_of(token: str) -> int | None:
    if len(token) == 4 and token.isdigit() and 1900 <= int(token) <= 2099:
        return int(token)
    return None


def day_number(token: str) -> int | None:
    digits = token.rstrip("stndrh")
    if len(digits) <= 2 and digits.isdigit() and 1 <= int(digits) <= 31:
        return int(digits)  # the length first: int() refuses a number of over 4,300 digits
    return None


def calendar_date(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError:  # "30 February", "13/13/2023"
        return None


@dataclass(frozen=True)
class Point:
    """A time named on the calendar: a year, a month, a season or a day, with or without
    its year; `size` is how many words named it."""

    months: tuple[int, ...]  # in calendar order; all twelve for a year
    year: int | None = None
    day: int | None = None
    size: int = 1

    def window(self) -> tuple[float, float] | None:
        """Its epoch range, if it has a year; else it is a part of any year."""
        if self.year is None:
            return None
        if self.day is not None:
            start = calendar_date(self.year, self.months[0], self.day)
            if start is not None:
                return day_range(start)
        first = self.months[0]
        return span(month_start(self.year, first), month_start(self.year, first + len(self.months)))


def months_from(first: int, last: int) -> set[int]:
    """The months from `first` through `last`, round the year's end if need be."""
    return {(first - 1 + k) % 12 + 1 for k in range((last - first) % 12 + 1)}
