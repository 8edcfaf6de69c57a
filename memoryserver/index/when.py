"""The times a query names ("in May", "last summer", "2023", "two weeks ago"), as windows.

Search uses them softly (`memoryserver.index.slot`): a block dated inside a window gains
rank, as if its date were a word it held; nothing is filtered out. A block's date is its
`created_at` (the moment it happened, which a client storing an old conversation sets to
that session's day), else its `ingested_at`.

Relative phrases ("yesterday", "last month", "three weeks ago") are read against `now`,
the server's clock (`memoryserver.clock`, which tests move). Calendar windows are in UTC,
the server's time zone. A month or season without a year ("in May", "in the summer")
matches that part of every year: a shopper asking "what did I buy in May?" means their
last May, and any May of theirs is a better guess than a block from October. "May" and
"March" are months only where they read as one ("in May", "May 2023", "8 March"), not as
"may I" or "march on".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")  # fmt: skip
_MONTH_OF = {name: n for n, name in enumerate(MONTHS, start=1)}
_MONTH_OF.update({name[:3]: n for name, n in list(_MONTH_OF.items())})
_MONTH_OF["sept"] = 9
# Northern seasons, by their months.
SEASONS = {
    "spring": (3, 4, 5),
    "summer": (6, 7, 8),
    "autumn": (9, 10, 11),
    "fall": (9, 10, 11),
    "winter": (12, 1, 2),
}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
            "couple": 2, "few": 3, "several": 3}  # fmt: skip
_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30.44, "year": 365.25}
_DAY = 86400.0

# Words that make "may" or "march" (or a short month name) a month: before or after it.
_MONTH_CUES_BEFORE = {"in", "of", "during", "since", "until", "till", "by", "last", "this",
                      "next", "early", "late", "mid", "from", "through", "before", "after",
                      "around", "on", "every"}  # fmt: skip
_AMBIGUOUS = {"may", "march", "mar", "jan", "jun", "jul", "aug", "oct", "dec", "sep", "sept",
              "nov", "feb", "apr"}  # fmt: skip
_NOT_YEARS = {"size", "number", "no", "order", "sku", "code", "item", "ref", "model", "page"}
_TOKEN = re.compile(r"[A-Za-z]+|\d+(?:st|nd|rd|th)?")


@dataclass
class TimeWindows:
    """Epoch ranges [lo, hi) and months of any year (1-12) a query names."""

    ranges: list[tuple[float, float]] = field(default_factory=list)
    months: set[int] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.ranges or self.months)

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


def _month_start(year: int, month: int) -> datetime:
    return datetime(year + (month - 1) // 12, (month - 1) % 12 + 1, 1, tzinfo=UTC)


def _span(start: datetime, end: datetime) -> tuple[float, float]:
    return start.timestamp(), end.timestamp()


def _month_range(year: int, month: int) -> tuple[float, float]:
    return _span(_month_start(year, month), _month_start(year, month + 1))


def _season_range(year: int, season: str) -> tuple[float, float]:
    """The season that starts in `year` (winter runs into the next year)."""
    first = SEASONS[season][0]
    return _span(_month_start(year, first), _month_start(year, first + 3))


def _last_season(now: datetime, season: str) -> tuple[float, float]:
    """The most recent such season that has ended (or the one under way, if none has)."""
    for year in (now.year, now.year - 1, now.year - 2):
        lo, hi = _season_range(year, season)
        if hi <= now.timestamp():
            return lo, hi
    return _season_range(now.year - 1, season)


def _year(token: str) -> int | None:
    if len(token) == 4 and token.isdigit() and 1900 <= int(token) <= 2099:
        return int(token)
    return None


def _day_number(token: str) -> int | None:
    digits = token.rstrip("stndrh")
    if digits.isdigit() and 1 <= int(digits) <= 31 and len(digits) <= 2:
        return int(digits)
    return None


def _is_month(words: list[str], raw: list[str], i: int) -> int | None:
    """The month named at position i, if it reads as a month there."""
    month = _MONTH_OF.get(words[i])
    if month is None:
        return None
    if words[i] not in _AMBIGUOUS:
        return month
    before = words[i - 1] if i else ""
    after = words[i + 1] if i + 1 < len(words) else ""
    if before in _MONTH_CUES_BEFORE or _day_number(before) or _year(after) or _day_number(after):
        return month
    # Capitalised in the middle of a sentence ("what did we do May ...") reads as a name.
    if i and raw[i][0].isupper() and not raw[i - 1].endswith((".", "?", "!")):
        return month
    return None


def query_times(text: str, now: datetime) -> TimeWindows:
    """The windows of time `text` names, read against `now` (aware, any zone)."""
    now = now.astimezone(UTC)
    raw = _TOKEN.findall(text)
    words = [w.lower() for w in raw]
    found = TimeWindows()
    used: set[int] = set()
    today = datetime(now.year, now.month, now.day, tzinfo=UTC)
    for i, word in enumerate(words):
        if i in used:
            continue
        nxt = words[i + 1] if i + 1 < len(words) else ""
        after = words[i + 2] if i + 2 < len(words) else ""
        prev = words[i - 1] if i else ""
        # "N days/weeks/months/years ago", "a couple of weeks ago"
        unit = nxt.rstrip("s") if nxt != "ago" else ""
        amount = _NUMBERS.get(word) if not word.isdigit() else int(word)
        if amount is not None:
            gap = 1
            if unit == "of" or nxt == "of":  # "couple of weeks ago"
                unit, gap = after.rstrip("s"), 2
            if unit in _UNIT_DAYS and (words[i + gap + 1 : i + gap + 2] == ["ago"]):
                days = amount * _UNIT_DAYS[unit]
                # The further back, the vaguer: half a unit either side, at least a day.
                slack = max(1.0, _UNIT_DAYS[unit] / 2)
                centre = now.timestamp() - days * _DAY
                found.ranges.append((centre - slack * _DAY, centre + slack * _DAY))
                used.update(range(i, i + gap + 2))
                continue
        if word in ("yesterday", "today", "tonight"):
            start = today - timedelta(days=1 if word == "yesterday" else 0)
            found.ranges.append(_span(start, start + timedelta(days=1)))
            continue
        if word in ("last", "this", "past", "previous") and nxt:
            back = 0 if word == "this" else 1
            if nxt == "week" or nxt == "weekend":
                monday = today - timedelta(days=today.weekday() + 7 * back)
                start = monday + timedelta(days=5) if nxt == "weekend" else monday
                end = monday + timedelta(days=7)
                found.ranges.append(_span(start, end))
                used.add(i + 1)
                continue
            if nxt == "month":
                found.ranges.append(_month_range(now.year, now.month - back))
                used.add(i + 1)
                continue
            if nxt == "year":
                found.ranges.append(_span(_month_start(now.year - back, 1),
                                          _month_start(now.year - back + 1, 1)))  # fmt: skip
                used.add(i + 1)
                continue
            if nxt in SEASONS:
                if back:
                    found.ranges.append(_last_season(now, nxt))
                else:  # this winter, in January, began last December
                    year = now.year - (1 if nxt == "winter" and now.month < 3 else 0)
                    found.ranges.append(_season_range(year, nxt))
                used.add(i + 1)
                continue
            if nxt in _MONTH_OF:
                # "last May" is the latest May before this month; "this May", this year's.
                month = _MONTH_OF[nxt]
                year = now.year - (1 if back and month >= now.month else 0)
                found.ranges.append(_month_range(year, month))
                used.add(i + 1)
                continue
        if word in SEASONS:
            year = _year(nxt)
            if year is not None:
                found.ranges.append(_season_range(year, word))
                used.add(i + 1)
            else:
                found.months.update(SEASONS[word])
            continue
        month = _is_month(words, raw, i)
        if month is not None:
            year = _year(nxt) or (_year(after) if _day_number(nxt) else None)
            day = _day_number(prev) or _day_number(nxt)
            if year is not None and day is not None:
                try:
                    start = datetime(year, month, day, tzinfo=UTC)
                except ValueError:  # "30 February": the month, then
                    start = None
                if start is not None:
                    # A day, give or take one: "on 8 May" is often told the day after.
                    found.ranges.append(_span(start - timedelta(days=1), start + timedelta(days=2)))
                else:
                    found.ranges.append(_month_range(year, month))
            elif year is not None:
                found.ranges.append(_month_range(year, month))
            else:
                found.months.add(month)
            used.update({i + 1} if _year(nxt) else set())
            continue
        year = _year(word)
        # "size 2000" or "order 2023" is a number, not a year.
        if year is not None and prev not in _MONTH_OF and prev not in _NOT_YEARS:
            found.ranges.append(_span(_month_start(year, 1), _month_start(year + 1, 1)))
    return found
