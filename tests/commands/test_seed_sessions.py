"""seed_sessions: dated past visits written through the live memory policy."""

from __future__ import annotations

import asyncio
import contextlib
import json
from datetime import date
from io import StringIO

import pytest
from agentmemory.exceptions import NotFoundError
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from assistant.models import ChatSession
from memoryapp.clients import memory_client_async, memory_client_sync
from memoryapp.services import memories_recall, session_open
from tests.commands.conftest import memory_blocks, memory_user_exists

pytestmark = pytest.mark.django_db
DEMO_SHOPPERS = ("ann", "ben", "chloe", "dev")


def scenario_file(tmp_path, data, name="scenario.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return str(path)


def run(*args, **kwargs) -> str:
    out = StringIO()
    call_command("seed_sessions", *args, stdout=out, **kwargs)
    return out.getvalue()


def test_a_scenario_is_written_like_live_chats(live_memory, username, tmp_path):
    path = scenario_file(
        tmp_path,
        [
            {
                "username": username,
                "display_name": "Wren",
                "sessions": [
                    {
                        "date": "2026-04-12",
                        "retention": "1h",
                        "exchanges": [
                            {
                                "query": "I'm a size M and I hate yellow, show me dresses",
                                "answer": "Here is the Loom & Lane Wrap Midi Dress in M.",
                            },
                            {"query": "Is it in stock?", "answer": "Yes, in M."},
                        ],
                        "close": True,
                    },
                    {
                        "date": None,
                        "retention": None,
                        "exchanges": [{"query": "show me jeans", "answer": "Here are jeans."}],
                        "close": False,
                    },
                ],
            }
        ],
    )
    out = run(path)
    assert "Wrote 2 session(s), 3 exchange(s) and 2 fact(s) for 1 shopper(s)." in out

    user = get_user_model().objects.get(username=username)
    assert user.demo_shopper.display_name == "Wren" and not user.has_usable_password()
    with memory_client_sync() as client:
        memory_user = client.get_user(username)
        first = memory_user.get_session("session1")
        second = memory_user.get_session("session2")
    assert first.metadata["session_date"] == "2026-04-12" and first.blocks_ttl == 3600
    assert first.end_time is not None  # closed
    assert second.end_time is None and second.blocks_ttl == 7_776_000

    blocks = [b for b in memory_blocks(username) if b.session_id == "session1"]
    turns = [b for b in blocks if b.annotations.get("type") == "turn"]
    facts = sorted(b.fact for b in blocks if b.annotations.get("type") == "fact")
    episodes = [b for b in blocks if b.annotations.get("type") == "episode"]
    assert [t.message.user_content for t in sorted(turns, key=lambda b: b.created_at)] == [
        "I'm a size M and I hate yellow, show me dresses",
        "Is it in stock?",
    ]
    assert all(b.created_at.startswith("2026-04-12T") for b in blocks)
    assert facts == ["The shopper dislikes yellow.", "The shopper wears size M."]
    assert len(episodes) == 1

    sessions = ChatSession.objects.filter(shopper=user).order_by("memory_session_id")
    assert [(s.memory_session_id, s.turn_count, s.retention) for s in sessions] == [
        ("session1", 2, "1h"),
        ("session2", 1, "default"),
    ]
    assert sessions[0].session_date == date(2026, 4, 12) and sessions[0].closed_at is not None


BAD_DATE = """[
  {
    "username": "%s",
    "sessions": [
      {
        "date": "2026-04-01",
        "exchanges": [{"query": "hi", "answer": "hello"}]
      }
    ]
  },
  {
    "username": "%s-2",
    "sessions": [{"date": "2026-13-01", "exchanges": [{"query": "q", "answer": "a"}]}]
  }
]
"""


def test_a_bad_value_names_its_line_and_nothing_is_written(live_memory, username, tmp_path):
    path = scenario_file(tmp_path, BAD_DATE % (username, username))
    with pytest.raises(CommandError) as raised:
        run(path)
    assert "line 13: [1].sessions[0].date: 2026-13-01 is not a date YYYY-MM-DD" in str(raised.value)
    # The first shopper was valid, but the whole file is checked before any write.
    assert not memory_user_exists(username)
    assert not get_user_model().objects.filter(username__startswith=username).exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[\n  {"username": "abc",\n   "sessions": [}\n]', "line 3: not valid JSON"),
        ('{"username": "abc"}', "line 1: (top level): expected a non-empty list of shoppers"),
        (
            '[{"username": "abc",\n  "sessions": [{"retention": "2h",\n'
            '  "exchanges": [{"query": "q", "answr": "a"}]}]}]',
            'line 2: [0].sessions[0].retention: "2h" is not a retention preset',
        ),
        (
            '[{"username": "abc",\n  "sessions": [{\n  "exchanges": [{"query": "q", "answr": "a"}]}]}]',
            "line 3: [0].sessions[0].exchanges[0].answr: unknown key 'answr'",
        ),
        (
            '[{"username": "Not Valid!",\n "sessions": []}]',
            'line 1: [0].username: "Not Valid!" is not a username',
        ),
        (
            '[{"username": "abc",\n "sessions": [{"exchanges": [], "close": "yes"}]}]',
            'line 2: [0].sessions[0].close: "yes" is not true or false',
        ),
    ],
)
def test_malformed_scenarios_are_refused_with_the_line(tmp_path, settings, text, expected):
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"  # validation never needs the server
    with pytest.raises(CommandError) as raised:
        run(scenario_file(tmp_path, text))
    assert expected in str(raised.value)


