"""Fixtures shared by the whole suite."""

from __future__ import annotations

import pytest

from shop.services import catalog_seed, shoppers_seed


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Load the bundled catalog and demo shoppers once; each test rolls back its own writes."""
    with django_db_blocker.unblock():
        catalog_seed()
        shoppers_seed()
