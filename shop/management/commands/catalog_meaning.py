from __future__ import annotations

from django.core.management.base import BaseCommand

from shop.meaning import encoder, vectors_store
from shop.models import Product

BATCH = 256


class Command(BaseCommand):
    help = (
        "Compute the vectors the catalog search ranks by meaning with, for every product "
        "that has none or a stale one (after a bulk import; saves keep them up to date)."
    )

    def handle(self, *args, **options) -> None:
        quiet = options.get("verbosity", 1) == 0
        if encoder() is None:
            if not quiet:
                self.stdout.write(
                    "Catalog meaning is off (CATALOG_SEARCH_MEANING=false): nothing to do."
                )
            return
        written = 0
        ids = list(Product.objects.order_by("id").values_list("id", flat=True))
        for start in range(0, len(ids), BATCH):
            written += vectors_store(Product.objects.filter(id__in=ids[start : start + BATCH]))
        if not quiet:
            self.stdout.write(f"Catalog meaning: {written} of {len(ids)} products encoded.")
