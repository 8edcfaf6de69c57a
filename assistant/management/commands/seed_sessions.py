"""Write dated past chat sessions into Agent Memory through the live memory policy.

The scenario format is `assistant.records.scenario`'s; writing is
`assistant.records.past_visits`'s, which skips the visits already in memory, so running
this again writes nothing twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.records.past_visits import (
    SEED_TIMEOUT_SECONDS,
    AccountsRefused,
    VisitWriteFailed,
    VisitWritten,
    past_visits_accounts,
    past_visits_write,
)
from assistant.records.scenario import ScenarioInvalid, ShopperVisits, Visit, scenario_load
from memoryapp.public import MemoryUnavailable, ShopperMemory

DEMO_SCENARIO = Path(__file__).resolve().parents[2] / "fixtures" / "demo_sessions.json"


class Command(BaseCommand):
    help = (
        "Write dated past chat sessions for shoppers into Agent Memory through the same memory "
        "policy as live chats (turn blocks, judged facts, closing episodes). FILE is a JSON "
        "scenario; --demo writes the bundled demo visits. Sessions already written by an "
        "earlier run are skipped."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", nargs="?", help="JSON scenario file")
        parser.add_argument(
            "--demo",
            action="store_true",
            help=f"write the bundled demo visits ({DEMO_SCENARIO.name})",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="validate the scenario and its accounts and print what it holds, writing nothing",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=SEED_TIMEOUT_SECONDS,
            help=(
                "seconds each read and each request opening a session may take "
                f"(default {SEED_TIMEOUT_SECONDS:g}; writes take AGENT_MEMORY_WRITE_TIMEOUT_SECONDS)"
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = int(options["verbosity"])
        source = self._source(options)
        try:
            text = source.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {source}: {exc.strerror or exc}") from exc
        try:
            shoppers = scenario_load(text)
        except ScenarioInvalid as exc:
            raise CommandError(
                f"{source} is not a valid scenario:\n" + "\n".join(exc.errors)
            ) from None
        sessions = sum(len(h.sessions) for h in shoppers)
        exchanges = sum(len(v.exchanges) for h in shoppers for v in h.sessions)

        if options["dry_run"]:
            self._accounts(shoppers, source=source, create=False)
            if verbosity >= 1:
                self._describe(shoppers, verbosity)
                self.stdout.write(
                    self.style.SUCCESS(
                        f"Dry run: {source.name} is valid; it holds {sessions} session(s) with "
                        f"{exchanges} exchange(s) for {len(shoppers)} shopper(s). "
                        "Nothing written."
                    )
                )
            return

        if not ShopperMemory.reachable(timeout=options["timeout"]):
            raise CommandError(
                f"Agent Memory at {settings.AGENT_MEMORY_URL} is not answering; "
                "nothing was written. Start it with `python manage.py agentmemory`."
            )
        users = self._accounts(shoppers, source=source, create=True)
        written: list[VisitWritten] = []
        skipped = 0
        for user, shopper in zip(users, shoppers, strict=True):
            try:
                result = past_visits_write(user=user, shopper=shopper, timeout=options["timeout"])
            except MemoryUnavailable as exc:
                raise CommandError(
                    f"{shopper.username}: cannot read their memory ({exc}); nothing written "
                    "for them or after them."
                ) from exc
            except VisitWriteFailed as exc:
                self._report(shopper, exc.written, verbosity)
                raise CommandError(
                    f"{shopper.username}: session {exc.number} of {len(shopper.sessions)} "
                    f"failed ({exc}); it was not kept. Earlier sessions were written."
                ) from exc
            self._report(shopper, result.written, verbosity)
            written += result.written
            skipped += len(result.skipped)
        if verbosity >= 1:
            self.stdout.write(self.style.SUCCESS(self._summary(written, skipped, shoppers)))

    @staticmethod
    def _summary(written: list[VisitWritten], skipped: int, shoppers: list[ShopperVisits]) -> str:
        if not written:
            return (
                f"Nothing to write: all {skipped} session(s) of {len(shoppers)} shopper(s) "
                "are in memory already."
            )
        exchanges = sum(len(w.turn_ids) for w in written)
        facts = sum(len(w.fact_ids) for w in written)
        shopper_count = len(shoppers)
        line = (
            f"Wrote {len(written)} session(s), {exchanges} exchange(s) and {facts} fact(s) "
            f"for {shopper_count} shopper(s)."
        )
        return line + (f" {skipped} session(s) were in memory already." if skipped else "")

    def _accounts(self, shoppers: list[ShopperVisits], *, source: Path, create: bool) -> list:
        try:
            return past_visits_accounts(shoppers=shoppers, create=create)
        except AccountsRefused as exc:
            raise CommandError(
                f"{source} names accounts the demo sign-in refuses; nothing was written:\n"
                + "\n".join(exc.errors)
            ) from None

    def _report(self, shopper: ShopperVisits, written: list[VisitWritten], verbosity: int) -> None:
        if verbosity < 1:
            return
        for visit in written:
            self.stdout.write(
                f"{shopper.username}: {visit.session_id} ({self._visit_label(visit.visit)}): "
                f"{len(visit.turn_ids)} exchange(s), {len(visit.fact_ids)} fact(s)"
                + (", closed" if visit.visit.close else "")
            )

    def _source(self, options: dict[str, Any]) -> Path:
        if options["demo"] and options["file"]:
            raise CommandError("give either FILE or --demo, not both")
        if options["demo"]:
            return DEMO_SCENARIO
        if not options["file"]:
            raise CommandError("give a scenario FILE, or --demo for the bundled visits")
        return Path(options["file"])

    @staticmethod
    def _visit_label(visit: Visit) -> str:
        day = visit.date.isoformat() if visit.date else "today"
        return f"{day}, retention {visit.retention or 'default'}"

    def _describe(self, shoppers: list[ShopperVisits], verbosity: int) -> None:
        for shopper in shoppers:
            name = f" ({shopper.display_name})" if shopper.display_name else ""
            self.stdout.write(f"{shopper.username}{name}: {len(shopper.sessions)} session(s)")
            for visit in shopper.sessions:
                self.stdout.write(
                    f"  {self._visit_label(visit)}: {len(visit.exchanges)} exchange(s)"
                    + (", closed" if visit.close else "")
                )
                if verbosity >= 2:
                    for exchange in visit.exchanges:
                        self.stdout.write(f"    > {exchange.query}")
