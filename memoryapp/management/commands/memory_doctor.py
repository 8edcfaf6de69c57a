"""Check the Agent Memory configuration, every server component, and a real round trip."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

import httpx
from agentmemory import AgentMemoryClient
from agentmemory.exceptions import AuthenticationError, NotFoundError
from agentmemory.resources.health import ALL_ENTITIES, HealthEntity
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoryapp.blocks import FACT
from memoryapp.clients import memory_client_sync
from memoryapp.guard import MEMORY_ERRORS

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "0.0.0.0"}
OK, FAIL = "✔", "✘"


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def start_command() -> str | None:
    """The command that starts the embedded server where AGENT_MEMORY_URL points, or None
    when that is not a local address (nothing here can start it)."""
    parts = urlsplit(settings.AGENT_MEMORY_URL)
    if (parts.hostname or "") not in LOCAL_HOSTS:
        return None
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = parts.hostname if parts.hostname != "localhost" else "127.0.0.1"
    return f"python manage.py agentmemory --host {host} --port {port}"


def memory_config() -> list[tuple[str, str]]:
    """The settings that decide where memory lives and how long a call may take."""
    from llm.factory import model_mode

    command = start_command()
    where = (
        f"embedded (local address: `{command}`, started by `make run`)"
        if command
        else "external server"
    )
    mode = model_mode()
    return [
        ("AGENT_MEMORY_URL", settings.AGENT_MEMORY_URL),
        ("AGENT_MEMORY_TOKEN", _token_state()),
        ("AGENT_MEMORY_TIMEOUT_SECONDS", f"{settings.AGENT_MEMORY_TIMEOUT_SECONDS:g}"),
        ("server", where),
        (
            "model",
            "offline model (no OPENAI_API_KEY)"
            if mode == "offline"
            else f"OpenAI-compatible ({settings.OPENAI_BASE_URL or 'api.openai.com'}), "
            f"judge {settings.JUDGE_MODEL}",
        ),
    ]


def _token_state() -> str:
    if not settings.AGENT_MEMORY_TOKEN:
        return "not set"
    if settings.AGENT_MEMORY_TOKEN_SOURCE == "file":
        return f"set (from {settings.AGENT_MEMORY_TOKEN_FILE})"
    return "set (environment)"


def auth_check(client: AgentMemoryClient) -> Check:
    """Whether the server lets this app in, and whether it lets in a caller without a token."""
    probe = f"doctor-auth-{secrets.token_hex(4)}"
    try:
        client.get_user(probe)
    except NotFoundError:
        pass  # past the door: the user just does not exist
    except AuthenticationError as exc:
        if not settings.AGENT_MEMORY_TOKEN:
            return Check(
                "auth", False, "the server wants a token and AGENT_MEMORY_TOKEN is not set"
            )
        return Check("auth", False, f"the server refuses the token ({exc.error_code or exc})")
    if not settings.AGENT_MEMORY_TOKEN:
        return Check("auth", True, "no token; the server accepts requests without one")
    try:
        # A bare request, not the SDK: the question is what a caller without a token gets.
        bare = httpx.get(f"{settings.AGENT_MEMORY_URL}/users/{probe}", timeout=5.0)
    except httpx.HTTPError as exc:
        return Check("auth", True, f"token accepted (tokenless probe failed: {exc})")
    if bare.status_code == 401:
        return Check("auth", True, "token accepted; requests without it are refused")
    return Check("auth", True, "token accepted, but the server also accepts requests without one")


def _entity_label(entity: str, result: Any) -> str:
    """Name a component by what the server says it is.

    The SDK calls the database route `couchbase`, after the real server's store; the
    embedded server answers it too, for its SQLite file, and says so in `backend`.
    """
    if entity != "couchbase":
        return entity
    if not isinstance(result.couchbase, dict):
        return "database"  # no answer: nothing says what it is
    return f"database ({result.couchbase.get('backend') or 'couchbase'})"


def _entity_status(entity: str, result: Any) -> tuple[bool, str]:
    if entity not in (result.checked_entities or []):
        return False, "no answer"
    value = getattr(result, entity.replace("-", "_"), None)
    if value is None:
        return False, "no answer"
    if entity == "models":
        embedding, llm = value.embedding, value.llm
        return (
            embedding.status == "healthy" and llm.status == "healthy",
            f"embedding {embedding.model or '?'} {embedding.status}, "
            f"llm {llm.model or '?'} {llm.status}",
        )
    status = value.get("status") if isinstance(value, dict) else getattr(value, "status", None)
    status = str(getattr(status, "value", status))
    # As the SDK judges it: optional components may be switched off ("not_initialized").
    required = entity in {"server", "couchbase"}
    ok = status == "healthy" or (not required and status == "not_initialized")
    if entity == "couchbase" and isinstance(value, dict) and value.get("database"):
        return ok, f"{status}, {value['database']}"
    return ok, status


def health_checks(client: AgentMemoryClient) -> list[Check]:
    """One health ping per component, so each reports on its own line."""
    checks = []
    for entity in ALL_ENTITIES:
        # The SDK lists its entities as plain strings; each is one of HealthEntity's.
        result = client.health_ping(cast(HealthEntity, entity))
        ok, detail = _entity_status(entity, result)
        checks.append(Check(f"health: {_entity_label(entity, result)}", ok, detail))
    return checks


def round_trip(client: AgentMemoryClient) -> list[Check]:
    """Write a fact under a throwaway user, find it again, delete the user."""
    user_id = f"doctor-{secrets.token_hex(4)}"
    probe = f"Memory doctor probe {secrets.token_hex(3)}: the shopper likes olive."
    checks: list[Check] = []

    def step(name: str, call: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        try:
            value = call()
        except MEMORY_ERRORS as exc:
            checks.append(Check(name, False, f"{type(exc).__name__}: {exc}"))
            raise
        checks.append(Check(name, True, f"{(time.perf_counter() - started) * 1000:.0f} ms"))
        return value

    try:
        user = step(f"create user {user_id}", lambda: client.create_user(user_id, "Memory doctor"))
        session = step(
            "create session",
            lambda: user.create_session(
                "session1", metadata={"purpose": "memory_doctor"}, memory_blocks_ttl=600
            ),
        )
        added = step(
            "write a fact",
            lambda: session.add_memory(
                facts=[probe],
                annotations=FACT,
                async_processing=False,
                context_required=False,
            ),
        )
        found = step(
            "search it back",
            lambda: session.search_memory(
                query=probe, filters={"session_ids": "all", "relevant_k": 5}
            ),
        )
        hit = any(b.block_id in added.block_ids and b.fact == probe for b in found.memory_blocks)
        if not hit:
            checks[-1] = Check("search it back", False, "the fact just written was not found")
    except MEMORY_ERRORS:
        pass
    finally:
        started = time.perf_counter()
        try:
            client.delete_user(user_id)
            checks.append(
                Check(
                    "delete the user",
                    True,
                    f"{(time.perf_counter() - started) * 1000:.0f} ms",
                )
            )
        except NotFoundError:
            pass  # never created: the failure above already says why
        except MEMORY_ERRORS as exc:
            checks.append(Check("delete the user", False, f"{type(exc).__name__}: {exc}"))
    return checks


class Command(BaseCommand):
    help = (
        "Check Agent Memory: print the configuration, ping every server component, and write, "
        "read back and delete a fact under a throwaway user. Exits non-zero when unhealthy."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--timeout",
            type=float,
            default=None,
            help="seconds per request (default AGENT_MEMORY_TIMEOUT_SECONDS, at least 5)",
        )
        parser.add_argument(
            "--skip-round-trip",
            action="store_true",
            help="only ping the components; write nothing",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        self.verbosity = int(options["verbosity"])
        if self.verbosity >= 1:
            self.stdout.write("Configuration")
            for name, value in memory_config():
                self.stdout.write(f"  {name:<30} {value}")
        timeout = options["timeout"] or max(5.0, settings.AGENT_MEMORY_TIMEOUT_SECONDS)
        trip: list[Check] = []
        with memory_client_sync(timeout=timeout) as client:
            health = health_checks(client)
            reachable = any(c.ok for c in health)
            if reachable:
                health.append(auth_check(client))
            if not options["skip_round_trip"] and reachable:
                trip = round_trip(client)
        self._report("Health", health)
        self._report("Round trip (throwaway user, deleted afterwards)", trip)
        checks = health + trip
        failed = [c for c in checks if not c.ok]
        if not reachable:
            command = start_command()
            advice = (
                f"Start it with `{command}` (or `make run`), or fix AGENT_MEMORY_URL."
                if command
                else "Check that server, or fix AGENT_MEMORY_URL (a local address runs the "
                "embedded server)."
            )
            raise CommandError(
                f"Agent Memory at {settings.AGENT_MEMORY_URL} does not answer. {advice}",
                returncode=2,
            )
        if failed:
            raise CommandError(
                f"Agent Memory is unhealthy: {len(failed)} check(s) failed "
                f"({', '.join(c.name for c in failed)}).",
                returncode=2,
            )
        if self.verbosity >= 1:
            self.stdout.write(
                self.style.SUCCESS(f"Agent Memory is healthy ({len(checks)} checks).")
            )

    def _report(self, title: str, checks: list[Check]) -> None:
        shown = [c for c in checks if self.verbosity >= 1 or not c.ok]
        if not shown:
            return
        self.stdout.write(title)
        for check in shown:
            line = f"  {OK if check.ok else FAIL} {check.name}: {check.detail}"
            self.stdout.write(self.style.SUCCESS(line) if check.ok else self.style.ERROR(line))
