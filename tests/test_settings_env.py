"""A malformed setting falls back to its default with one warning; the shop still starts."""

from __future__ import annotations

import logging

from config import env


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


def test_well_formed_values_are_used(monkeypatch):
    monkeypatch.setenv("MEMORY_CROSS_SESSION_FACT_K", " 7 ")
    monkeypatch.setenv("AGENT_MEMORY_EXTRACT_SEMANTIC", "off")
    monkeypatch.setenv("DJANGO_ALLOWED_HOSTS", "a.example, b.example,")
    assert env.env_int("MEMORY_CROSS_SESSION_FACT_K", 10, minimum=1) == 7
    assert env.env_bool("AGENT_MEMORY_EXTRACT_SEMANTIC", True) is False
    assert env.env_list("DJANGO_ALLOWED_HOSTS", []) == ["a.example", "b.example"]
