from django.core.management.base import BaseCommand

from shop.services import catalog_seed


class Command(BaseCommand):
    help = "Load the bundled catalog (products and variants); safe to run again."

    def handle(self, *args, **options):
        result = catalog_seed()
        if options["verbosity"] > 0:
            self.stdout.write(
                self.style.SUCCESS(f"Catalog: {result.created} created, {result.updated} updated.")
            )
