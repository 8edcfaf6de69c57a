from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from shop.services import catalog_seed


class Command(BaseCommand):
    help = (
        "Create the products (and their variants) of the seed that are missing; what exists is left as "
        "people edited it (--reset writes the seed's values back)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--reset",
            action="store_true",
            help="restore the seed's values over edits made since (prices, names, stock, ...)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        result = catalog_seed(reset=options["reset"])
        if options["verbosity"] > 0:
            kept = (
                ""
                if not result.kept
                else f", {result.kept} as seeded already"
                if options["reset"]
                else f", {result.kept} left as they are (--reset restores the seed)"
            )
            restored = f", {result.updated} restored to the seed" if options["reset"] else ""
            self.stdout.write(
                self.style.SUCCESS(f"Catalog: {result.created} created{restored}{kept}.")
            )
