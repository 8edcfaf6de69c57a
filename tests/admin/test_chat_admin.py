"""Chat sessions with their turns, and the single demo-settings row."""

from __future__ import annotations

from datetime import date

import pytest
from django.urls import reverse

from assistant.models import ChatSession, ChatTurn, DemoSettings
from shop.services import shopper_get_or_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def chat_session(username):
    user = shopper_get_or_create(username=username, display_name="Wren")
    session = ChatSession.objects.create(
        shopper=user,
        memory_session_id="session3",
        session_date=date(2026, 4, 12),
        retention="1h",
        retention_seconds=3600,
        turn_count=1,
    )
    ChatTurn.objects.create(
        session=session,
        index=1,
        model="aisle-offline",
        recalled=[{"block_id": "blk-recalled-1", "scope": "fact", "score": 0.87}],
        saved={"turn": ["blk-saved-turn"], "fact": ["blk-saved-fact"]},
        timings={
            "spans": [{"name": "memory.recall", "start_ms": 1.0, "duration_ms": 4.2}],
            "total_ms": 12.5,
        },
        tools=[{"name": "search_products"}],
        error="model timed out",
    )
    return session


def test_chat_sessions_list_filters_and_searches(admin_client, chat_session, username):
    url = reverse("admin:assistant_chatsession_changelist")
    page = admin_client.get(url).content.decode()
    assert "session3" in page and username in page and "By retention" in page
    assert "session3" in admin_client.get(url, {"retention": "1h"}).content.decode()
    assert "session3" not in admin_client.get(url, {"retention": "never"}).content.decode()
    assert "session3" in admin_client.get(url, {"q": username}).content.decode()
    assert "session3" not in admin_client.get(url, {"q": "nobody-else"}).content.decode()


def test_a_session_shows_its_turns_read_only(admin_client, chat_session):
    page = admin_client.get(
        reverse("admin:assistant_chatsession_change", args=[chat_session.pk])
    ).content.decode()
    for shown in (
        "blk-recalled-1 · fact · 0.87",
        "turn: blk-saved-turn; fact: blk-saved-fact",
        "memory.recall 4.2, total 12.5",
        "aisle-offline",
        "search_products",
        "model timed out",
    ):
        assert shown in page
    # Read-only: no form inputs for the turns.
    assert 'name="turns-0-model"' not in page


def test_demo_settings_is_a_single_row(admin_client):
    response = admin_client.get(reverse("admin:assistant_demosettings_changelist"))
    row = DemoSettings.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:assistant_demosettings_change", args=[row.pk])
    assert admin_client.get(reverse("admin:assistant_demosettings_add")).status_code == 403
    assert (
        admin_client.get(reverse("admin:assistant_demosettings_delete", args=[row.pk])).status_code
        == 403
    )


def _save_settings(admin_client, **fields):
    row = DemoSettings.objects.get_or_create(pk=1)[0]
    data = {
        "memory_enabled": "on",
        "default_retention": "default",
        "presets_offered": [],
        "signin_note": "",
        **fields,
    }
    return admin_client.post(
        reverse("admin:assistant_demosettings_change", args=[row.pk]), data, follow=True
    )


def test_the_sign_in_note_appears_on_the_sign_in_page(admin_client, client):
    _save_settings(
        admin_client,
        signin_note="Demo day: pick Ann to see a return visit.",
        presets_offered=["default", "1m"],
    )
    row = DemoSettings.objects.get()
    assert row.presets_offered == ["default", "1m"]
    page = client.get(reverse("shop:signin"))
    assert "Demo day: pick Ann to see a return visit." in page.content.decode()
    assert page.context["demo_retention_presets"] == [
        ("default", "Default (90 days)"),
        ("1m", "1 minute"),
    ]
    assert page.context["demo_default_retention"] == "default"


def test_no_note_no_notice(client):
    DemoSettings.objects.update_or_create(pk=1, defaults={"signin_note": ""})
    assert 'data-testid="demo-note"' not in client.get(reverse("shop:signin")).content.decode()


def test_the_default_retention_must_be_offered(admin_client):
    response = _save_settings(admin_client, default_retention="1h", presets_offered=["1m"])
    assert "The default retention must be one of the presets offered." in (
        response.content.decode()
    )
    assert DemoSettings.objects.get().default_retention == "default"


def chat_record_page(admin_client, shopper) -> str:
    session = ChatSession.objects.get(shopper=shopper.user)
    response = admin_client.get(reverse("admin:assistant_chatsession_change", args=[session.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_a_chat_record_shows_the_exchange_read_live_from_memory(admin_client, remembered_shopper):
    page = chat_record_page(admin_client, remembered_shopper)
    assert "Exchange (read from memory)" in page
    assert "Shopper: I&#x27;m a size M and I hate yellow, show me dresses" in page
    assert "Assistant: Here is the Loom &amp; Lane Wrap Midi Dress in M." in page
    assert "The shopper wears size M." in page  # the turn's saved facts too
    assert "Timings (ms)" in page


def test_a_deleted_memory_is_gone_from_the_chat_record_too(admin_client, remembered_shopper):
    from memoryapp.erasure import record_delete

    turn = ChatTurn.objects.get(session__shopper=remembered_shopper.user)
    block_id = turn.saved["turn"][0]
    record_delete(account=remembered_shopper.user, block_id=block_id)

    page = chat_record_page(admin_client, remembered_shopper)
    assert "I hate yellow, show me dresses" not in page
    assert "Loom &amp; Lane Wrap Midi Dress" not in page
    assert f"{block_id}: not in memory any more (deleted or expired)" in page
    # Nothing of the text was kept in the shop's own tables either.
    from django.db import connection

    with connection.cursor() as cursor:
        for table in ("assistant_chatturn", "assistant_chatsession"):
            cursor.execute(f"SELECT * FROM {table}")
            assert "hate yellow" not in repr(cursor.fetchall())


def test_a_chat_record_still_opens_with_memory_down(admin_client, remembered_shopper, settings):
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"
    page = chat_record_page(admin_client, remembered_shopper)
    assert "Agent Memory is unavailable: the text cannot be shown right now" in page
    assert "hate yellow" not in page


def test_a_turn_whose_writes_failed_says_so_with_what_the_screen_dropped(
    admin_client, chat_session
):
    ChatTurn.objects.filter(session=chat_session).update(
        saved={"turn": [], "fact": [], "failed": ["turn", "facts"], "screened_out": 5}
    )
    page = admin_client.get(
        reverse("admin:assistant_chatsession_change", args=[chat_session.pk])
    ).content.decode()
    assert "not saved — memory unavailable: turn, facts" in page
    assert "screened out: 5" in page
