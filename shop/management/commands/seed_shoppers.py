from django.core.management.base import BaseCommand

from shop.services import shoppers_seed


class Command(BaseCommand):
    help = "Create the demo shoppers offered on the sign-in page; safe to run again."

    def handle(self, *args, **options):
        result = shoppers_seed()
        if options["verbosity"] > 0:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Demo shoppers: {result.created} created, {result.updated} updated."
                )
            )
