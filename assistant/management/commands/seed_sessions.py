"""Write dated past chat sessions into Agent Memory through the live memory policy.

A scenario is a JSON list of shoppers:

    [{"username": "ann", "display_name": "Ann",
      "sessions": [{"date": "2026-04-12", "retention": null, "close": true,
                    "exchanges": [{"query": "...", "answer": "..."}]}]}]

Every exchange goes through the same calls as a live chat (session_open with the date and
retention, exchange_remember for the turn block and the judged facts, session_close for the
episode), so seeded blocks carry the same annotations, TTLs, created_at and facts.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q
from django.test.utils import override_settings
from django.utils import timezone

from memoryapp.clients import memory_client_async, memory_health_status
from memoryapp.conf import RETENTION_PRESETS, memory_conf, retention_preset_for
from memoryapp.guard import MEMORY_ERRORS
from memoryapp.services import exchange_remember, session_close, session_open
from memoryapp.types import MemoryUnavailable
from shop.services import USERNAME_RE, SignInRefused, shopper_get_or_create

DEMO_SCENARIO = Path(__file__).resolve().parents[2] / "fixtures" / "demo_sessions.json"
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_QUERY_CHARS = 4000
SHOPPER_KEYS = {"username", "display_name", "sessions"}
SESSION_KEYS = {"date", "retention", "exchanges", "close"}
EXCHANGE_KEYS = {"query", "answer"}
# A seed run is not a shopper's turn: a cold server may take longer than the chat path's
# one-second budget, and a timed-out write here would lose part of a history.
SEED_TIMEOUT_SECONDS = 10.0


# --- Scenario model and validation ----------------------------------------------------


@dataclass(frozen=True)
class Exchange:
    query: str
    answer: str


@dataclass(frozen=True)
class ScenarioSession:
    date: date | None
    retention: str | None
    exchanges: list[Exchange]
    close: bool


@dataclass(frozen=True)
class ScenarioShopper:
    username: str
    display_name: str | None
    sessions: list[ScenarioSession]


class ScenarioInvalid(Exception):
    """The scenario file is malformed; `errors` are "line N: path: problem" strings."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


JsonPath = tuple[str | int, ...]


def _path_text(path: JsonPath) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(top level)"


def json_value_lines(text: str) -> dict[JsonPath, int]:
    """Map the path of every value in a valid JSON document to the line it starts on."""
    newlines = [i for i, ch in enumerate(text) if ch == "\n"]
    decoder = json.JSONDecoder()
    spaces = re.compile(r"[ \t\n\r]*")
    lines: dict[JsonPath, int] = {}

    def skip(i: int) -> int:
        return spaces.match(text, i).end()

    def value(i: int, path: JsonPath) -> int:
        i = skip(i)
        lines[path] = bisect.bisect_right(newlines, i - 1) + 1
        opener = text[i]
        if opener not in "{[":
            _, end = decoder.raw_decode(text, i)
            return end
        closer = "}" if opener == "{" else "]"
        i = skip(i + 1)
        if text[i] == closer:
            return i + 1
        index = 0
        while True:
            if opener == "{":
                key, i = json.decoder.scanstring(text, skip(i) + 1)
                i = skip(i) + 1  # the colon
                i = value(i, (*path, key))
            else:
                i = value(i, (*path, index))
                index += 1
            i = skip(i)
            if text[i] == closer:
                return i + 1
            i += 1  # the comma

    value(0, ())
    return lines


