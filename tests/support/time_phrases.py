"""Queries of time words for property-based tests of the memory server's reading of times:
the reader's own vocabulary (amounts, units, months, seasons, weekdays, "ago", "since",
"last", spans) mixed with numbers of any size, dates in figures with any year, month and
day, and odd text."""

from __future__ import annotations

from hypothesis import strategies as st

from memoryserver.index.when import MONTHS, WEEKDAYS
from memoryserver.index.windows import SEASONS

_WORDS = [
    *MONTHS,
    *(m[:3] for m in MONTHS),
    *WEEKDAYS,
    *SEASONS,
    *"day days week weeks fortnight month months year years weekend ago since last this".split(),
    *"past previous the of in on between and to till until from a an two couple few".split(),
    *"yesterday today tonight night morning time visit when did i buy -".split(),
    "\u2013",
    "\u2014",
]

_numbers = st.one_of(
    st.integers(min_value=0, max_value=40),
    st.integers(min_value=0, max_value=10**12),
    st.sampled_from([0, 1, 9999, 10000, 99999]),
    st.integers(min_value=300, max_value=5000).map(lambda n: "9" * n),  # past int()'s limit
).map(str)

_figures = st.builds(
    lambda y, m, d, form: form.format(y=y, m=m, d=d),
    st.integers(min_value=0, max_value=99999),
    st.integers(min_value=0, max_value=99),
    st.integers(min_value=0, max_value=99),
    st.sampled_from(["{y:04d}-{m:02d}-{d:02d}", "{y}-{m}", "{d}/{m}/{y:04d}", "{m}/{y:04d}"]),
)

queries = st.lists(
    st.one_of(st.sampled_from(_WORDS), _numbers, _figures, st.text(max_size=8)), max_size=12
).map(" ".join)
