"""Benchmark what authorising every websocket frame against the current sign-in costs.

    .venv/bin/python -m benchmarks.sign_in_check [--runs 200]

Before each frame (and before a turn's memory writes) the chat consumer reads the session
from the session store and the user from the user table (`assistant.protocol.identity`). This times
that check for a signed-in shopper, and for comparison the product-page lookup a turn on a
product page makes before its first token (one `get_product`). Throwaway SQLite database
with the bundled catalog and Django's database sessions; needs no memory server.
"""

from __future__ import annotations

import argparse
import asyncio

from benchmarks.support.catalog_timing import catalog_ready, figures, shop_ready, timed

shop_ready(prefix="aisle-bench-sign-in-")

from django.test import Client  # noqa: E402

from assistant.protocol.identity import SocketSignIn, sign_in_check  # noqa: E402
from assistant.protocol.validation import PageRequest  # noqa: E402
from assistant.turn.page import page_context_build  # noqa: E402
from assistant.turn.tools import vocabulary_load  # noqa: E402
from shop.models import Product  # noqa: E402
from shop.services import shopper_get_or_create  # noqa: E402


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
    samples = await timed(runs, lambda: sign_in_check(sign_in))
    print(f"{'sign-in check, per frame':<34}{figures(samples, digits=2)}")
    sku = await asyncio.to_thread(lambda: Product.objects.active().values_list("sku", flat=True)[0])
    vocabulary = await vocabulary_load()
    page = PageRequest(kind="product", sku=sku)
    samples = await timed(runs, lambda: page_context_build(page=page, vocabulary=vocabulary))
    print(f"{'product page, one lookup':<34}{figures(samples, digits=2)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    catalog_ready()
    asyncio.run(main(args.runs))
