from __future__ import annotations

from shop.management.seeding import SeedCommand
from shop.services import shoppers_seed


class Command(SeedCommand):
    help = (
        "Create the demo shoppers of the seed that are missing; what exists is left as "
        "people edited it (--reset writes the seed's values back)."
    )
    label = "Demo shoppers"
    edits = "display names, blurbs, listing"
    seed = staticmethod(shoppers_seed)
