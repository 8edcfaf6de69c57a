from __future__ import annotations

from shop.management.seeding import SeedCommand
from shop.services import catalog_seed


class Command(SeedCommand):
    help = (
        "Create the products (and their variants) of the seed that are missing; what exists is "
        "left as people edited it (--reset writes the seed's values back)."
    )
    label = "Catalog"
    edits = "prices, names, stock, ..."
    seed = staticmethod(catalog_seed)
