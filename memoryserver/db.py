"""The database alias that holds the server's tables.

In the server's own process that is `default`. When the shop's test settings run the server
in-process, their router sends the server's models to an alias of their own; asking the
router keeps raw SQL and transactions on the same connection as the ORM.
"""

from __future__ import annotations

from django.db import router

from memoryserver.models import MemoryBlock


def db_alias() -> str:
    return router.db_for_write(MemoryBlock)