class _Checker:
    """Collect every problem in the file, each with the line of the offending value."""

    def __init__(self, lines: dict[JsonPath, int]) -> None:
        self.lines = lines
        self.problems: list[tuple[int, str]] = []

    def fail(self, path: JsonPath, problem: str) -> None:
        line = self.lines.get(path)
        while line is None and path:
            path_up = path[:-1]
            line = self.lines.get(path_up)
            if line is not None:
                break
            path = path_up
        line = line or 1
        self.problems.append((line, f"line {line}: {_path_text(path)}: {problem}"))

    @property
    def errors(self) -> list[str]:
        return [text for _, text in sorted(self.problems, key=lambda p: p[0])]

    def keys(self, data: dict, allowed: set[str], required: set[str], path: JsonPath) -> None:
        for key in sorted(set(data) - allowed):
            self.fail((*path, key), f"unknown key {key!r} (expected {', '.join(sorted(allowed))})")
        for key in sorted(required - set(data)):
            self.fail(path, f"missing {key!r}")

    def text(self, data: dict, key: str, path: JsonPath, *, max_chars: int | None = None) -> str:
        if key not in data:
            return ""  # reported as missing by keys()
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            self.fail((*path, key), f"{json.dumps(value)} is not a non-blank string")
            return ""
        if max_chars is not None and len(value) > max_chars:
            self.fail((*path, key), f"longer than {max_chars} characters")
        return value

    def array(self, data: Any, path: JsonPath, what: str) -> list:
        if not isinstance(data, list) or not data:
            self.fail(path, f"expected a non-empty list of {what}")
            return []
        return data

    def obj(self, data: Any, path: JsonPath, what: str) -> dict | None:
        if not isinstance(data, dict):
            self.fail(path, f"expected {what} (a JSON object), got {json.dumps(data)[:40]}")
            return None
        return data


def _session_check(check: _Checker, data: Any, path: JsonPath) -> ScenarioSession | None:
    data = check.obj(data, path, "a session")
    if data is None:
        return None
    check.keys(data, SESSION_KEYS, {"exchanges"}, path)
    session_date = None
    raw_date = data.get("date")
    if raw_date is not None:
        try:
            if not isinstance(raw_date, str) or not DATE_RE.match(raw_date):
                raise ValueError
            session_date = date.fromisoformat(raw_date)
        except ValueError:
            check.fail((*path, "date"), f"{raw_date} is not a date YYYY-MM-DD")
    retention = data.get("retention")
    if retention is not None and retention not in RETENTION_PRESETS:
        check.fail(
            (*path, "retention"),
            f"{json.dumps(retention)} is not a retention preset "
            f"({', '.join(RETENTION_PRESETS)} or null)",
        )
    close = data.get("close", False)
    if not isinstance(close, bool):
        check.fail((*path, "close"), f"{json.dumps(close)} is not true or false")
    exchanges = []
    for i, raw in enumerate(check.array(data.get("exchanges"), (*path, "exchanges"), "exchanges")):
        at = (*path, "exchanges", i)
        exchange = check.obj(raw, at, "an exchange")
        if exchange is None:
            continue
        check.keys(exchange, EXCHANGE_KEYS, EXCHANGE_KEYS, at)
        query = check.text(exchange, "query", at, max_chars=MAX_QUERY_CHARS)
        answer = check.text(exchange, "answer", at)
        exchanges.append(Exchange(query=query, answer=answer))
    return ScenarioSession(
        date=session_date, retention=retention, exchanges=exchanges, close=close is True
    )


def _shopper_check(check: _Checker, data: Any, path: JsonPath) -> ScenarioShopper | None:
    data = check.obj(data, path, "a shopper")
    if data is None:
        return None
    check.keys(data, SHOPPER_KEYS, {"username", "sessions"}, path)
    username = data.get("username")
    if not isinstance(username, str) or not USERNAME_RE.match(username):
        check.fail(
            (*path, "username"),
            f"{json.dumps(username)} is not a username (3 to 30 of a-z, 0-9, '-' and '_')",
        )
    elif (
        get_user_model()
        .objects.filter(Q(is_staff=True) | Q(is_superuser=True), username=username)
        .exists()
    ):
        check.fail((*path, "username"), f"{username} belongs to a staff account")
    display_name = data.get("display_name")
    if display_name is not None:
        display_name = check.text(data, "display_name", path, max_chars=60) or None
    sessions = [
        _session_check(check, raw, (*path, "sessions", i))
        for i, raw in enumerate(check.array(data.get("sessions"), (*path, "sessions"), "sessions"))
    ]
    return ScenarioShopper(
        username=username if isinstance(username, str) else "",
        display_name=display_name,
        sessions=[s for s in sessions if s is not None],
    )


