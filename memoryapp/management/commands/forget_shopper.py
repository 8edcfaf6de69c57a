"""Forget a shopper: their Agent Memory user and every chat record kept about them."""

from __future__ import annotations

from typing import Any

from agentmemory.exceptions import NotFoundError
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.db.models import Count

from memoryapp.clients import memory_client_sync
from memoryapp.guard import MEMORY_ERRORS


def shopper_memory_forget(*, username: str) -> bool:
    """Delete the shopper's Agent Memory user with everything in it.

    Returns False when there was nothing to delete. Memory errors propagate (MEMORY_ERRORS):
    the caller must keep its own records when the memory could not be erased.
    """
    with memory_client_sync() as client:
        try:
            client.delete_user(username)
        except NotFoundError:
            return False
    return True


@transaction.atomic
def shopper_chat_records_delete(*, user: Any) -> tuple[int, int]:
    """Delete the shopper's chat sessions and their turns; return (sessions, turns)."""
    sessions = user.chat_sessions.all()
    counts = sessions.aggregate(sessions=Count("pk", distinct=True), turns=Count("turns"))
    sessions.delete()  # turns cascade
    return counts["sessions"], counts["turns"]


class Command(BaseCommand):
    help = (
        "Forget a shopper: delete their Agent Memory user (every session, turn, fact and "
        "episode) and their chat session and turn records. Asks for confirmation unless --yes."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", help="the shopper's username (their memory user id)")
        parser.add_argument(
            "--yes", action="store_true", help="do not ask for confirmation (for scripts)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = int(options["verbosity"])
        username: str = options["username"].strip()
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No shopper named {username!r}.")
        sessions = user.chat_sessions.count()
        if not options["yes"]:
            self.stdout.write(
                f"This permanently deletes everything Aisle remembers about {username}: their "
                f"Agent Memory user and {sessions} chat session record(s) with their turns."
            )
            answer = input("Type 'yes' to continue: ").strip().lower()
            if answer not in {"y", "yes"}:
                self.stdout.write("Nothing deleted.")
                return
        try:
            had_memory = shopper_memory_forget(username=username)
        except MEMORY_ERRORS as exc:
            raise CommandError(
                f"Could not erase {username}'s memory ({type(exc).__name__}: {exc}); their "
                "chat records were kept. Is the Agent Memory server running?"
            ) from exc
        deleted_sessions, deleted_turns = shopper_chat_records_delete(user=user)
        if verbosity >= 1:
            memory = "memory user deleted" if had_memory else "no memory user (nothing remembered)"
            self.stdout.write(
                self.style.SUCCESS(
                    f"Forgot {username}: {memory}; {deleted_sessions} chat session(s) and "
                    f"{deleted_turns} turn(s) deleted."
                )
            )
