"""What the seed commands share: create what is missing, leave what people edited."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandParser


class SeedCommand(BaseCommand):
    """A seed command: `seed(reset=...)` returns counts of created, updated and kept rows."""

    label: str  # "Catalog", "Demo shoppers"
    edits: str  # what --reset writes back over
    seed: Callable[..., Any]

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--reset",
            action="store_true",
            help=f"restore the seed's values over edits made since ({self.edits})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        reset = options["reset"]
        result = self.seed(reset=reset)
        if options["verbosity"] > 0:
            kept = (
                ""
                if not result.kept
                else f", {result.kept} as seeded already"
                if reset
                else f", {result.kept} left as they are (--reset restores the seed)"
            )
            restored = f", {result.updated} restored to the seed" if reset else ""
            summary = f" In all: {result.summary}." if result.summary else ""
            self.stdout.write(
                self.style.SUCCESS(
                    f"{self.label}: {result.created} created{restored}{kept}.{summary}"
                )
            )
