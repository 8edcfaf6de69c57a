"""Forget a shopper: their Agent Memory user and every chat record kept about them."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from assistant.records.shoppers import shopper_chat_sessions_count, shopper_forget
from memoryapp.public import MemoryUnavailable
from shop.services import username_folded


def shopper_named(typed: str) -> Any:
    """The account a typed name stands for: names ignore case, as at the sign-in.

    The shop stores names folded ("Tessa" signs in as "tessa"), so the folded name is tried
    first, then the name as typed; an account named in another case (createsuperuser's
    "Boss") is found in any case when only one matches. Raises CommandError otherwise.
    """
    User = get_user_model()
    typed = typed.strip()
    for candidate in dict.fromkeys([username_folded(typed), typed]):
        user = User.objects.filter(username=candidate).first()
        if user is not None:
            return user
    matches = list(User.objects.filter(username__iexact=typed)[:5])
    if len(matches) == 1:
        return matches[0]
    if matches:
        names = ", ".join(repr(u.username) for u in matches)
        raise CommandError(
            f"Several accounts are named {typed!r} in some letter case: {names}; "
            "give the exact one."
        )
    raise CommandError(f"No shopper named {typed!r}.")


class Command(BaseCommand):
    help = (
        "Forget a shopper: delete their Agent Memory user (every session, turn, fact and "
        "episode) and their chat session and turn records, exactly as the admin's erase "
        "does; their open chat panels are told. Asks for confirmation unless --yes."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "username", help="the shopper's username, in any case (their memory user id)"
        )
        parser.add_argument(
            "--yes", action="store_true", help="do not ask for confirmation (for scripts)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = int(options["verbosity"])
        user = shopper_named(options["username"])
        username = user.get_username()
        if not options["yes"]:
            sessions = shopper_chat_sessions_count(user=user)
            self.stdout.write(
                f"This permanently deletes everything Aisle remembers about {username}: their "
                f"Agent Memory user and {sessions} chat session record(s) with their turns."
            )
            answer = input("Type 'yes' to continue: ").strip().lower()
            if answer not in {"y", "yes"}:
                self.stdout.write("Nothing deleted.")
                return
        try:
            forgotten = shopper_forget(user=user)
        except MemoryUnavailable as exc:
            raise CommandError(
                f"Could not erase {username}'s memory ({exc}); nothing was deleted, their chat "
                "records were kept. Is the Agent Memory server running?"
            ) from exc
        if verbosity >= 1:
            memory = (
                "memory user deleted"
                if forgotten.had_memory
                else "no memory user (nothing remembered)"
            )
            self.stdout.write(
                self.style.SUCCESS(
                    f"Forgot {username}: {memory}; {forgotten.chat_sessions} chat session(s) "
                    f"and {forgotten.chat_turns} turn(s) deleted."
                )
            )
