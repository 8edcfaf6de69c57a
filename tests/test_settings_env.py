"""Settings from the environment: a malformed one falls back to its default with one warning
(the shop still starts), and the memory policy ships with the specified defaults."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

from config import env

ROOT = Path(__file__).resolve().parents[1]


def test_malformed_numbers_fall_back_with_one_warning(monkeypatch, caplog):
    env._warned.clear()
    monkeypatch.setenv("MEMORY_VERBATIM_WINDOW_TURNS", "three")
    with caplog.at_level(logging.WARNING, logger="config"):
        assert env.env_int("MEMORY_VERBATIM_WINDOW_TURNS", 3, minimum=0) == 3
        assert env.env_int("MEMORY_VERBATIM_WINDOW_TURNS", 3, minimum=0) == 3
    assert [r.getMessage() for r in caplog.records] == [
        "MEMORY_VERBATIM_WINDOW_TURNS='three' is not valid; using the default 3"
    ]


def test_out_of_range_values_and_bad_booleans_fall_back(monkeypatch):
    env._warned.clear()
    monkeypatch.setenv("MEMORY_MAX_FACTS_PER_TURN", "-2")
    monkeypatch.setenv("AGENT_MEMORY_TIMEOUT_SECONDS", "soon")
    monkeypatch.setenv("AGENT_MEMORY_EXTRACT_SEMANTIC", "perhaps")
    assert env.env_int("MEMORY_MAX_FACTS_PER_TURN", 5, minimum=1) == 5
    assert env.env_float("AGENT_MEMORY_TIMEOUT_SECONDS", 1.0, minimum=0.05) == 1.0
    assert env.env_bool("AGENT_MEMORY_EXTRACT_SEMANTIC", True) is True


def test_exchange_rates_are_read_and_a_malformed_list_falls_back(monkeypatch):
    env._warned.clear()
    default = {"GBP": 1.17}
    monkeypatch.setenv("SHOP_EXCHANGE_RATES", "gbp:1.2, USD:0.9")
    assert env.env_rates("SHOP_EXCHANGE_RATES", default) == {"GBP": 1.2, "USD": 0.9}
    monkeypatch.setenv("SHOP_EXCHANGE_RATES", "none")
    assert env.env_rates("SHOP_EXCHANGE_RATES", default) == {}
    for malformed in ("GBP=1.2", "GBP:-1", "POUND:1.2", "GBP:lots"):
        monkeypatch.setenv("SHOP_EXCHANGE_RATES", malformed)
        assert env.env_rates("SHOP_EXCHANGE_RATES", default) == default


def test_well_formed_values_are_used(monkeypatch):
    monkeypatch.setenv("MEMORY_CROSS_SESSION_FACT_K", " 7 ")
    monkeypatch.setenv("AGENT_MEMORY_EXTRACT_SEMANTIC", "off")
    monkeypatch.setenv("DJANGO_ALLOWED_HOSTS", "a.example, b.example,")
    assert env.env_int("MEMORY_CROSS_SESSION_FACT_K", 10, minimum=1) == 7
    assert env.env_bool("AGENT_MEMORY_EXTRACT_SEMANTIC", True) is False
    assert env.env_list("DJANGO_ALLOWED_HOSTS", []) == ["a.example", "b.example"]


# The memory policy's defaults as the memory specification states them.
SPECIFIED_DEFAULTS = {
    "MEMORY_MESSAGE_TTL_SECONDS": 90 * 24 * 3600,
    "MEMORY_FACT_TTL_SECONDS": 0,
    "MEMORY_VERBATIM_WINDOW_TURNS": 3,
    "MEMORY_SEARCH_THRESHOLD_TURNS": 10,
    "MEMORY_MAX_SESSION_BLOCKS": 200,
    "MEMORY_CROSS_SESSION_FACT_K": 10,
    "MEMORY_CROSS_SESSION_TURN_K": 10,
}


def test_the_memory_policy_ships_with_the_specified_defaults_documented_alike():
    # A fresh interpreter, every policy variable blank (a developer's .env never overrides a
    # variable already set), so what is read is the shipped default.
    blank = {name: "" for name in SPECIFIED_DEFAULTS}
    script = (
        "import json; from config.settings import base; "
        f"print(json.dumps({{n: getattr(base, n) for n in {list(SPECIFIED_DEFAULTS)!r}}}))"
    )
    shipped = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, **blank},
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(shipped.stdout) == SPECIFIED_DEFAULTS
    documented = dict(
        re.findall(r"^#?\s*(MEMORY_[A-Z_]+)=(\d+)", (ROOT / ".env.example").read_text(), re.M)
    )
    assert {name: int(documented[name]) for name in SPECIFIED_DEFAULTS} == SPECIFIED_DEFAULTS


def test_the_shops_sqlite_connection_stays_open_across_the_chats_orm_calls(tmp_path):
    # As a turn makes its ORM calls (Channels' database_sync_to_async, one thread): each
    # call used to open SQLite afresh, a fifth of the shop's CPU a turn under load.
    script = (
        "import asyncio, django; django.setup()\n"
        "from channels.db import database_sync_to_async\n"
        "from django.db import connection\n"
        "def one_call():\n"
        "    with connection.cursor() as cursor:\n"
        "        cursor.execute('SELECT 1')\n"
        "    return id(connection.connection)\n"
        "async def turn():\n"
        "    return [await database_sync_to_async(one_call)() for _ in range(3)]\n"
        "print(len(set(asyncio.run(turn()))))\n"
    )
    shipped = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "AISLE_VAR_DIR": str(tmp_path),
            "DATABASE_URL": f"sqlite:///{tmp_path / 'shop.sqlite3'}",
        },
        capture_output=True,
        text=True,
        check=True,
    )
    assert shipped.stdout.strip() == "1"
