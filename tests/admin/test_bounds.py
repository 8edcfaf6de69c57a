"""Numbers past the memory server's bounds are refused with 400 before memory is called, and
a 4xx answer from memory is a refusal of that request, never an outage (no 503, no outage
logged): the shopper's records API and the admin's "Shopper memory" page."""

from __future__ import annotations

import logging
from contextlib import contextmanager

import pytest
from agentmemory.exceptions import ValidationError
from django.urls import reverse

from memoryapp import selectors
from memoryapp.guard import outages
from memoryapp.selectors import MAX_LIST_OFFSET
from shop.models import DemoShopper

pytestmark = pytest.mark.django_db
RECORDS = "/api/memory/records"


class Untouchable:
    def __getattr__(self, name):
        raise AssertionError(f"memory was called ({name})")


class Refusing:
    """A memory server that is up and refuses every request with a 400."""

    def get_user(self, user_id):
        raise ValidationError("offset must be at most 1000000000", details={"offset": "too large"})


def memory_replaced(monkeypatch, client_object) -> None:
    @contextmanager
    def client(timeout=None):
        yield client_object

    monkeypatch.setattr(selectors, "memory_client_sync", client)


@pytest.fixture
def ann():
    return DemoShopper.objects.select_related("user").get(user__username="ann")


def outage_warnings(caplog) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.WARNING and r.name.startswith("memoryapp")
    ]


@pytest.fixture(autouse=True)
def _no_outage_left_over():
    outages.reset()
    yield
    outages.reset()


@pytest.mark.parametrize(
    "query",
    [
        {"offset": MAX_LIST_OFFSET + 1},
        {"offset": "9" * 4400},  # past any integer type, and past Python's own digit limit
        {"limit": 101},
        {"limit": "1" + "0" * 30},
    ],
    ids=["offset-past-bound", "offset-4400-digits", "limit-past-bound", "limit-huge"],
)
def test_the_records_api_refuses_numbers_past_the_bounds_before_calling_memory(
    client, ann, monkeypatch, caplog, query
):
    memory_replaced(monkeypatch, Untouchable())
    client.force_login(ann.user)
    response = client.get(RECORDS, query)
    assert response.status_code == 400, response.content
    assert set(response.json()) <= {"limit", "offset"}
    assert outage_warnings(caplog) == []


def test_a_4xx_from_memory_is_a_400_and_never_logged_as_an_outage(client, ann, monkeypatch, caplog):
    memory_replaced(monkeypatch, Refusing())
    client.force_login(ann.user)
    with caplog.at_level(logging.INFO, logger="memoryapp"):
        response = client.get(RECORDS, {"offset": 5})
    assert response.status_code == 400
    assert "offset must be at most" in response.json()["detail"]
    assert outage_warnings(caplog) == []
    assert "read" not in outages._down


def memory_page(shopper: DemoShopper) -> str:
    return reverse("admin:shop_demoshopper_memory", args=[shopper.pk])


@pytest.mark.parametrize("offset", [str(MAX_LIST_OFFSET + 1), "9" * 4400, "-3", "ten"])
def test_the_admins_memory_page_refuses_an_offset_past_the_bound_before_calling_memory(
    admin_client, ann, monkeypatch, caplog, offset
):
    memory_replaced(monkeypatch, Untouchable())
    response = admin_client.get(memory_page(ann), {"offset": offset})
    page = response.content.decode()
    assert response.status_code == 400
    assert f"The offset must be a whole number from 0 to {MAX_LIST_OFFSET:,}" in page
    assert "Agent Memory is unavailable" not in page
    assert "Show the newest blocks" in page
    assert outage_warnings(caplog) == []


def test_the_admins_memory_page_shows_a_refusal_as_such(admin_client, ann, monkeypatch, caplog):
    memory_replaced(monkeypatch, Refusing())
    response = admin_client.get(memory_page(ann), {"offset": "100"})
    page = response.content.decode()
    assert response.status_code == 400
    assert "Agent Memory refused to list this page" in page
    assert "Agent Memory is unavailable" not in page
    assert outage_warnings(caplog) == []