def test_dry_run_validates_and_writes_nothing(live_memory, username, tmp_path):
    path = scenario_file(
        tmp_path,
        [
            {
                "username": username,
                "sessions": [
                    {
                        "date": "2026-02-01",
                        "retention": "never",
                        "exchanges": [{"query": "I wear size L", "answer": "Noted."}],
                        "close": True,
                    }
                ],
            }
        ],
    )
    out = run(path, "--dry-run")
    assert f"{username}: 1 session(s)" in out
    assert "2026-02-01, retention never: 1 exchange(s), closed" in out
    assert "would write 1 session(s) with 1 exchange(s) for 1 shopper(s). Nothing written." in out
    assert not memory_user_exists(username)
    assert not get_user_model().objects.filter(username=username).exists()


def test_memory_down_is_an_error_and_nothing_is_written(settings, username, tmp_path):
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"
    path = scenario_file(
        tmp_path,
        [{"username": username, "sessions": [{"exchanges": [{"query": "q", "answer": "a"}]}]}],
    )
    with pytest.raises(CommandError, match="not answering; nothing was written"):
        run(path)
    assert not get_user_model().objects.filter(username=username).exists()


@pytest.fixture
def demo_memory_erased(live_memory):
    """The demo shoppers' memory users live on the shared server: remove them afterwards."""
    yield
    with memory_client_sync() as client:
        for name in DEMO_SHOPPERS:
            with contextlib.suppress(NotFoundError):
                client.delete_user(name)


def test_demo_histories_are_recalled_on_a_later_visit(demo_memory_erased):
    out = run("--demo")
    assert "for 4 shopper(s)" in out
    assert "ann: session2 (2026-04-12, retention default)" in out

    async def recall_for_ann():
        memory = await session_open(username="ann", display_name="Ann", session_id=None)
        try:
            return await memories_recall(
                memory=memory, message="a dress for the wedding", turn_count=0
            )
        finally:
            await memory_client_async().close()

    recall = asyncio.run(recall_for_ann())
    facts = [item.line for item in recall.items if item.scope == "fact"]
    assert "[fact · stated 2026-03-02] The shopper wears size M." in facts
    assert "[fact · stated 2026-03-02] The shopper dislikes yellow." in facts
    assert "[fact · stated 2026-04-12] The shopper is shopping for a wedding." in facts
    # Each demo shopper's own facts, and only theirs.
    ben_facts = {b.fact for b in memory_blocks("ben") if b.annotations.get("type") == "fact"}
    assert {"The shopper wears shoe size 44.", "The shopper prefers the brand Kestrel."} <= (
        ben_facts
    )
    assert ChatSession.objects.filter(shopper__username="dev").count() == 2
