"""What the benchmarks of a turn's database work share: the throwaway shop and the timing.

`shop_ready` points Django at a temporary folder (its own SQLite database, never the
shop's), sets Django up, and once `catalog_ready` has run, holds the bundled catalog; no
memory server is needed. `timed` calls an awaitable `runs` times and `figures` prints the
median and p95 of what it measured, so the figures of every such benchmark read alike.

Call `shop_ready` before importing anything of the project's apps.
"""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable


def shop_ready(*, prefix: str) -> None:
    """Django set up on a database of its own in a temporary folder removed at exit."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
    os.environ["AISLE_VAR_DIR"] = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, os.environ["AISLE_VAR_DIR"], ignore_errors=True)
    os.environ.pop("DATABASE_URL", None)

    import django

    django.setup()


def catalog_ready() -> None:
    """The database migrated and the bundled catalog in it."""
    from django.core.management import call_command

    from shop.services import catalog_seed

    call_command("migrate", verbosity=0)
    catalog_seed()


async def timed(runs: int, call: Callable[[], Awaitable[object]]) -> list[float]:
    """Milliseconds each of `runs` awaits of `call()` took, one after another."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def figures(samples: list[float], *, digits: int = 1) -> str:
    ordered = sorted(samples)
    p95 = ordered[max(0, round(len(ordered) * 0.95) - 1)]
    return f"median {statistics.median(ordered):6.{digits}f} ms   p95 {p95:6.{digits}f} ms"