def scenario_parse(text: str) -> list[ScenarioShopper]:
    """Validate a whole scenario before anything is written. Raises ScenarioInvalid."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioInvalid([f"line {exc.lineno}: not valid JSON: {exc.msg}"]) from exc
    check = _Checker(json_value_lines(text))
    shoppers = [
        _shopper_check(check, raw, (i,)) for i, raw in enumerate(check.array(data, (), "shoppers"))
    ]
    if check.errors:
        raise ScenarioInvalid(check.errors)
    return [s for s in shoppers if s is not None]


# --- Writing ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionWritten:
    session_id: str
    turn_ids: list[list[str]]
    fact_ids: list[str]
    episode_id: str | None


class SessionWriteFailed(Exception):
    """The memory server failed part-way; the session's partial blocks were removed."""


async def _session_discard(username: str, session_id: str) -> None:
    """Best effort: remove a half-written session so a retry starts clean."""
    try:
        user = await memory_client_async().get_user(username)
        await (await user.get_session(session_id)).delete()
    except MEMORY_ERRORS:  # the server is already failing; the caller's error says so
        pass


async def _session_write(
    *, username: str, display_name: str, session: ScenarioSession
) -> SessionWritten:
    try:
        memory = await session_open(
            username=username,
            display_name=display_name,
            session_id=None,
            session_date=session.date,
            retention=session.retention,
        )
    except MemoryUnavailable as exc:
        raise SessionWriteFailed(f"could not open a session: {exc}") from exc
    turn_ids: list[list[str]] = []
    fact_ids: list[str] = []
    try:
        for number, exchange in enumerate(session.exchanges, start=1):
            saved = await exchange_remember(
                memory=memory, query=exchange.query, answer=exchange.answer
            )
            if not saved["turn"]:
                raise SessionWriteFailed(f"exchange {number} was not stored")
            turn_ids.append(saved["turn"])
            fact_ids += saved["fact"]
        episode_id = None
        if session.close:
            episode_id = await session_close(
                username=username, display_name=display_name, session_id=memory.session_id
            )
    except SessionWriteFailed:
        await _session_discard(username, memory.session_id)
        raise
    finally:
        await memory_client_async().close()
    return SessionWritten(
        session_id=memory.session_id, turn_ids=turn_ids, fact_ids=fact_ids, episode_id=episode_id
    )


def _chat_records_write(*, user: Any, session: ScenarioSession, written: SessionWritten) -> None:
    """Mirror the seeded visit in the chat records staff browse in the admin."""
    retention_seconds = memory_conf().retention_seconds(session.retention)
    user.chat_sessions.filter(memory_session_id=written.session_id).delete()  # a stale row
    chat_session = user.chat_sessions.create(
        memory_session_id=written.session_id,
        session_date=session.date,
        retention=retention_preset_for(retention_seconds) or (session.retention or "default"),
        retention_seconds=retention_seconds,
        turn_count=len(written.turn_ids),
        closed_at=timezone.now() if session.close else None,
    )
    for index, turn_ids in enumerate(written.turn_ids, start=1):
        chat_session.turns.create(index=index, model="seed_sessions", saved={"turn": turn_ids})


