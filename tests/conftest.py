"""Fixtures shared by the whole suite."""

from __future__ import annotations

import inspect
import os
import warnings

import pytest
from asgiref.sync import SyncToAsync
from django.db import connections

from harness.memoryserver import LiveMemory, start_agentmemory_server
from harness.services import ServiceUnavailable, redis_start
from shop.services import catalog_seed, shoppers_seed
from tests.support import fault_figures
from tests.support.databases import (
    POSTGRES_ONLY,
    database_requested,
    item_uses_database,
    postgres_in_use,
)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test databases, with PostgreSQL's pools closed before they are dropped.

    A pooled connection handed back to its pool stays open on the server, and so does one a
    thread never handed back; DROP DATABASE then fails while any of them is open. Each pool
    is closed first, on this thread; a backend still open after that belongs to a thread
    that kept its connection, and is ended so the drop can go ahead (and said so).
    """
    yield
    with django_db_blocker.unblock():
        for alias in connections:
            connection = connections[alias]
            if connection.vendor != "postgresql" or not connection.settings_dict["OPTIONS"].get(
                "pool"
            ):
                continue
            connection.close()
            connection.close_pool()
            name = connection.settings_dict["NAME"]
            with connection._nodb_cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = %s AND pid <> pg_backend_pid()",
                    [name],
                )
                ended = len(cursor.fetchall())
            if ended:
                warnings.warn(
                    f"{ended} connection(s) to {name} were still open after the pool closed "
                    "(a thread kept its own); ended before the drop",
                    stacklevel=1,
                )
            connection.close()


@pytest.fixture(autouse=True)
def _catalog_loaded(request):
    """Keep the bundled catalog and demo shoppers in the test database.

    Loaded outside any test's transaction, so ordinary tests roll back only their own
    writes; transactional and live-server tests flush everything when they end, so the
    next test finds the tables empty and loads them again. Tests without the database
    skip this (and never make pytest-django create one).
    """
    if not database_requested(request.node, request.fixturenames):
        return
    request.getfixturevalue("django_db_setup")
    from shop.models import Product

    with request.getfixturevalue("django_db_blocker").unblock():
        if not Product.objects.exists():
            catalog_seed()
            shoppers_seed()


@pytest.fixture(autouse=True)
def _sync_thread_connection_closed(request):
    """After an async database test, close the connection of asgiref's one sync thread.

    App code an async test awaits through `sync_to_async` runs its queries on that thread,
    and nothing closes its connection when no HTTP request ends (websocket turns, services
    called directly): on PostgreSQL the test database then cannot be dropped at the end.
    Only after async tests, which have started that thread already: starting it here would
    leave a process forked later (the browser tests' live servers) with an executor that
    counts a thread the fork did not copy, and its `sync_to_async` calls would never run.
    """
    yield
    if database_requested(request.node, request.fixturenames) and inspect.iscoroutinefunction(
        getattr(request, "function", None)
    ):
        SyncToAsync.single_thread_executor.submit(connections.close_all).result()


@pytest.fixture(scope="session")
def agentmemory_live(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("agentmemory-live")
    offset_file = tmp / "clock-offset"
    offset_file.write_text("0")
    base_url, stop = start_agentmemory_server(tmp, AGENT_MEMORY_CLOCK_OFFSET_FILE=str(offset_file))
    yield LiveMemory(base_url, offset_file)
    stop()


@pytest.fixture
def live_memory(agentmemory_live, settings):
    """Point the app at the live embedded server for this test."""
    from memoryapp.guard import outages

    settings.AGENT_MEMORY_URL = agentmemory_live.base_url
    outages.reset()
    return agentmemory_live


@pytest.fixture
def shopper_name(request):
    """A memory user id unique to the test, so tests sharing one server never meet."""
    import re

    name = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")
    return f"t-{name[:40]}-{id(request) % 10_000}"


def pytest_collection_modifyitems(session, config, items):
    """Mark the database tests, skip PostgreSQL-only ones off PostgreSQL, browser tests first.

    `database` selects what make test runs a second time on PostgreSQL. Browser tests run
    first: their live server is a forked process, and forking after earlier tests have
    started thread pools (sync_to_async, SDK clients) can copy a lock in its held state
    into the child, which then hangs on its first websocket turn.
    """
    on_postgres = postgres_in_use()
    for item in items:
        if item_uses_database(item):
            item.add_marker(pytest.mark.database)
        if item.get_closest_marker("postgres") and not on_postgres:
            item.add_marker(pytest.mark.skip(reason=POSTGRES_ONLY))
    items.sort(key=lambda item: 0 if "tests/browser/" in item.nodeid else 1)


@pytest.fixture(scope="session")
def postgres_server_url() -> str:
    """The PostgreSQL server of make test's PostgreSQL pass, for tests that need databases
    of their own on it (`harness.services.postgres_database_create`)."""
    if not postgres_in_use():
        pytest.skip(POSTGRES_ONLY)
    return os.environ["TEST_DATABASE_URL"]


@pytest.fixture(scope="session")
def redis_server():
    """A throwaway redis-server on loopback for the session (skipped when not installed)."""
    try:
        server = redis_start()
    except ServiceUnavailable as exc:
        pytest.skip(str(exc))
    yield server
    server.stop()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item, call):
    """A failing Hypothesis test is reported as a failure with its example, never as an
    internal error that ends the run: Hypothesis's suggested `@example` patch is left out
    (writing it uses libcst, which fails on a class that zope.interface, Twisted's, marks)."""
    item.__dict__.pop("_hypothesis_failing_examples", None)


def pytest_runtest_logreport(report):
    fault_figures.report_collect(report)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    fault_figures.summary_write(terminalreporter)


@pytest.fixture(autouse=True)
def _settings_restored():
    """Each test leaves Django's settings as it found them.

    A setting changed in place, or an override left enabled, changes every later test in
    the process: a memory timeout of 120 s left behind by a benchmark's helper made the
    slow-server fault test, run later by the same worker, wait past its own bounds.
    """
    from django.conf import settings

    def now() -> dict[str, object]:
        with warnings.catch_warnings():  # reading a deprecated setting warns; only compared
            warnings.simplefilter("ignore")
            return {name: getattr(settings, name) for name in dir(settings) if name.isupper()}

    before = now()
    yield
    after = now()
    changed = sorted(
        name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
    )
    assert not changed, f"this test left Django's settings changed: {', '.join(changed)}"
