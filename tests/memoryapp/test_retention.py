"""The retention presets are defined once, and every place that offers them reads that."""

from __future__ import annotations

import json
import re

import pytest

from assistant.admin import DemoSettingsForm
from assistant.api import TurnRequestSerializer
from assistant.models import RETENTION_CHOICES, DemoSettings
from memoryapp.conf import RETENTION, memory_conf


def test_each_preset_keeps_turns_for_its_named_time():
    conf = memory_conf()
    assert {p.name: conf.retention_seconds(p.name) for p in RETENTION} == {
        "default": conf.message_ttl_seconds,
        "1m": 60,
        "5m": 300,
        "1h": 3600,
        "never": 0,
    }
    assert conf.retention_seconds(None) == conf.message_ttl_seconds


def test_demo_settings_the_admin_and_the_api_offer_exactly_the_presets():
    assert DemoSettings._meta.get_field("default_retention").choices == RETENTION_CHOICES
    assert list(DemoSettingsForm().fields["presets_offered"].choices) == RETENTION_CHOICES
    assert list(TurnRequestSerializer().fields["retention"].choices) == [p.name for p in RETENTION]


@pytest.mark.django_db
def test_the_panel_is_given_every_presets_label_by_the_server(client):
    page = client.get("/").content.decode()
    found = re.search(r'<script id="retention-labels" type="application/json">(.*?)</script>', page)
    assert found, "the page carries no retention labels"
    assert json.loads(found.group(1)) == dict(RETENTION_CHOICES)