class Command(BaseCommand):
    help = (
        "Write dated past chat sessions for shoppers into Agent Memory through the same memory "
        "policy as live chats (turn blocks, judged facts, closing episodes). FILE is a JSON "
        "scenario; --demo writes the bundled demo histories."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", nargs="?", help="JSON scenario file ('-' is not accepted)")
        parser.add_argument(
            "--demo",
            action="store_true",
            help=f"write the bundled demo histories ({DEMO_SCENARIO.name})",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="validate the scenario and print what would be written, without writing",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=SEED_TIMEOUT_SECONDS,
            help=f"seconds per memory call (default {SEED_TIMEOUT_SECONDS:g})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = int(options["verbosity"])
        source = self._source(options)
        try:
            text = source.read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot read {source}: {exc.strerror or exc}") from exc
        try:
            shoppers = scenario_parse(text)
        except ScenarioInvalid as exc:
            raise CommandError(
                f"{source} is not a valid scenario:\n" + "\n".join(exc.errors)
            ) from None
        sessions = sum(len(s.sessions) for s in shoppers)
        exchanges = sum(len(x.exchanges) for s in shoppers for x in s.sessions)

        if options["dry_run"]:
            self._describe(shoppers, verbosity)
            if verbosity < 1:
                return
            self.stdout.write(
                self.style.SUCCESS(
                    f"Dry run: {source.name} is valid; would write {sessions} session(s) with "
                    f"{exchanges} exchange(s) for {len(shoppers)} shopper(s). Nothing written."
                )
            )
            return

        timeout = max(options["timeout"], settings.AGENT_MEMORY_TIMEOUT_SECONDS)
        with override_settings(AGENT_MEMORY_TIMEOUT_SECONDS=timeout):
            self._write(shoppers, verbosity=verbosity)

    def _write(self, shoppers: list[ScenarioShopper], *, verbosity: int) -> None:
        sessions = sum(len(s.sessions) for s in shoppers)
        exchanges = sum(len(x.exchanges) for s in shoppers for x in s.sessions)
        if memory_health_status() != "ok":
            raise CommandError(
                f"Agent Memory at {settings.AGENT_MEMORY_URL} is not answering; "
                "nothing was written. Start it with `python manage.py agentmemory`."
            )
        facts = 0
        for shopper in shoppers:
            try:
                user = shopper_get_or_create(
                    username=shopper.username, display_name=shopper.display_name
                )
            except SignInRefused as exc:
                raise CommandError(f"{shopper.username}: {exc}") from exc
            display_name = user.demo_shopper.display_name
            for number, session in enumerate(shopper.sessions, start=1):
                try:
                    written = asyncio.run(
                        _session_write(
                            username=shopper.username, display_name=display_name, session=session
                        )
                    )
                except SessionWriteFailed as exc:
                    raise CommandError(
                        f"{shopper.username}: session {number} of {len(shopper.sessions)} "
                        f"failed ({exc}); it was not kept. Earlier sessions were written."
                    ) from exc
                _chat_records_write(user=user, session=session, written=written)
                facts += len(written.fact_ids)
                if verbosity >= 1:
                    self.stdout.write(
                        f"{shopper.username}: {written.session_id} "
                        f"({self._session_label(session)}): {len(written.turn_ids)} exchange(s), "
                        f"{len(written.fact_ids)} fact(s)" + (", closed" if session.close else "")
                    )
        if verbosity < 1:
            return
        self.stdout.write(
            self.style.SUCCESS(
                f"Wrote {sessions} session(s), {exchanges} exchange(s) and {facts} fact(s) "
                f"for {len(shoppers)} shopper(s)."
            )
        )

    def _source(self, options: dict[str, Any]) -> Path:
        if options["demo"] and options["file"]:
            raise CommandError("give either FILE or --demo, not both")
        if options["demo"]:
            return DEMO_SCENARIO
        if not options["file"]:
            raise CommandError("give a scenario FILE, or --demo for the bundled histories")
        return Path(options["file"])

    @staticmethod
    def _session_label(session: ScenarioSession) -> str:
        day = session.date.isoformat() if session.date else "today"
        return f"{day}, retention {session.retention or 'default'}"

    def _describe(self, shoppers: list[ScenarioShopper], verbosity: int) -> None:
        if verbosity < 1:
            return
        for shopper in shoppers:
            name = f" ({shopper.display_name})" if shopper.display_name else ""
            self.stdout.write(f"{shopper.username}{name}: {len(shopper.sessions)} session(s)")
            for session in shopper.sessions:
                self.stdout.write(
                    f"  {self._session_label(session)}: {len(session.exchanges)} exchange(s)"
                    + (", closed" if session.close else "")
                )
                if verbosity >= 2:
                    for exchange in session.exchanges:
                        self.stdout.write(f"    > {exchange.query}")
