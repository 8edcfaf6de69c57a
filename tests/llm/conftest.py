"""Fixtures for the model-facing tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def catalog(django_db_setup, django_db_blocker):
    """The bundled catalog, committed, readable from the tools' worker threads.

    The tools read the catalog through `sync_to_async`, on another thread and connection
    than the test, so it must be committed; these tests only read it, so one load serves a
    whole module instead of a flush and reload per test. Tests using it still carry the
    `django_db` mark: pytest-django creates the test database only for suites that ask.
    """
    from shop.models import Product
    from shop.services import catalog_seed, shoppers_seed

    with django_db_blocker.unblock():
        # The same load as the suite's autouse fixture, which later tests then rely on.
        if not Product.objects.exists():
            catalog_seed()
            shoppers_seed()
        yield
