"""The server's search answers whatever times a query names: a phrase it cannot place on the
calendar ("0 days ago", "on 9999-12-31", a 5,000-digit number) is read as no time, and the
search still finds what the query's words find."""

from __future__ import annotations

import uuid

import pytest
from agentmemory import AgentMemoryClient, FilterOptions
from agentmemory.exceptions import ValidationError
from hypothesis import HealthCheck, given, settings

from tests.support.time_phrases import queries

pytestmark = pytest.mark.live_memory

ODD = [
    "the rain jacket from 0 days ago",
    "the rain jacket I bought 0 weeks ago",
    "rain jacket on 9999-12-31",
    "rain jacket on 0001-01-01",
    "rain jacket 31/12/9999 or 1.1.0001",
    "rain jacket on 2023-02-30",
    "rain jacket " + "9" * 5000 + " days ago",
    "rain jacket the last " + "9" * 400 + " years",
    "rain jacket since 0000-01-01, last 99999 years",
]


@pytest.fixture(scope="module")
def jacket_session(agentmemory_server: str):
    with AgentMemoryClient(base_url=agentmemory_server, timeout=10, max_retries=0) as client:
        user = client.create_user(f"u-{uuid.uuid4().hex[:10]}", name="Ada")
        session = user.create_session("s1")
        added = session.add_memory(
            facts=["Bought the Storm Shell rain jacket in navy"], context_required=False
        )
        yield session, added.block_ids[0]


@pytest.mark.parametrize("query", ODD)
def test_a_time_no_calendar_holds_still_finds_what_the_words_find(jacket_session, query):
    session, jacket = jacket_session
    found = session.search_memory(query, filters=FilterOptions(session_ids="all"))
    assert [b.block_id for b in found.memory_blocks] == [jacket]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=queries)
def test_any_query_of_time_words_and_numbers_is_answered(jacket_session, query):
    session, _ = jacket_session
    query = query.strip()[:2000] or "jacket"
    if "\x00" in query:
        # A NUL is refused as bad input (400, said plainly), like any other text field.
        with pytest.raises(ValidationError, match="Null characters"):
            session.search_memory(query, filters=FilterOptions(session_ids="all"))
        return
    # An error answer (a 500 included) raises in the SDK; an answer is a list of blocks.
    found = session.search_memory(query, filters=FilterOptions(session_ids="all"))
    assert isinstance(found.memory_blocks, list)
