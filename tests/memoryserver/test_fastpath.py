"""The search route's fast path answers exactly as DRF's view does, and only for the shape it
knows: everything else, valid or not, is handed to DRF."""

from __future__ import annotations

import json

import pytest
from django.test import RequestFactory

from memoryserver.api import fastpath
from memoryserver.api.views import MemorySearchView, UserMemoryView
from memoryserver.index.registry import get_registry
from tests.support.memoryserver_stock import blocks_stocked, user_stocked

DB = ["default", "agentmemory"]
USER = "fast-user"

FAST = [
    {"query": "red shoes"},
    {"query": "red", "filters": {"session_ids": "all", "annotations": {"type": "fact"}}},
    {"query": "red", "filters": {"session_ids": "all", "relevant_k": 1, "order_by": None}},
    {"filters": {"session_ids": "ALL", "order_by": "created_at"}},
    {
        "query": "boots",
        "filters": {
            "session_ids": ["s", "other", "nowhere"],
            "annotation_filter_mode": "post",
            "annotations": {"type": "fact", "k": ""},
            "relevant_k": 1000,
        },
    },
    {"query": "x", "filters": None},
    {"query": None, "filters": {}},
    {"filters": {"session_ids": ["All"]}},
    {"filters": {"session_ids": None, "annotations": None, "relevant_k": None}},
    {"query": " café \u2028 «boots» "},
]

DOUBTFUL = [
    {"query": ""},
    {"query": "  "},
    {"query": 5},
    {"query": "a\x00b"},
    {"filters": {"relevant_k": 0}},
    {"filters": {"relevant_k": 1001}},
    {"filters": {"relevant_k": True}},
    {"filters": {"relevant_k": 5.0}},
    {"filters": {"relevant_k": "5"}},
    {"filters": {"session_ids": "mine"}},
    {"filters": {"session_ids": []}},
    {"filters": {"session_ids": ["a/b"]}},
    {"filters": {"session_ids": [" "]}},
    {"filters": {"session_ids": [3]}},
    {"filters": {"annotations": {"bad key": "x"}}},
    {"filters": {"annotations": {"k": 1}}},
    {"filters": {"annotations": []}},
    {"filters": {"order_by": "score"}},
    {"filters": {"annotation_filter_mode": None}},
    {"filters": {"annotation_filter_mode": "mid"}},
    {"filters": {"start_time": "2020-01-01T00:00:00"}},  # valid, but not the common shape
    {"query": "red", "other": 1},  # unknown keys: DRF ignores them
    {"filters": "all"},
    [],
]
RAW_DOUBTFUL = [b"", b"not json", b'{"query": NaN}', b'{"query": "\\ud800"}', b'{"query": "x"']


@pytest.fixture
def seeded():
    get_registry().clear()
    user_stocked(USER, ("s", "other"), name="F")
    for n, (session, kind) in enumerate([("s", "fact"), ("other", "fact"), ("s", "turn")] * 3):
        blocks_stocked(
            USER, session, [f"red boots and café shoes {n}"], annotations={"type": kind, "k": ""}
        )
    yield
    get_registry().clear()


def answers(body: bytes, *, session: str = "s", content_type: str = "application/json"):
    """(fast path's answer, DRF's answer, whether the fast path handed over)."""
    handed: list[bool] = []
    drf = MemorySearchView.as_view()

    def fallback(*args):
        handed.append(True)
        return drf(*args)

    path = f"/users/{USER}/sessions/{session}/memory/search"

    def request():
        return RequestFactory().post(path, data=body, content_type=content_type)

    fast = fastpath.search(request(), USER, session, fallback=fallback)
    slow = drf(request(), USER, session)
    for response in (fast, slow):
        if hasattr(response, "render"):  # a DRF Response (the server renders it in the pool)
            response.render()
    seen = [(r.status_code, sorted(r.items()), r.content) for r in (fast, slow)]
    return seen[0], seen[1], bool(handed)


@pytest.mark.django_db(databases=DB)
def test_the_common_shape_is_answered_without_drf_and_alike(seeded):
    for body in FAST:
        fast, slow, handed = answers(json.dumps(body).encode())
        assert not handed, body
        assert fast == slow, body
        assert fast[0] == 200
    found = json.loads(answers(json.dumps(FAST[0]).encode())[0][2])
    assert found["count"] == 6 and "café" in found["memory_blocks"][0]["fact"]


@pytest.mark.django_db(databases=DB)
def test_anything_else_is_handed_to_drf(seeded):
    bodies = [json.dumps(b).encode() for b in DOUBTFUL] + RAW_DOUBTFUL
    for body in bodies:
        fast, slow, handed = answers(body)
        assert handed, body
        assert fast == slow, body
    _, _, handed = answers(b'{"query": "x"}', content_type="text/plain")
    assert handed


@pytest.mark.django_db(databases=DB)
def test_errors_of_the_search_itself_are_the_same_envelope(seeded):
    fast, slow, handed = answers(b'{"query": "red"}', session="missing")
    assert not handed and fast == slow
    assert fast[0] == 404 and json.loads(fast[2])["error"] == "SESSION_NOT_FOUND"


FAST_LISTS = [
    "",
    "limit=100&offset=0&order_by=ingested_at&session_ids=s",
    "session_ids=s,other",
    "session_ids=ALL",
    "order_by=created_at&limit=1&offset=1",
    "session_ids=%20s%20,%20,other&limit=020",
    "session_ids=%20%20",
]
DOUBTFUL_LISTS = [
    "limit=0",
    "limit=201",
    "limit=abc",
    "limit=",
    "limit=%C2%B2",
    "offset=-1",
    "offset=1000000001",
    "order_by=score",
    "session_ids=a/b",
    "session_ids=%00",
    "extra=1",
]


def listings(query: str, *, user: str = USER):
    handed: list[bool] = []
    drf = UserMemoryView.as_view()

    def fallback(*args):
        handed.append(True)
        return drf(*args)

    def request():
        return RequestFactory().get(f"/users/{user}/memory?{query}")

    seen = []
    for response in (
        fastpath.memory_list(request(), user, fallback=fallback),
        drf(request(), user),
    ):
        if hasattr(response, "render"):
            response.render()
        seen.append((response.status_code, sorted(response.items()), response.content))
    return seen[0], seen[1], bool(handed)


@pytest.mark.django_db(databases=DB)
def test_listings_of_the_common_shape_skip_drf_and_anything_else_does_not(seeded):
    for query in FAST_LISTS:
        fast, slow, handed = listings(query)
        assert not handed and fast == slow and fast[0] == 200, query
    assert json.loads(listings("session_ids=s,other&limit=200")[0][2])["total"] == 9
    for query in DOUBTFUL_LISTS:
        fast, slow, handed = listings(query)
        assert handed and fast == slow, query
    fast, slow, handed = listings("limit=5", user="nobody")
    assert not handed and fast == slow and fast[0] == 404
