"""seed_sessions: dated past visits written through the live memory policy."""

from __future__ import annotations

import asyncio
import contextlib
import json
from datetime import date
from io import StringIO
from pathlib import Path

import pytest
from agentmemory.exceptions import NotFoundError
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from assistant.models import ChatSession
from assistant.records.shoppers import shopper_forget
from memoryapp.clients import memory_client_async, memory_client_sync
from memoryapp.recall import memories_recall
from memoryapp.sessions import session_open
from memoryapp.turn import BlockIds, Remembered, TurnMemory
from tests.support.memory_proxy import MemoryProxy
from tests.support.shopper_memory import memory_blocks, memory_user_exists, memory_user_of

pytestmark = pytest.mark.django_db
DEMO_SHOPPERS = ("ann", "ben", "chloe", "dev")
ROOT = Path(__file__).resolve().parents[2]


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
        memory_user = client.get_user(memory_user_of(username))
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


def test_a_bad_value_names_its_place_and_nothing_is_written(live_memory, username, tmp_path):
    path = scenario_file(tmp_path, BAD_DATE % (username, username[:27]))
    with pytest.raises(CommandError) as raised:
        run(path)
    assert str(raised.value) == (
        f"{path} is not a valid scenario:\n"
        "[1].sessions[0].date: Input should be a valid date in the format YYYY-MM-DD, "
        "month value is outside expected range of 1-12 (got '2026-13-01')"
    )
    # The first shopper was valid, but the whole file is checked before any write.
    assert not memory_user_exists(username)
    assert not get_user_model().objects.filter(username__startswith=username).exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[\n  {"username": "abc",\n   "sessions": [}\n]',
            "not valid JSON: expected value at line 3",
        ),
        ('{"username": "abc"}', "(top level): expected a list of shoppers"),
        ("[]", "(top level): expected at least one shopper"),
        (
            '[{"username": "abc",\n  "sessions": [{"retention": "2h",\n'
            '  "exchanges": [{"query": "q", "answr": "a"}]}]}]',
            "[0].sessions[0].retention: '2h' is not a retention preset "
            "(default, 1m, 5m, 1h, never or null)\n"
            "[0].sessions[0].exchanges[0]: missing 'answer'\n"
            "[0].sessions[0].exchanges[0].answr: unknown key 'answr'",
        ),
        (
            '[{"username": "Not Valid!",\n "sessions": []}]',
            "[0].username: 'Not Valid!' is not a username (3 to 30 letters, digits, '-' and '_')\n"
            "[0].sessions: expected at least one session",
        ),
        (
            '[{"username": "abc",\n "sessions": [{"exchanges": [], "close": "yes"}]}]',
            "[0].sessions[0].exchanges: expected at least one exchange\n"
            "[0].sessions[0].close: Input should be a valid boolean (got 'yes')",
        ),
        (
            '[{"username": "abc", "display_name": " ", "sessions": [{"date": 20260401,'
            ' "exchanges": [{"query": "  ", "answer": 7}]}]}]',
            "[0].display_name: ' ' is blank\n"
            "[0].sessions[0].date: Input should be a valid date (got 20260401)\n"
            "[0].sessions[0].exchanges[0].query: '  ' is blank\n"
            "[0].sessions[0].exchanges[0].answer: Input should be a valid string (got 7)",
        ),
    ],
)
def test_malformed_scenarios_are_refused_with_the_place_of_each_problem(
    tmp_path, settings, text, expected
):
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"  # validation never needs the server
    path = scenario_file(tmp_path, text)
    with pytest.raises(CommandError) as raised:
        run(path)
    assert str(raised.value).startswith(f"{path} is not a valid scenario:\n{expected}")


def test_an_account_the_sign_in_refuses_is_named_and_nothing_is_written(
    live_memory, username, tmp_path, django_user_model
):
    django_user_model.objects.create_user("staff-seeded", password="x", is_staff=True)
    visit = {"exchanges": [{"query": "q", "answer": "a"}]}
    path = scenario_file(
        tmp_path,
        [
            {"username": username, "sessions": [visit]},
            {"username": "staff-seeded", "sessions": [visit]},
        ],
    )
    for args in ((path, "--dry-run"), (path,)):
        with pytest.raises(CommandError) as raised:
            run(*args)
        assert "[1].username: 'staff-seeded': That name belongs to a staff account" in str(
            raised.value
        )
    assert not memory_user_exists(username) and not memory_user_exists("staff-seeded")
    assert not get_user_model().objects.filter(username=username).exists()


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
    assert "it holds 1 session(s) with 1 exchange(s) for 1 shopper(s). Nothing written." in out
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
    """The demo shoppers' memory users live on the shared server: start and end without them.

    Other tests on the same server chat as the demo shoppers too, in whatever order the
    run gives, so their visits are removed before as well as after.
    """

    def erase() -> None:
        with memory_client_sync() as client:
            for name in DEMO_SHOPPERS:
                with contextlib.suppress(NotFoundError):
                    client.delete_user(name)

    erase()
    yield
    erase()


def test_demo_histories_are_recalled_on_a_later_visit_and_never_doubled(demo_memory_erased):
    out = run("--demo")
    assert "for 4 shopper(s)" in out
    assert "ann: session2 (2026-04-12, retention default)" in out
    blocks = {name: sorted(b.block_id for b in memory_blocks(name)) for name in DEMO_SHOPPERS}

    # make run seeds the demo on every start: a second run finds it all there.
    again = run("--demo")
    assert again == ("Nothing to write: all 8 session(s) of 4 shopper(s) are in memory already.\n")
    assert {name: sorted(b.block_id for b in memory_blocks(name)) for name in DEMO_SHOPPERS} == (
        blocks
    )

    ann = memory_user_of("ann")

    async def recall_for_ann():
        memory = await session_open(user_id=ann, display_name="Ann", session_id=None)
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


