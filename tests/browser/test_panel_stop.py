"""Stop, on the whole stack with an offline model that answers slowly (a word every 100 ms)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.browser import MARKS, daphne_serving

pytestmark = MARKS


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, memory_url) -> Iterator[str]:
    slow = {"AGENT_MEMORY_URL": memory_url, "OFFLINE_MODEL_STREAM_DELAY_MS": 100}
    with django_db_blocker.unblock(), daphne_serving(**slow) as url:
        yield url


def test_stop_during_a_slow_answer_stores_nothing_and_the_next_message_works(ui) -> None:
    ui.sign_in_new("sam")
    ui.open_panel()
    ui.send("show me black jeans in size M")
    streaming = ui.page.locator("li.chat-msg-assistant.pending .chat-bubble p")
    streaming.first.wait_for()  # the answer has begun to arrive
    assert ui.by("chat-send").is_hidden()
    ui.by("chat-stop").click()
    ui.by("chat-stopped").wait_for()
    stopped = ui.answers().last
    assert stopped.locator(".chat-bubble").inner_text().strip()
    assert stopped.get_by_test_id("product-card").count() == 0
    assert ui.by("chat-send").is_visible() and ui.by("chat-stop").is_hidden()
    assert ui.focused()["id"] == "chat-input"
    assert ui.storage("turn_count") == 0, "a stopped turn is no exchange"

    # The socket stays usable: the next message is answered, and remembered.
    answer = ui.ask("thanks")
    assert answer.startswith("You're welcome")
    assert ui.by("chat-stopped").count() == 1
    ui.by("inspector-toggle").click()
    ui.by("inspector-saved").filter(has_text="Turn block").wait_for()
    ui.by("inspector-turn").select_option(index=0)
    assert "nothing of this turn was saved" in ui.by("inspector-saved").inner_text()

    # Nothing of the stopped turn reached memory: no turn, no fact (size M was never kept).
    texts = [record["text"] for record in ui.records()]
    assert any("thanks" in text for text in texts), texts
    assert not any("black jeans" in text or "size M" in text for text in texts), texts
    ui.page.locator('[data-testid="record"]').first.wait_for()
    assert "black jeans" not in ui.by("records-list").inner_text()
    assert ui.errors == []
