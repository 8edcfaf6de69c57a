"""The "Shopper memory" admin page against the live embedded memory server."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from assistant.models import ChatSession, ChatTurn
from memoryapp.clients import memory_client_sync
from shop.models import DemoShopper
from tests.support.panels import NOBODY, PanelListener
from tests.support.shopper_memory import memory_blocks, memory_user_exists

pytestmark = pytest.mark.django_db


def memory_url(shopper: DemoShopper, name: str = "") -> str:
    suffix = f"_{name}" if name else ""
    return reverse(f"admin:shop_demoshopper_memory{suffix}", args=[shopper.pk])


def delete_url(shopper: DemoShopper, block_id: str) -> str:
    return reverse("admin:shop_demoshopper_memory_delete_block", args=[shopper.pk, block_id])


def test_the_page_shows_sessions_and_blocks(admin_client, remembered_shopper):
    response = admin_client.get(memory_url(remembered_shopper))
    page = response.content.decode()
    assert response.status_code == 200
    assert f"Shopper memory: Wren ({remembered_shopper.user.username})" in page
    # The session: its id, the date from its metadata, its retention and that it ended.
    assert "<code>session1</code>" in page and "12 Apr 2026</time>" in page
    assert "1h (3600 s)" in page
    assert "open</td>" not in page
    # The blocks: the exchange, the judged facts (never expire) and the visit summary.
    assert "Shopper: I&#x27;m a size M and I hate yellow, show me dresses" in page
    assert "The shopper wears size M." in page and "The shopper dislikes yellow." in page
    assert "episode" in page and "resolved: " in page
    table = page.split('id="memory-blocks"', 1)[1].split("</table>", 1)[0]
    deletes = re.findall(r'<a class="deletelink" href="([^"]+)"', table)
    blocks = memory_blocks(remembered_shopper.user.username)
    assert sorted(deletes) == sorted(delete_url(remembered_shopper, b.block_id) for b in blocks)
    assert "Erase this shopper's memory" in page


def test_the_page_sits_in_the_admins_own_frame(admin_client, remembered_shopper):
    page = admin_client.get(memory_url(remembered_shopper)).content.decode()
    assert '<div id="site-name"><a href="/admin/">Aisle administration</a></div>' in page
    crumbs = re.search(r'<ol class="breadcrumbs">(.*?)</ol>', page, re.DOTALL).group(1)
    assert re.findall(r"<li[^>]*>(.*?)</li>", crumbs) == [
        '<a href="/admin/">Home</a>',
        '<a href="/admin/shop/">Shop</a>',
        '<a href="/admin/shop/demoshopper/">Demo shoppers</a>',
        f'<a href="/admin/shop/demoshopper/{remembered_shopper.pk}/change/">Wren</a>',
        "Shopper memory",
    ]
    assert '<li aria-current="page">Shopper memory</li>' in crumbs


def test_timestamps_are_readable_with_the_exact_value_kept(admin_client, remembered_shopper):
    page = admin_client.get(memory_url(remembered_shopper)).content.decode()
    block = next(b for b in memory_blocks(remembered_shopper.user.username) if b.fact)
    stated = datetime.fromisoformat(block.created_at)
    exact = stated.isoformat()
    shown = f"{stated.day} {stated:%b %Y, %H:%M}"
    assert f'<time datetime="{exact}" title="{exact}">{shown}</time>' in page
    # No raw stamp is left as text anywhere: each sits only inside a datetime or title.
    text = re.sub(r'(datetime|title)="[^"]*"', "", page)
    assert not re.search(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", text)


def expiry_cell(page: str, block_id: str) -> str:
    row = re.search(rf'<tr data-block-id="{block_id}"[^>]*>(.*?)</tr>', page, re.DOTALL).group(1)
    return re.search(r'<td class="memory-expires">(.*?)</td>', row, re.DOTALL).group(1)


def test_each_block_says_when_it_expires(admin_client, remembered_shopper):
    page = admin_client.get(memory_url(remembered_shopper)).content.decode()
    blocks = memory_blocks(remembered_shopper.user.username)
    # The visit ran with a one-hour retention: its exchange and summary expire an hour after
    # they were written; the facts are kept.
    for block in blocks:
        cell = expiry_cell(page, block.block_id)
        if block.annotations["type"] == "fact":
            assert cell == "kept"
        else:
            written = datetime.fromisoformat(block.ingested_at)
            due = (written + timedelta(hours=1)).replace(microsecond=0)
            shown = f"{due.day} {due:%b %Y, %H:%M}"
            exact = due.isoformat()
            assert cell == f'<time datetime="{exact}" title="{exact}">{shown}</time>'


def test_the_change_page_links_to_the_memory_page(admin_client, remembered_shopper):
    page = admin_client.get(
        reverse("admin:shop_demoshopper_change", args=[remembered_shopper.pk])
    ).content.decode()
    assert memory_url(remembered_shopper) in page


def test_delete_asks_first_then_removes_one_block_and_tells_the_shoppers_panels(
    admin_client, remembered_shopper
):
    username = remembered_shopper.user.username
    blocks = memory_blocks(username)
    fact = next(b for b in blocks if b.fact == "The shopper wears size M.")
    url = delete_url(remembered_shopper, fact.block_id)
    panel = PanelListener(remembered_shopper.user.pk)

    confirm = admin_client.get(url)
    page = " ".join(confirm.content.decode().split())
    assert confirm.status_code == 200
    assert "Are you sure you want to delete this fact from Wren's memory?" in page
    assert '<dd class="memory-text"><p>The shopper wears size M.</p></dd>' in page
    assert 'value="Yes, I\'m sure"' in page and "No, take me back" in page
    assert '<li aria-current="page">Delete</li>' in page
    assert len(memory_blocks(username)) == len(blocks)  # asking deleted nothing
    assert panel.received() == []

    response = admin_client.post(url, follow=True)
    page = response.content.decode()
    assert response.redirect_chain[-1][0] == memory_url(remembered_shopper)
    assert "Deleted the fact “The shopper wears size M.”" in page
    assert fact.block_id not in page
    assert "The shopper wears size M." not in page.split('class="messagelist"')[1].split("</ul>")[1]
    remaining = {b.block_id for b in memory_blocks(username)}
    assert fact.block_id not in remaining and len(remaining) == len(blocks) - 1
    assert panel.received() == [
        {
            "type": "memory.changed",
            "reason": "record_deleted",
            "session_ids": [],
            "block_id": fact.block_id,
        }
    ]


def test_a_deleted_exchange_is_named_by_its_words(admin_client, remembered_shopper):
    username = remembered_shopper.user.username
    turn = next(b for b in memory_blocks(username) if b.annotations.get("type") == "turn")
    response = admin_client.post(delete_url(remembered_shopper, turn.block_id), follow=True)
    assert (
        "Deleted the exchange “Shopper: I&#x27;m a size M and I hate yellow, show me dresses "
        "Assistant: Here is the Loom &amp; Lane Wrap Midi Dress in M.”"
    ) in response.content.decode()


def test_deleting_an_unknown_block_deletes_nothing(admin_client, remembered_shopper):
    before = len(memory_blocks(remembered_shopper.user.username))
    for method in (admin_client.get, admin_client.post):
        response = method(delete_url(remembered_shopper, "no-such-block"), follow=True)
        assert "No block no-such-block in this shopper&#x27;s memory" in response.content.decode()
    assert len(memory_blocks(remembered_shopper.user.username)) == before


def test_erase_asks_first_then_forgets_memory_and_chat_records(admin_client, remembered_shopper):
    username = remembered_shopper.user.username
    confirm = admin_client.get(memory_url(remembered_shopper, "erase")).content.decode()
    assert "This cannot be undone." in confirm and "Yes, erase this shopper" in confirm
    assert "1 chat session record with their turns" in confirm
    assert '<li aria-current="page">Erase</li>' in confirm
    assert memory_user_exists(username)  # asking erased nothing
    panel, bystander = PanelListener(remembered_shopper.user.pk), PanelListener(NOBODY)

    response = admin_client.post(memory_url(remembered_shopper, "erase"), follow=True)
    page = response.content.decode()
    assert (
        f"Erased everything Agent Memory kept for {username}; 1 chat session record(s) and "
        "1 turn(s) deleted." in page
    )
    assert "Nothing remembered yet" in page
    assert not memory_user_exists(username)
    # The same as forget_shopper: no chat record of the shopper is left; the account is.
    assert not ChatSession.objects.filter(shopper__username=username).exists()
    assert not ChatTurn.objects.filter(session__shopper__username=username).exists()
    assert DemoShopper.objects.filter(user__username=username).exists()
    assert panel.received() == [
        {
            "type": "memory.changed",
            "reason": "erased",
            "session_ids": ["session1"],
            "block_id": None,
        }
    ]
    assert bystander.received() == []


def test_a_shopper_with_no_memory_user(admin_client, live_memory):
    maria = DemoShopper.objects.get(user__username="maria")
    with memory_client_sync() as client:
        assert not [u for u in client.list_users(limit=500).users if u.id == "maria"]
    page = admin_client.get(memory_url(maria)).content.decode()
    assert "Nothing remembered yet" in page


def test_memory_down_is_explained_not_a_crash(admin_client, settings):
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"
    ann = DemoShopper.objects.get(user__username="ann")
    response = admin_client.get(memory_url(ann))
    assert response.status_code == 503
    assert "Agent Memory is unavailable" in response.content.decode()

    for method in (admin_client.get, admin_client.post):
        deleted = method(delete_url(ann, "x"), follow=True)
        assert "Agent Memory is unavailable; block x was kept" in deleted.content.decode()
    ChatSession.objects.create(shopper=ann.user, memory_session_id="session1")
    erased = admin_client.post(memory_url(ann, "erase"), follow=True)
    assert "Agent Memory is unavailable; nothing was erased" in erased.content.decode()
    assert ChatSession.objects.filter(shopper=ann.user).count() == 1


def test_non_staff_cannot_see_or_change_memory(shopper_client, remembered_shopper):
    block = memory_blocks(remembered_shopper.user.username)[0]
    for url in (
        memory_url(remembered_shopper),
        memory_url(remembered_shopper, "erase"),
        delete_url(remembered_shopper, block.block_id),
    ):
        for method in (shopper_client.get, shopper_client.post):
            response = method(url)
            assert response.status_code == 302
            assert response["Location"].startswith(reverse("admin:login"))
    assert memory_user_exists(remembered_shopper.user.username)
    assert block.block_id in {b.block_id for b in memory_blocks(remembered_shopper.user.username)}


def test_staff_who_may_only_view_shoppers_cannot_delete_their_memory(
    django_user_model, remembered_shopper
):
    viewer = django_user_model.objects.create_user(username="viewer", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_demoshopper"))
    client = Client()
    client.force_login(viewer)
    username = remembered_shopper.user.username
    block = memory_blocks(username)[0]
    assert client.get(memory_url(remembered_shopper)).status_code == 200
    for url in (
        memory_url(remembered_shopper, "erase"),
        delete_url(remembered_shopper, block.block_id),
    ):
        assert client.post(url).status_code == 403
    assert memory_user_exists(username)
    assert block.block_id in {b.block_id for b in memory_blocks(username)}


def test_a_staff_account_has_no_shopper_memory_page(admin_client, remembered_shopper):
    """A shopper account later made staff: its memory is neither shown nor erasable here."""
    user = remembered_shopper.user
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    block = memory_blocks(user.username)[0]
    for url in (
        memory_url(remembered_shopper),
        memory_url(remembered_shopper, "erase"),
        delete_url(remembered_shopper, block.block_id),
    ):
        assert admin_client.get(url).status_code == 404
        assert admin_client.post(url).status_code == 404
    assert memory_user_exists(user.username)
    assert block.block_id in {b.block_id for b in memory_blocks(user.username)}


def test_deletes_need_post_and_a_csrf_token(admin_user, remembered_shopper):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    username = remembered_shopper.user.username
    assert client.post(memory_url(remembered_shopper, "erase")).status_code == 403
    block = memory_blocks(username)[0]
    url = delete_url(remembered_shopper, block.block_id)
    assert client.get(url).status_code == 200  # the confirmation page deletes nothing
    assert client.post(url).status_code == 403
    assert memory_user_exists(username) and len(memory_blocks(username)) >= 1


def test_a_replaced_fact_is_shown_as_superseded_history(
    admin_client, live_memory, username, tmp_path
):
    path = tmp_path / "scenario.json"
    visit = {"retention": None, "close": True}
    path.write_text(
        json.dumps(
            [
                {
                    "username": username,
                    "display_name": "Wren",
                    "sessions": [
                        {
                            **visit,
                            "date": "2026-03-01",
                            "exchanges": [{"query": "I'm a size M", "answer": "Noted."}],
                        },
                        {
                            **visit,
                            "date": "2026-06-01",
                            "exchanges": [{"query": "I'm now a size L", "answer": "Noted."}],
                        },
                    ],
                }
            ]
        )
    )
    call_command("seed_sessions", str(path), verbosity=0, stdout=StringIO())
    shopper = DemoShopper.objects.get(user__username=username)
    page = admin_client.get(memory_url(shopper)).content.decode()
    rows = {block.fact: block.block_id for block in memory_blocks(username) if block.fact}
    old_row = page.split(f'data-block-id="{rows["The shopper wears size M."]}"', 1)[1]
    old_row = old_row.split("</tr>", 1)[0]
    new_row = page.split(f'data-block-id="{rows["The shopper wears size L."]}"', 1)[1]
    new_row = new_row.split("</tr>", 1)[0]
    assert 'data-superseded="true"' in old_row and "(superseded)" in old_row
    assert "slot: size/tops" in old_row and "superseded_by: " in old_row
    assert "(superseded)" not in new_row and "slot: size/tops" in new_row


HOSTILE_ANSWER = (
    "Try the **Loom & Lane** dress <img src=x onerror=alert(1)> "
    "[free gift](javascript:alert(1)) or [the dress](/products/loom-lane-wrap-midi-dress/)\n"
    "- **pink**, in M\n"
    "- <b>navy</b>"
)


def test_stored_markdown_is_rendered_and_everything_else_escaped(
    admin_client, live_memory, username, tmp_path
):
    path = tmp_path / "scenario.json"
    exchange = {"query": "<script>alert('q')</script> dresses?", "answer": HOSTILE_ANSWER}
    path.write_text(json.dumps([{"username": username, "sessions": [{"exchanges": [exchange]}]}]))
    call_command("seed_sessions", str(path), verbosity=0, stdout=StringIO())
    shopper = DemoShopper.objects.get(user__username=username)
    turn = next(b for b in memory_blocks(username) if b.annotations.get("type") == "turn")

    page = admin_client.get(memory_url(shopper)).content.decode()
    confirm = admin_client.get(delete_url(shopper, turn.block_id)).content.decode()
    for html in (page, confirm):
        text = re.search(r'class="memory-text"[^>]*>(.*?)</(td|dd)>', html, re.DOTALL).group(1)
        assert text == (
            "<p>Shopper: &lt;script&gt;alert(&#x27;q&#x27;)&lt;/script&gt; dresses?<br>"
            "Assistant: Try the <strong>Loom &amp; Lane</strong> dress "
            "&lt;img src=x onerror=alert(1)&gt; free gift) or "
            '<a href="/products/loom-lane-wrap-midi-dress/">the dress</a></p>'
            "<ul><li><strong>pink</strong>, in M</li><li>&lt;b&gt;navy&lt;/b&gt;</li></ul>"
        )
        assert "javascript:" not in html and "<script>alert" not in html
