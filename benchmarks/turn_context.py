"""Benchmark what the browser's context costs a turn before its first token.

    .venv/bin/python -m benchmarks.turn_context [--runs 40]

A product page is one catalog lookup through the assistant's `get_product` tool; a
signed-out conversation's history is re-read from the catalog, every SKU it names in one
query. Both run before the model is called, so they add to the time to the first token.
For comparison it also times the history's SKUs looked up one by one through the tool.
Uses a throwaway SQLite database with the bundled catalog; needs no memory server.
"""

from __future__ import annotations

import argparse
import asyncio

from benchmarks.support.catalog_timing import catalog_ready, figures, shop_ready, timed

shop_ready(prefix="aisle-bench-context-")

from assistant.protocol.validation import HistoryExchange, PageRequest  # noqa: E402
from assistant.turn.page import history_notes, page_context_build, product_lookup  # noqa: E402
from assistant.turn.tools import vocabulary_load  # noqa: E402
from shop.models import Product  # noqa: E402


async def main(runs: int) -> None:
    skus = await asyncio.to_thread(
        lambda: list(Product.objects.active().values_list("sku", flat=True)[:30])
    )
    vocabulary = await vocabulary_load()
    page = PageRequest(kind="product", sku=skus[0])
    print(f"runs per figure: {runs}")
    samples = await timed(runs, lambda: page_context_build(page=page, vocabulary=vocabulary))
    print(f"{'product page, one lookup':<34}{figures(samples)}")
    for per_exchange in (4, 10):
        history = [
            HistoryExchange(
                user="show me jeans",
                assistant="Here are some.",
                skus=tuple(skus[i * per_exchange : (i + 1) * per_exchange]),
            )
            for i in range(3)
        ]
        samples = await timed(runs, lambda h=history: history_notes(history=h, max_chars=500))
        print(f"{f'history 3 x {per_exchange} SKUs, one query':<34}{figures(samples)}")

        async def one_by_one(h=history):
            for exchange in h:
                for sku in exchange.skus:
                    await product_lookup(sku=sku, vocabulary=vocabulary)

        samples = await timed(runs, one_by_one)
        print(f"{f'history 3 x {per_exchange} SKUs, tool per SKU':<34}{figures(samples)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    catalog_ready()
    asyncio.run(main(args.runs))
