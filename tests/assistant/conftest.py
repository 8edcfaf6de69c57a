from __future__ import annotations

import json

import pytest

from harness.fake_openai import FakeOpenAI
from tests.support.chat import session_cookie_for
from tests.support.memory_proxy import MemoryProxy

SHORT_VISIT = json.dumps({"facts": [], "summary": "A short visit.", "found": True})


@pytest.fixture
def fake_openai(settings):
    fake = FakeOpenAI().start()
    settings.OPENAI_API_KEY = "sk-test"
    settings.OPENAI_BASE_URL = fake.base_url
    settings.ASSISTANT_MODEL = "gpt-test"
    settings.JUDGE_MODEL = "gpt-test-judge"
    yield fake
    fake.stop()


@pytest.fixture
def slow_model(settings):
    """The scripted model for turns a test stops mid-answer (script `slow_reply()`); a
    visit it closes gets a short episode."""
    model = FakeOpenAI(unscripted={"episode": SHORT_VISIT}).start()
    settings.OPENAI_API_KEY = "sk-test"
    settings.OPENAI_BASE_URL = model.base_url
    settings.ASSISTANT_MODEL = "gpt-slow"
    settings.JUDGE_MODEL = "gpt-slow-judge"
    yield model
    model.stop()


@pytest.fixture
def memory_proxy(live_memory, settings):
    """The live memory server behind a proxy that fails the requests a test chooses."""
    proxy = MemoryProxy.in_front_of(live_memory.base_url).start()
    settings.AGENT_MEMORY_URL = proxy.url
    yield proxy
    proxy.stop()


@pytest.fixture
def shopper(shopper_name, django_db_blocker):
    """A fresh signed-in shopper named Tess, so tests sharing one memory server never meet."""
    from shop.services import shopper_get_or_create

    username = shopper_name[:30].rstrip("-")
    with django_db_blocker.unblock():
        shopper_get_or_create(username=username, display_name="Tess")
        cookie = session_cookie_for(username)
    return username, cookie


@pytest.fixture
def memory_down(settings):
    # Nothing listens on the discard port: connections are refused at once.
    settings.AGENT_MEMORY_URL = "http://127.0.0.1:9"
