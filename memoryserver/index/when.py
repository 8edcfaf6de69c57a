"""The times a query names ("in May", "last summer", "2023", "two weeks ago"), as windows.

Search uses them softly (`memoryserver.index.slot`): a block dated inside a window gains
rank, as if its date were a word it held; nothing is filtered out. A block's date is its
`created_at` (the moment it happened, which a client storing an old conversation sets to
that session's day), else its `ingested_at`.

Relative phrases ("yesterday", "last month", "three weeks ago", "since March", "the past
two weeks", "last Tuesday") are read against `now`, the server's clock
(`memoryserver.clock`, which tests move). Calendar windows are in UTC, the server's time
zone. A month or season without a year ("in May", "in the summer") matches that part of
every year: a shopper asking "what did I buy in May?" means their last May, and any May of
theirs is a better guess than a block from October. "May" and "March" are months only where
they read as one ("in May", "May 2023", "8 March"), not as "may I" or "march on"; a weekday
only where it reads as a past day ("last Friday", "what did I order on Sunday?"), not in "my
Sunday best" or "I have an interview on Monday". Spans ("between March and May 2023", "from
8 May to 12 May") are one window from the first to the end of the last, and dates in
figures ("2023-05-08", "8/5/2023") are read both ways round when day and month could be
either. "Last time" or "my last visit" is the latest session before the one searching.
A query may also ask when (`asks_when`), which the blocks that say when answer
(`tells_time`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from itertools import pairwise

from llm.shopper_words import NUMBER_WORDS
from memoryserver.index.windows import (
    SEASONS,
    Point,
    TimeWindows,
    calendar_date,
    day_number,
    day_range,
    last_season,
    month_range,
    month_start,
    months_from,
    season_range,
    span,
    year_of,
)

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")  # fmt: skip
_MONTH_OF = {name: n for n, name in enumerate(MONTHS, start=1)}
_MONTH_OF.update({name[:3]: n for name, n in list(_MONTH_OF.items())})
_MONTH_OF["sept"] = 9
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {**NUMBER_WORDS, "a": 1, "an": 1, "couple": 2, "few": 3, "several": 3}
_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30.44, "year": 365.25}
_DAY = 86400.0
_AMOUNT_DIGITS = 4  # "9999 days ago" at most

# Words that make "may" or "march" (or a short month name, or "fall") a month: before or
# after it.
_MONTH_CUES_BEFORE = {"in", "of", "during", "since", "until", "till", "by", "last", "this",
                      "next", "early", "late", "mid", "from", "through", "before", "after",
                      "around", "on", "every", "between"}  # fmt: skip
_AMBIGUOUS = {"may", "march", "mar", "jan", "jun", "jul", "aug", "oct", "dec", "sep", "sept",
              "nov", "feb", "apr", "fall"}  # fmt: skip
_NOT_YEARS = {"size", "number", "no", "order", "sku", "code", "item", "ref", "model", "page"}
_WEEKDAY_CUES = {"last", "past", "since", "that"}
# What a shopper calls a session: "last time", "my last visit", "our previous chat".
_VISITS = {"time", "visit", "session", "conversation", "chat"}
# "The last time Mel went camping" is the last time of an event, which can be any session;
# "the last time I was here" or "we spoke" is the visit. A clause after "the last time"
# names an event unless it is the shopper's (or the assistant's) meeting with the shop.
_CLAUSE_SUBJECTS = {"i", "we", "he", "she", "they", "it", "my", "our", "his", "her",
                    "their", "the", "a", "an", "this", "that", "these", "those"}  # fmt: skip
_MEETING_WORDS = {"here", "in", "spoke", "talked", "chatted", "met", "visited", "came",
                  "shopped", "popped", "stopped"}  # fmt: skip
_DAY_PARTS = {"morning", "afternoon", "evening", "night", "lunchtime"}
# "On Friday" is as often the coming Friday ("I have an interview on Friday") as the last:
# a weekday after "on" is a past day only in a query that speaks of the past.
_PAST_CUES = {"did", "was", "were", "said", "told", "bought", "ordered", "mentioned", "asked",
              "showed", "saw", "tried", "returned", "went", "happened", "talked"}  # fmt: skip
# What joins the two ends of a span: "March to May", "March-May" (a hyphen or an en or em
# dash); "and" only after "between".
_DASHES = "-\u2013\u2014"
_SPAN_TO = {"to", "through", "thru", "till", "until", *_DASHES}
_TOKEN = re.compile(rf"[A-Za-z]+|\d+(?:st|nd|rd|th)?|[{_DASHES}]")

# Dates in figures, read before the words (the tokens would split them).
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_ISO_MONTH = re.compile(r"\b(\d{4})-(\d{1,2})\b")
_SLASH_DAY = re.compile(r"\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b")
_SLASH_MONTH = re.compile(r"\b(\d{1,2})/(\d{4})\b")


class _Reading:
    """One query read left to right, each phrase a reader that returns the words it took."""

    def __init__(self, text: str, now: datetime) -> None:
        self.now = now.astimezone(UTC)
        self.today = datetime(self.now.year, self.now.month, self.now.day, tzinfo=UTC)
        self.found = TimeWindows()
        text = self._read_figures(text)
        tokens = list(_TOKEN.finditer(text))
        self.raw = [t.group() for t in tokens]
        self.words = [w.lower() for w in self.raw]
        # Whether a token runs straight on into the next, with no punctuation between.
        self.runs_on = [not text[a.end() : b.start()].strip() for a, b in pairwise(tokens)]

    def read(self) -> TimeWindows:
        i = 0
        while i < len(self.words):
            i += max(1, self._phrase(self._since, i) or self._phrase(self._told_from_today, i)
                     or self._phrase(self._calendar, i))  # fmt: skip
        return self.found

    def _phrase(self, reader: Callable[[int], int], i: int) -> int:
        """What one phrase reader took at i; a phrase whose dates fall past the calendar's
        ends ("on 9999-12-31" give or take a day, "a year ago" in year 1) names no time: it
        adds no window and takes no words, and the reading goes on."""
        ranges, months, visit = (
            len(self.found.ranges),
            set(self.found.months),
            self.found.previous_visit,
        )
        try:
            return reader(i)
        except (OverflowError, ValueError):  # datetime's years 1 to 9999
            del self.found.ranges[ranges:]
            self.found.months, self.found.previous_visit = months, visit
            return 0

    def word(self, i: int) -> str:
        return self.words[i] if 0 <= i < len(self.words) else ""

    # Dates in figures
    def _read_figures(self, text: str) -> str:
        """Windows for the dates written in figures; the text without them."""
        ranges = self.found.ranges

        def iso_day(m: re.Match) -> str:
            start = calendar_date(int(m[1]), int(m[2]), int(m[3]))
            if start is None:
                return " "  # "2023-02-30" is no day, and not February either
            ranges.append(day_range(start))
            return " "

        def iso_month(m: re.Match) -> str:
            if year_of(m[1]) is None or not 1 <= int(m[2]) <= 12:
                return m[0]  # "the 2023-24 season": a year and a number
            ranges.append(month_range(int(m[1]), int(m[2])))
            return " "

        def slash_day(m: re.Match) -> str:
            a, b, year = int(m[1]), int(m[2]), int(m[3])
            days = {
                d for d in (calendar_date(year, b, a), calendar_date(year, a, b)) if d is not None
            }
            ranges.extend(day_range(d) for d in sorted(days))
            return " "  # "31/02/2023" is no day, and not February either

        def slash_month(m: re.Match) -> str:
            if year_of(m[2]) is None or not 1 <= int(m[1]) <= 12:
                return m[0]
            ranges.append(month_range(int(m[2]), int(m[1])))
            return " "

        def guarded(read: Callable[[re.Match], str]) -> Callable[[re.Match], str]:
            def figure(m: re.Match) -> str:
                had = len(ranges)
                try:
                    return read(m)
                except (OverflowError, ValueError):  # a day or two past year 1 or 9999
                    del ranges[had:]
                    return " "  # a date, but none a window can hold

            return figure

        text = _ISO_DAY.sub(guarded(iso_day), text)
        text = _ISO_MONTH.sub(guarded(iso_month), text)
        text = _SLASH_DAY.sub(guarded(slash_day), text)
        return _SLASH_MONTH.sub(guarded(slash_month), text)

    # Calendar times: "May", "8 May 2023", "the summer of 2022", "2023", and spans of them
    def _is_month(self, i: int, cued: bool = False) -> int | None:
        """The month named at position i, if it reads as a month there."""
        word = self.word(i)
        month = _MONTH_OF.get(word)
        if month is None:
            return None
        if cued or word not in _AMBIGUOUS:
            return month
        before, after = self.word(i - 1), self.word(i + 1)
        if before in _MONTH_CUES_BEFORE or day_number(before) or day_number(after):
            return month
        if self._year_after(i + 1)[0]:  # "May 2023", "March of 2022"
            return month
        if after in _SPAN_TO and self.word(i + 2) in _MONTH_OF:  # "March-May"
            return month
        # Capitalised in the middle of a sentence ("what did we do May ...") reads as a name.
        if i and self.raw[i][0].isupper():
            return month
        return None

    def _year_after(self, i: int) -> tuple[int | None, int]:
        """A year at i, or after "of" at i ("May of 2023"); and the words it took."""
        if year := year_of(self.word(i)):
            return year, 1
        if self.word(i) == "of" and (year := year_of(self.word(i + 1))):
            return year, 2
        return None, 0

    def _point(self, i: int, cued: bool = False) -> Point | None:
        """The calendar time named from position i."""
        word = self.word(i)
        if word in SEASONS and word not in _AMBIGUOUS:
            cued = True
        if word in SEASONS and (cued or self.word(i - 1) in _MONTH_CUES_BEFORE | {"the"}):
            year, took = self._year_after(i + 1)
            return Point(SEASONS[word], year, size=1 + took)
        day = day_number(word)
        if day is not None:  # "8 May", "8th of May"
            at = i + 2 if self.word(i + 1) == "of" else i + 1
            month = self._is_month(at, cued=True) if self.word(at) in _MONTH_OF else None
            if month is None:
                return None
            year, took = self._year_after(at + 1)
            return Point((month,), year, day, size=at - i + 1 + took)
        month = self._is_month(i, cued)
        if month is not None:  # "May", "May 8th, 2023", "May of 2023"
            day = day_number(self.word(i + 1))
            year, took = self._year_after(i + 2 if day else i + 1)
            return Point((month,), year, day, size=1 + bool(day) + took)
        year = year_of(word)
        prev = self.word(i - 1)
        # "size 2000" or "order 2023" is a number, not a year.
        if year is not None and prev not in _NOT_YEARS:
            return Point(tuple(range(1, 13)), year)
        return None

    def _calendar(self, i: int) -> int:
        first = self._point(i)
        if first is None:
            return 0
        joint = i + first.size
        joiner = self.word(joint)
        last = self._point(joint + 1, cued=True) if joiner in _SPAN_TO | {"and", "or"} else None
        if last is None:
            self._add(first)
            return first.size
        taken = first.size + 1 + last.size
        if joiner in _SPAN_TO or (joiner == "and" and self.word(i - 1) == "between"):
            self._add_span(first, last)
        else:  # "March and May 2023": two months, of the year named
            if first.year is None and last.year is not None:
                first = replace(first, year=last.year)
            self._add(first)
            self._add(last)
        return taken

    def _add(self, point: Point) -> None:
        window = point.window()
        if window is None:
            self.found.months.update(point.months)
        else:
            self.found.ranges.append(window)

    def _add_span(self, first: Point, last: Point) -> None:
        if first.year is None and last.year is None:
            self.found.months.update(months_from(first.months[0], last.months[-1]))
            return
        # The end without a year takes the other's, or the year beside it if the months
        # would run backwards ("November to February 2023" began in 2022).
        if first.year is None and last.year is not None:
            before = first.months[0] > last.months[0]
            first = replace(first, year=last.year - before)
        elif last.year is None and first.year is not None:
            after = last.months[0] < first.months[0]
            last = replace(last, year=first.year + after)
        first_window, last_window = first.window(), last.window()
        assert first_window is not None and last_window is not None  # both ends have a year
        lo, hi = first_window[0], last_window[1]
        if hi > lo:
            self.found.ranges.append((lo, hi))
        else:  # backwards even so: each end alone
            self._add(first)
            self._add(last)

    # Times told from today
    def _amount(self, i: int) -> tuple[float, int] | None:
        """ "two weeks", "3 days", "a couple of months" at i: the days, and the words taken."""
        word = self.word(i)
        # "0 days ago" and "99999 years" name no time anyone means: no window (and no
        # division by zero, nor a float overflow from a 400-digit amount).
        amount = int(word) if word.isdigit() and len(word) <= _AMOUNT_DIGITS else _NUMBERS.get(word)
        if not amount:
            return None
        gap = 2 if self.word(i + 1) == "of" else 1  # "couple of weeks"
        unit = self.word(i + gap)
        unit = unit[:-1] if unit.endswith("s") else unit
        if unit not in _UNIT_DAYS:
            return None
        return amount * _UNIT_DAYS[unit], gap + 1

    def _weekday(self, weekday: int, back: bool) -> datetime:
        """The latest such day up to today; with `back`, before today."""
        days = (self.today.weekday() - weekday) % 7
        return self.today - timedelta(days=days or (7 if back else 0))

    def _told_from_today(self, i: int) -> int:
        word, nxt, after = self.word(i), self.word(i + 1), self.word(i + 2)
        ranges = self.found.ranges
        today, now = self.today, self.now.timestamp()
        if (amount := self._amount(i)) and self.word(i + amount[1]) == "ago":
            days, took = amount
            # The further back, the vaguer: half a unit either side, at least a day.
            unit = days / (int(word) if word.isdigit() else _NUMBERS[word])
            slack = max(1.0, unit / 2)
            centre = now - days * _DAY
            ranges.append((centre - slack * _DAY, centre + slack * _DAY))
            return took + 1
        if word == "day" and nxt == "before" and after == "yesterday":
            ranges.append(span(today - timedelta(days=2), today - timedelta(days=1)))
            return 3
        if word in ("yesterday", "today", "tonight") or (word == "last" and nxt == "night"):
            start = today - timedelta(days=0 if word in ("today", "tonight") else 1)
            ranges.append(span(start, start + timedelta(days=1)))
            return 1 if word != "last" else 2
        if word == "this" and nxt in _DAY_PARTS:
            ranges.append(span(today, today + timedelta(days=1)))
            return 2
        if word in WEEKDAYS and (
            self.word(i - 1) in _WEEKDAY_CUES or _PAST_CUES.intersection(self.words)
        ):
            day = self._weekday(WEEKDAYS.index(word), back=self.word(i - 1) in ("last", "past"))
            ranges.append(span(day, day + timedelta(days=1)))
            return 1
        if word not in ("last", "this", "past", "previous") or not nxt:
            return 0
        if word != "this" and nxt in _VISITS:  # "last time", "my previous visit"
            self.found.previous_visit = nxt != "time" or not self._event_clause(i + 2)
            return 2
        # "the last three weeks", "the past month": up to now.
        if word != "this" and (amount := self._amount(i + 1)):
            ranges.append((now - amount[0] * _DAY, now))
            return 1 + amount[1]
        if word == "past" and nxt.rstrip("s") in _UNIT_DAYS:
            ranges.append((now - _UNIT_DAYS[nxt.rstrip("s")] * _DAY, now))
            return 2
        back = 0 if word == "this" else 1
        if nxt in ("week", "weekend"):
            monday = today - timedelta(days=today.weekday() + 7 * back)
            start = monday + timedelta(days=5) if nxt == "weekend" else monday
            ranges.append(span(start, monday + timedelta(days=7)))
        elif nxt == "month":
            ranges.append(month_range(self.now.year, self.now.month - back))
        elif nxt == "year":
            year = self.now.year - back
            ranges.append(span(month_start(year, 1), month_start(year + 1, 1)))
        elif nxt in SEASONS:
            if back:
                ranges.append(last_season(self.now, nxt))
            else:  # this winter, in January, began last December
                year = self.now.year - (1 if nxt == "winter" and self.now.month < 3 else 0)
                ranges.append(season_range(year, nxt))
        elif nxt in _MONTH_OF:
            # "last May" is the latest May before this month; "this May", this year's.
            month = _MONTH_OF[nxt]
            year = self.now.year - (1 if back and month >= self.now.month else 0)
            ranges.append(month_range(year, month))
        else:
            return 0
        return 2

    def _event_clause(self, i: int) -> bool:
        """Whether "the last time" before position i heads a clause naming an event ("the
        last time Mel went camping", "the last time I bought boots") rather than a visit."""
        if self.word(i - 3) != "the" or i >= len(self.words) or not self.runs_on[i - 1]:
            return False
        subject = self.word(i)
        if subject == "you":  # what the assistant did, it did on a visit
            return False
        if subject not in _CLAUSE_SUBJECTS and not self.raw[i][0].isupper():
            return False
        meeting = subject in ("i", "we") and _MEETING_WORDS.intersection(self.words[i + 1 : i + 3])
        return not meeting

    def _since(self, i: int) -> int:
        """ "since March", "since 2024", "since last summer": from then up to now."""
        if self.word(i) != "since":
            return 0
        now = self.now.timestamp()
        point = self._point(i + 1, cued=True)
        if point is not None:
            window = point.window()
            if window is None:  # the latest start of that month or season
                first = point.months[0]
                year = self.now.year - (first > self.now.month)
                window = month_range(year, first)
            lo, took = window[0], point.size
        else:  # "since last summer": that window's start, in place of the window
            had = len(self.found.ranges)
            took = self._told_from_today(i + 1)
            told = self.found.ranges[had:]
            del self.found.ranges[had:]
            if not told:
                return 0
            lo = min(lo for lo, _ in told)
        if lo < now:
            self.found.ranges.append((lo, now))
        return 1 + took


_ASKS_WHEN = re.compile(
    r"\b(?:when|what (?:time|day|date|month|year)|which (?:day|date|month|year)"
    r"|how long ago)\b",
    re.IGNORECASE,
)


# What says when in a block's own text, from the words the reading above knows: a weekday,
# a month ("may" and "march" only after a word that makes them one), "yesterday", "last
# week", "two weeks ago", a year. A regular expression, not a reading: it runs on every
# block written or loaded (1.7 µs a turn, where a reading takes 55).
_UNITS = "|".join(sorted({*_UNIT_DAYS, "weekend", *_DAY_PARTS, *SEASONS, *WEEKDAYS}))
_PLAIN_MONTHS = "|".join(m for m in MONTHS if m not in _AMBIGUOUS)
_TELLS_TIME = re.compile(
    rf"\b(?:yesterday|today|tonight|tomorrow|ago|recently|(?:{'|'.join(WEEKDAYS)})s?"
    rf"|{_PLAIN_MONTHS}|(?:in|of|early|late|mid|since) (?:may|march)"
    rf"|(?:last|this|next|past) (?:{_UNITS})s?|(?:19|20)\d\d)\b"
)  # matched against the lowered text: IGNORECASE makes it over twice as slow


def tells_time(text: str) -> bool:
    """Whether a block's own text says when something happened ("I went yesterday", "last
    Tuesday", "back in June", "in 2021"): what a question asking when is answered by."""
    return _TELLS_TIME.search(text.lower()) is not None


def asks_when(text: str) -> bool:
    """Whether a query asks when something happened ("When did Gina go to Tbilisi?")."""
    return _ASKS_WHEN.search(text) is not None


def query_times(text: str, now: datetime) -> TimeWindows:
    """The windows of time `text` names, read against `now` (aware, any zone)."""
    return _Reading(text, now).read()
