"""The panel speaks for whoever is signed in now, and its mode line for memory as it is now.

The whole stack: daphne, the consumer, the offline model, the memory server. Two tabs are two
pages of one browser context (one cookie jar, a sessionStorage each), as on a shared computer.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.browser import MARKS, unique_name

pytestmark = MARKS

REMEMBERING = "Remembering you as {}"
MEMORY_OFF = "Memory is switched off — this chat is not remembered"


@pytest.fixture
def server(memory_live_server):
    return memory_live_server


def _in_database(django_db_blocker, change) -> None:
    """Run `change` on the shop's database from a thread of its own: sync Playwright keeps an
    event loop running in this one, where Django refuses to query."""
    from django.db import connection

    def run() -> None:
        try:
            change()
        finally:
            connection.close()

    with django_db_blocker.unblock(), ThreadPoolExecutor(1) as pool:
        pool.submit(run).result()


def _new_tab(ui):
    page = ui.context.new_page()
    page.on("pageerror", lambda error: ui.errors.append(str(error)))
    return page


def _wait_for_panel(page) -> None:
    page.wait_for_selector('#chat-panel[data-ready="true"]:not([hidden])')


def test_a_sign_out_in_one_tab_ends_the_other_tabs_panel(ui) -> None:
    ann = ui.sign_in_new("ann")
    ui.open_panel()
    answer = ui.ask("I'm a size M and I hate yellow, show me jeans")
    assert answer and ui.by("chat-mode").inner_text() == REMEMBERING.format(ann)

    # The second tab opens its own panel as Ann.
    tab = _new_tab(ui)
    tab.goto(ui.url("/"))
    tab.get_by_test_id("chat-launcher").click()
    _wait_for_panel(tab)
    tab.get_by_test_id("greeting-text").wait_for()
    assert tab.get_by_test_id("chat-mode").inner_text() == REMEMBERING.format(ann)

    # In the first tab Ann signs out, and someone else signs in.
    ui.page.locator("form[action='/signout/'] button").click()
    ui.page.wait_for_url(ui.url("/"))
    bob_name = unique_name("bob")
    ui.goto("/signin/")
    ui.page.fill("#id_username", bob_name)
    ui.page.locator("form.new-shopper button").click()
    ui.page.wait_for_url(ui.url("/"))

    # Ann's other tab says her chat has ended, at once, and takes no more input.
    ended = tab.get_by_test_id("chat-ended")
    ended.wait_for()
    assert "no longer signed in" in ended.inner_text()
    mode = tab.get_by_test_id("chat-mode").inner_text()
    assert "Remembering" not in mode and ann not in mode
    assert tab.get_by_test_id("chat-input").is_disabled()
    assert tab.get_by_test_id("chat-signin").get_attribute("href").startswith("/signin/?next=")
    assert tab.locator("li.chat-msg").count() == 0, "Ann's conversation left the screen"
    assert tab.evaluate("() => sessionStorage.getItem('aisle.chat.conversation')") is None
    tab.wait_for_selector('#chat-panel[data-connected="false"]')
    tab.wait_for_timeout(1500)  # the socket's first reconnect would have come by now
    assert tab.get_by_test_id("chat-panel").get_attribute("data-connected") == "false"

    # The page reloaded is Bob's: nothing of Ann's memory answers him.
    tab.reload()
    tab.get_by_test_id("chat-launcher").click()
    _wait_for_panel(tab)
    bob = bob_name.capitalize()
    assert tab.get_by_test_id("chat-mode").inner_text() == REMEMBERING.format(bob)
    tab.get_by_test_id("chat-input").fill("what do you remember about me?")
    tab.get_by_test_id("chat-input").press("Enter")
    tab.wait_for_function(
        "() => document.querySelectorAll("
        "'li.chat-msg-assistant:not(.pending):not(.chat-greeting)').length >= 1"
    )
    reply = tab.locator("li.chat-msg-assistant:not(.chat-greeting) .chat-bubble").last.inner_text()
    assert "size M" not in reply and "yellow" not in reply.lower(), reply
    assert ui.errors == []


@pytest.fixture
def staff(ui, django_db_blocker):
    """A second browser context signed in to the admin: staff, in a browser of their own."""
    from django.contrib.auth import get_user_model

    name = unique_name("staff")
    _in_database(
        django_db_blocker,
        lambda: get_user_model().objects.create_superuser(name, f"{name}@x.example", "pass-9x"),
    )
    context = ui.context.browser.new_context()
    page = context.new_page()
    page.goto(ui.url("/admin/login/"))
    page.fill("#id_username", name)
    page.fill("#id_password", "pass-9x")
    page.locator("input[type=submit]").click()
    page.wait_for_url(ui.url("/admin/"))
    yield page
    context.close()


def _switch_memory(staff, *, on: bool) -> None:
    staff.goto(staff.url.split("/admin/")[0] + "/admin/assistant/demosettings/")
    box = staff.locator("#id_memory_enabled")
    box.set_checked(on)
    staff.locator("input[name=_save]").click()
    staff.locator(".messagelist .success").wait_for()


def test_the_mode_line_follows_staffs_switch_live_and_on_every_page_load(
    ui, staff, django_db_blocker
) -> None:
    ben = ui.sign_in_new("ben")
    ui.open_panel()
    ui.ask("show me boots")
    assert ui.by("chat-mode").inner_text() == REMEMBERING.format(ben)

    # Staff switch memory off: the open panel says so without a message being sent.
    _switch_memory(staff, on=False)
    ui.page.wait_for_function(
        "text => document.querySelector('[data-testid=chat-mode]').textContent === text",
        arg=MEMORY_OFF,
    )
    ui.goto("/")
    ui.wait_for_panel()
    assert ui.by("chat-mode").inner_text() == MEMORY_OFF

    # Back on, live again.
    _switch_memory(staff, on=True)
    ui.page.wait_for_function(
        "text => document.querySelector('[data-testid=chat-mode]').textContent === text",
        arg=REMEMBERING.format(ben),
    )

    # Switched off where no open panel hears it (straight in the database): the next page
    # load still says so, though this tab last heard "remembering" from a turn.
    from assistant.models import DemoSettings

    switch = DemoSettings.objects.filter(pk=1).update
    _in_database(django_db_blocker, lambda: switch(memory_enabled=False))
    ui.goto("/")
    ui.wait_for_panel()
    assert ui.by("chat-mode").inner_text() == MEMORY_OFF
    _in_database(django_db_blocker, lambda: switch(memory_enabled=True))
    ui.goto("/")
    ui.wait_for_panel()
    assert ui.by("chat-mode").inner_text() == REMEMBERING.format(ben)
    assert ui.errors == []
