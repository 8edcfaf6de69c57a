"""Benchmark the catalog search with free words, as the page and the assistant run it.

    .venv/bin/python -m benchmarks.catalog_search [--products 10000] [--runs 200]

Grows the bundled catalog to --products active products (copies of the bundled ones with
varied names, each with its variants), then times `products_page` (what the search tool
and, less the paging, the catalog page call): words alone, words with structured filters,
words that find nothing (the alternatives' second search included), and filters alone as
the baseline. SQLite (the default profile) on a temporary database; p50 and p95 over
--runs searches of each kind, ranked by words alone and then by words and meaning (the
default: MiniLM, every product's vector computed first, as `catalog_meaning` does, and
every query encoded afresh as a new shopper's would be).
"""

from __future__ import annotations

import argparse
import itertools
import time

from benchmarks.support.catalog_timing import catalog_ready, figures, shop_ready

KINDS = {
    "words": [{"query": q} for q in ("quilted", "chelsea boots", "linen summer", "waterproof")],
    "words + filters": [
        {"query": "waterproof", "category": "boots", "size": "42"},
        {"query": "pleated", "max_price": 80},
        {"query": "relaxed linen", "category": "shirts", "colour": "white"},
    ],
    "words finding none": [
        {"query": "quilted", "category": "boots"},
        {"query": "sequinned", "category": "dresses"},
    ],
    "filters only": [{"category": "jackets", "size": "M"}, {"colour": "navy", "max_price": 60}],
}
ADJECTIVES = "Classic Modern Everyday Field Coastal Urban Alpine Harbour Studio Weekend".split()


def catalog_grow(target: int) -> int:
    """Copy the bundled products under new names and SKUs until there are `target`."""
    from django.db import transaction

    from shop.models import Product, Variant

    originals = list(Product.objects.filter(active=True).prefetch_related("variants"))
    count = Product.objects.filter(active=True).count()
    serial = itertools.count(1)
    with transaction.atomic():
        while count < target:
            batch, variants = [], []
            for product in originals[: min(len(originals), target - count)]:
                n = next(serial)
                adjective = ADJECTIVES[n % len(ADJECTIVES)]
                batch.append(
                    Product(
                        sku=f"ZZ-{n:06d}",
                        name=f"{adjective} {product.name}",
                        slug=f"{product.slug}-zz-{n:06d}",
                        category=product.category,
                        brand=product.brand,
                        description=product.description,
                        colour=product.colour,
                        price=product.price,
                    )
                )
                variants.append(list(product.variants.all()))
            created = Product.objects.bulk_create(batch)
            Variant.objects.bulk_create(
                Variant(
                    product=copy,
                    sku=f"{copy.sku}-{i}",
                    colour=v.colour,
                    size=v.size,
                    stock=v.stock,
                )
                for copy, source in zip(created, variants, strict=True)
                for i, v in enumerate(source)
            )
            count += len(batch)
    return count


def timed(runs: int, call) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--products", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()

    shop_ready(prefix="aisle-bench-catalog-")
    catalog_ready()
    from django.conf import settings
    from django.core.management import call_command

    from shop import meaning
    from shop.selectors import CatalogFilters, products_page

    started = time.perf_counter()
    total = catalog_grow(args.products)
    print(f"{total} active products (grown in {time.perf_counter() - started:.1f} s), SQLite")
    encoder = settings.CATALOG_MEANING_ENCODER
    started = time.perf_counter()
    call_command("catalog_meaning", verbosity=0)
    print(f"every product's meaning computed in {time.perf_counter() - started:.1f} s")
    for ranked_by, path in (("words", ""), ("words + meaning", encoder)):
        settings.CATALOG_MEANING_ENCODER = path
        meaning.meaning_reset()
        print(f"ranked by {ranked_by}:")
        for kind, searches in KINDS.items():
            cycle = itertools.cycle(searches)

            def one() -> None:
                meaning._queries.clear()  # a new shopper's words: no cached query vector
                products_page(filters=CatalogFilters(**next(cycle)), limit=4)  # noqa: B023

            timed(5, one)  # warm the caches
            print(f"  {kind:<20} {figures(timed(args.runs, one))}")


if __name__ == "__main__":
    main()
