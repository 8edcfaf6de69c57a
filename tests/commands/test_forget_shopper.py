"""forget_shopper: a shopper's memory user and chat records go; a refusal deletes nothing.

The admin's erase runs the same service (tests/admin/test_shopper_memory.py).
"""

from __future__ import annotations

import json
from io import StringIO
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from assistant.models import ChatSession, ChatTurn
from tests.support.panels import NOBODY, PanelListener, account_id_of
from tests.support.shopper_memory import memory_user_exists

pytestmark = pytest.mark.django_db


@pytest.fixture
def remembered(live_memory, username, tmp_path):
    """A shopper with one seeded visit: a memory user plus chat session and turn records."""
    path = tmp_path / "scenario.json"
    path.write_text(
        json.dumps(
            [
                {
                    "username": username,
                    "sessions": [
                        {"exchanges": [{"query": "I wear size S", "answer": "Noted."}]},
                        {"exchanges": [{"query": "show me boots", "answer": "Here."}]},
                    ],
                }
            ]
        )
    )
    call_command("seed_sessions", str(path), verbosity=0, stdout=StringIO())
    assert memory_user_exists(username)
    assert ChatSession.objects.filter(shopper__username=username).count() == 2
    return username


def forget(*args: str) -> str:
    out = StringIO()
    call_command("forget_shopper", *args, stdout=out)
    return out.getvalue()


def test_yes_forgets_memory_and_chat_records_but_keeps_the_account(remembered):
    panel, bystander = PanelListener(account_id_of(remembered)), PanelListener(NOBODY)
    out = forget(remembered, "--yes")
    assert f"Forgot {remembered}: memory user deleted; 2 chat session(s) and 2 turn(s)" in out
    assert not memory_user_exists(remembered)
    assert not ChatSession.objects.filter(shopper__username=remembered).exists()
    assert not ChatTurn.objects.filter(session__shopper__username=remembered).exists()
    assert get_user_model().objects.filter(username=remembered).exists()
    # Panels in this process hear it (through Redis, so would every other process's).
    assert panel.received() == [
        {
            "type": "memory.changed",
            "reason": "erased",
            "session_ids": ["session1", "session2"],
            "block_id": None,
        }
    ]
    assert bystander.received() == []


def test_answering_no_deletes_nothing(remembered):
    with mock.patch("builtins.input", return_value="n") as asked:
        out = forget(remembered)
    assert "Type 'yes'" in asked.call_args.args[0]
    assert "everything Aisle remembers about" in out and "Nothing deleted." in out
    assert memory_user_exists(remembered)
    assert ChatSession.objects.filter(shopper__username=remembered).count() == 2


def test_answering_yes_at_the_prompt_forgets(remembered):
    with mock.patch("builtins.input", return_value="yes"):
        forget(remembered)
    assert not memory_user_exists(remembered)
    assert not ChatSession.objects.filter(shopper__username=remembered).exists()


def test_a_shopper_with_nothing_remembered_is_fine(live_memory):
    assert "no memory user (nothing remembered)" in forget("maria", "--yes")


def test_an_unknown_shopper_is_an_error(live_memory):
    with pytest.raises(CommandError, match="No shopper named 'nobody-here'"):
        forget("nobody-here", "--yes")


def test_memory_down_keeps_the_chat_records(remembered, settings, live_memory):
    panel = PanelListener(account_id_of(remembered))
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"
    with pytest.raises(CommandError, match="nothing was deleted, their chat records were kept"):
        forget(remembered, "--yes")
    assert ChatSession.objects.filter(shopper__username=remembered).count() == 2
    assert panel.received() == []
    settings.AGENT_MEMORY_URL = live_memory.base_url
    assert memory_user_exists(remembered)


def test_the_name_ignores_case_as_everywhere_else(remembered):
    out = forget(remembered.upper(), "--yes")
    assert f"Forgot {remembered}: memory user deleted" in out
    assert not memory_user_exists(remembered)
    assert not ChatSession.objects.filter(shopper__username=remembered).exists()


def test_an_account_named_in_another_case_is_found_in_any_case():
    get_user_model().objects.create_user("Tessa-Boss")
    with mock.patch(
        "assistant.management.commands.forget_shopper.shopper_forget"
    ) as shopper_forget:
        shopper_forget.return_value.had_memory = False
        shopper_forget.return_value.chat_sessions = shopper_forget.return_value.chat_turns = 0
        out = forget("tessa-boss", "--yes")
    assert shopper_forget.call_args.kwargs["user"].username == "Tessa-Boss"
    assert "Forgot Tessa-Boss" in out


def test_a_name_several_accounts_share_in_some_case_is_refused():
    get_user_model().objects.create_user("Twin")
    get_user_model().objects.create_user("TWIN")
    with pytest.raises(CommandError, match="Several accounts are named 'twin'"):
        forget("twin", "--yes")