def visit(day: str, query: str) -> dict:
    return {"date": day, "exchanges": [{"query": query, "answer": "Noted."}], "close": True}


def test_a_second_run_writes_nothing_twice(live_memory, username, tmp_path):
    data = [
        {
            "username": username,
            "sessions": [visit("2026-03-01", "I'm a size M"), visit("2026-04-01", "I hate yellow")],
        }
    ]
    path = scenario_file(tmp_path, data)
    run(path)
    user = get_user_model().objects.get(username=username)
    blocks = sorted(b.block_id for b in memory_blocks(username))
    assert len(blocks) == 6  # per visit: the exchange, its fact, the episode

    assert run(path) == (
        "Nothing to write: all 2 session(s) of 1 shopper(s) are in memory already.\n"
    )
    assert sorted(b.block_id for b in memory_blocks(username)) == blocks
    assert ChatSession.objects.filter(shopper=user).count() == 2

    # A visit added to the file is written; the ones already there are not.
    data[0]["sessions"].append(visit("2026-05-01", "show me boots"))
    out = run(scenario_file(tmp_path, data, "more.json"))
    assert out.startswith(f"{username}: session3 (2026-05-01, retention default): 1 exchange(s)")
    assert "Wrote 1 session(s), 1 exchange(s)" in out
    assert "2 session(s) were in memory already." in out
    assert ChatSession.objects.filter(shopper=user).count() == 3

    # Once staff erase the shopper's memory, the whole history is written again.
    shopper_forget(user=user)
    assert "Wrote 3 session(s), 3 exchange(s)" in run(scenario_file(tmp_path, data, "more.json"))


def test_a_visit_that_fails_part_way_is_removed_and_written_whole_next_time(
    live_memory, username, tmp_path, monkeypatch
):
    real = TurnMemory.remember
    calls = []

    async def second_write_lost(self, exchange):
        calls.append(exchange.query)
        if len(calls) == 2:
            # What a write memory failed returns.
            return Remembered(ids=BlockIds(), facts=[], failed=["turn"], screened_out=0)
        return await real(self, exchange)

    monkeypatch.setattr(TurnMemory, "remember", second_write_lost)
    exchanges = [
        {"query": "I'm a size M", "answer": "Noted."},
        {"query": "boots?", "answer": "Yes."},
    ]
    path = scenario_file(tmp_path, [{"username": username, "sessions": [{"exchanges": exchanges}]}])
    with pytest.raises(CommandError) as raised:
        run(path)
    assert f"{username}: session 1 of 1 failed (exchange 2 was not stored); it was not kept" in (
        str(raised.value)
    )
    # Nothing of the half visit is left: no blocks, no session, no chat record.
    with memory_client_sync() as client:
        assert client.get_user(memory_user_of(username)).sessions in ([], None)
    assert memory_blocks(username) == []
    assert not ChatSession.objects.filter(shopper__username=username).exists()

    monkeypatch.undo()
    assert "Wrote 1 session(s), 2 exchange(s)" in run(path)
    turns = [b for b in memory_blocks(username) if b.annotations.get("type") == "turn"]
    assert len(turns) == 2
    record = ChatSession.objects.get(shopper__username=username)
    assert record.turn_count == 2
    # Its chat record is the live pipeline's: one turn per exchange, naming its block.
    recorded = [(t.index, t.model, t.saved["turn"]) for t in record.turns.order_by("index")]
    assert [(index, model) for index, model, _ in recorded] == [
        (1, "seed_sessions"),
        (2, "seed_sessions"),
    ]
    assert sorted(i for *_, ids in recorded for i in ids) == sorted(b.block_id for b in turns)


def test_a_slow_server_gets_the_seed_timeout_not_the_chat_one(
    live_memory, username, tmp_path, settings
):
    """Each request takes 0.4 s: too slow for a shopper's turn, fine for writing history."""
    proxy = MemoryProxy.in_front_of(live_memory.base_url).start()
    try:
        proxy.response_delay = 0.4
        settings.AGENT_MEMORY_URL = proxy.url
        settings.AGENT_MEMORY_TIMEOUT_SECONDS = 0.2  # the chat path's budget
        path = scenario_file(
            tmp_path, [{"username": username, "sessions": [visit("2026-03-01", "hi")]}]
        )
        with pytest.raises(CommandError, match="not answering; nothing was written"):
            run(path, "--timeout", "0.2")
        refused_users = get_user_model().objects.filter(username=username).count()
        out = run(path)
    finally:
        proxy.stop()
        settings.AGENT_MEMORY_URL = live_memory.base_url
        settings.AGENT_MEMORY_TIMEOUT_SECONDS = 1.0
    assert refused_users == 0
    assert "Wrote 1 session(s), 1 exchange(s)" in out
    assert len(memory_blocks(username)) == 2  # the exchange and the episode


def test_production_code_never_overrides_settings():
    """A command that needs another timeout passes it; it never rewrites global settings."""
    offenders = [
        str(path.relative_to(ROOT))
        for package in ("assistant", "memoryapp", "shop", "llm", "config", "memoryserver")
        for path in (ROOT / package).rglob("*.py")
        if "override_settings" in path.read_text()
    ]
    assert offenders == []
