"""On PostgreSQL the shop's ORM calls share a pool of checked connections.

Every ORM call of a turn runs the way Channels runs it (`database_sync_to_async`): the
connection is released around the call. Without a pool, each release closed a backend
and the next call started a new one (~14 a turn); with it, the calls take turns on a few
open ones, and one the server closed meanwhile is replaced before a query meets it.
"""

from __future__ import annotations

import psycopg
import pytest
from django.conf import settings
from django.db import close_old_connections, connection

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _backend_of_one_call() -> int:
    close_old_connections()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return cursor.fetchone()[0]
    finally:
        close_old_connections()


def test_orm_calls_take_turns_on_a_few_open_backends():
    backends = {_backend_of_one_call() for _ in range(30)}
    assert len(backends) <= settings.DATABASE_POOL_MAX_SIZE, backends


def test_a_connection_the_server_closed_is_replaced_before_a_query_meets_it():
    before = {_backend_of_one_call() for _ in range(4)}
    params = connection.get_connection_params()
    with psycopg.connect(
        **{k: v for k, v in params.items() if k in {"dbname", "user", "host", "port", "password"}},
        autocommit=True,
    ) as admin:
        # The pool's own connections, closed by the server as a restart or an idle
        # timeout would; no other session of the test database is touched.
        terminated = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid = ANY(%s)",
            [list(before)],
        ).fetchone()[0]
    assert terminated == len(before)
    after = {_backend_of_one_call() for _ in range(4)}
    assert after and not after & before
