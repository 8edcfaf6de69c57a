"""Which tests touch the shop's database, and whether this run is on PostgreSQL."""

from __future__ import annotations

import os

from django.test import TransactionTestCase

# Fixtures that give a test the shop's database without the django_db mark.
DB_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "admin_client", "admin_user"}

POSTGRES_ONLY = (
    "needs PostgreSQL: runs in make test's PostgreSQL pass "
    "(python -m harness.services postgres -- python -m pytest -m postgres)"
)


def database_requested(node, fixturenames) -> bool:
    """Whether a test asks for the shop's database, by mark or by fixture."""
    return bool(node.get_closest_marker("django_db") or DB_FIXTURES & set(fixturenames))


def item_uses_database(item) -> bool:
    """Whether the test touches the shop's database (not the embedded server's own)."""
    if item.nodeid.startswith("tests/memoryserver/"):
        return False
    if database_requested(item, getattr(item, "fixturenames", ())):
        return True
    cls = getattr(item, "cls", None)
    return cls is not None and issubclass(cls, TransactionTestCase)


def postgres_in_use() -> bool:
    return os.environ.get("TEST_DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
