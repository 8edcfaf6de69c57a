"""Benchmark what authorising every websocket frame against the current sign-in costs.

    .venv/bin/python benchmarks/sign_in_check.py [--runs 200]

Before each frame (and before a turn's memory writes) the chat consumer reads the session
from the session store and the user from the user table (`assistant.identity`). This times
that check for a signed-in shopper, and for comparison the product-page lookup a turn on a
product page makes before its first token (one `get_product`). Throwaway SQLite database
with the bundled catalog and Django's database sessions; needs no memory server.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
os.environ["AISLE_VAR_DIR"] = tempfile.mkdtemp(prefix="aisle-bench-sign-in-")
atexit.register(shutil.rmtree, os.environ["AISLE_VAR_DIR"], ignore_errors=True)
os.environ.pop("DATABASE_URL", None)

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from assistant.identity import SocketSignIn, sign_in_check  # noqa: E402
from assistant.page import page_context_build  # noqa: E402
from assistant.tools import vocabulary_load  # noqa: E402
from assistant.validation import PageRequest  # noqa: E402
from shop.models import Product  # noqa: E402
from shop.services import catalog_seed, shopper_get_or_create  # noqa: E402


def _figures(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[max(0, round(len(ordered) * 0.95) - 1)]
    return f"median {statistics.median(ordered):6.2f} ms   p95 {p95:6.2f} ms"


async def _timed(runs: int, call) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def _signed_in() -> SocketSignIn:
    user = shopper_get_or_create(username="bench-ann")
    client = Client()
    client.force_login(user)
    key = client.cookies["sessionid"].value
    return SocketSignIn(session_key=key, user_id=str(user.pk), username=user.username)


async def main(runs: int) -> None:
    sign_in = await asyncio.to_thread(_signed_in)
    check = await sign_in_check(sign_in)
    assert check.ended is None, check  # the check being timed is the one that passes
    print(f"runs per figure: {runs}")
    samples = await _timed(runs, lambda: sign_in_check(sign_in))
    print(f"{'sign-in check, per frame':<34}{_figures(samples)}")
    sku = await asyncio.to_thread(lambda: Product.objects.active().values_list("sku", flat=True)[0])
    vocabulary = await vocabulary_load()
    page = PageRequest(kind="product", sku=sku)
    samples = await _timed(runs, lambda: page_context_build(page=page, vocabulary=vocabulary))
    print(f"{'product page, one lookup':<34}{_figures(samples)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    catalog_seed()
    asyncio.run(main(args.runs))
