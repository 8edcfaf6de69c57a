"""Sign-ins under a burst: SQLite writers wait their turn, and a database still too busy
shows a page asking to try again (503), never the 500 page.

The figure for 300 new sign-ins at once is benchmarks/signin_burst.py's (docs/reliability.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import OperationalError
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
@pytest.mark.parametrize("where", ["view", "session"])
def test_a_locked_database_shows_a_retry_page_not_the_500_page(monkeypatch, where):
    from django.contrib.sessions.backends import db as session_db

    from shop import views

    def locked(*args, **kwargs):
        raise OperationalError("database is locked")

    if where == "view":
        monkeypatch.setattr(views, "shopper_get_or_create", locked)
    else:  # the sign-in's own session write, after the view has returned
        monkeypatch.setattr(session_db.SessionStore, "save", locked)
    response = Client(raise_request_exception=False).post("/signin/", {"username": "zed-burst"})
    page = response.content.decode()
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "The shop is busy for a moment" in page and "try again in a few seconds" in page
    assert "Something went wrong on our side" not in page
    assert "database is locked" not in page


@pytest.mark.django_db
def test_a_locked_database_under_the_api_is_a_json_503(monkeypatch):
    from memoryapp import api

    def locked(**kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr(api, "records_list", locked)
    client = Client(raise_request_exception=False)
    client.force_login(get_user_model().objects.get(username="ann"))
    response = client.get("/api/memory/records")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert response.json()["code"] == 503


def test_a_broken_query_is_still_the_500_page(monkeypatch):
    from shop import views

    def broken(*args, **kwargs):
        raise OperationalError("no such column: shop_product.colour")

    monkeypatch.setattr(views, "catalog_search", broken)
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    assert "Something went wrong on our side" in response.content.decode()


# A transaction that reads, then writes while another connection committed in between: with
# SQLite's default (deferred) transactions and WAL the write fails at once with "database is
# locked" (its snapshot is stale); taking the write lock when the transaction begins makes
# the other writer wait its turn instead, and both succeed.
QUEUE_SCRIPT = textwrap.dedent(
    """
    import os, sqlite3, threading
    import django
    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.contrib.auth import get_user_model

    call_command("migrate", verbosity=0)
    User = get_user_model()
    path = settings.DATABASES["default"]["NAME"]
    read_done, outcome = threading.Event(), {}

    def shopper_signs_in():
        try:
            with transaction.atomic():
                User.objects.filter(username__iexact="first").exists()
                read_done.set()
                threading.Event().wait(1.0)  # the other writer comes now
                User.objects.create(username="first")
            outcome["first"] = "ok"
        except Exception as exc:
            read_done.set()
            outcome["first"] = repr(exc)
        finally:
            connection.close()

    worker = threading.Thread(target=shopper_signs_in)
    worker.start()
    read_done.wait(30)
    other = sqlite3.connect(path, timeout=30)
    try:
        other.execute("INSERT INTO auth_user (password, is_superuser, username, first_name,"
                      " last_name, email, is_staff, is_active, date_joined)"
                      " VALUES ('!', 0, 'second', '', '', '', 0, 1, '2026-01-01')")
        other.commit()
        outcome["second"] = "ok"
    except Exception as exc:
        outcome["second"] = repr(exc)
    worker.join(60)
    print(sorted(outcome.items()))
    """
)


@pytest.mark.timeout(120)
def test_two_writers_at_once_both_succeed_with_the_shops_sqlite_settings(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "TEST_DATABASE_URL"}}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "AISLE_VAR_DIR": str(tmp_path),
            "PYTHONPATH": str(ROOT),
        }
    )
    done = subprocess.run(
        [sys.executable, "-c", QUEUE_SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[('first', 'ok'), ('second', 'ok')]"
