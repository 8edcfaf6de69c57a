"""The memory policy's knobs, read once per use from Django settings.

Names and defaults follow the memory specification; config/settings/base.py parses the
environment (a malformed value falls back to its default with one warning).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class RetentionPreset:
    """A choice of the demo's retention control; what a session's turns are kept for."""

    name: str
    label: str
    # None means "the default": MEMORY_MESSAGE_TTL_SECONDS, looked up when used; 0 is never.
    seconds: int | None


# The one definition of the presets: the frame validation, the demo settings, the panel
# (rendered into the page) and the admin all read these.
RETENTION = (
    RetentionPreset("default", "Default (90 days)", None),
    RetentionPreset("1m", "1 minute", 60),
    RetentionPreset("5m", "5 minutes", 300),
    RetentionPreset("1h", "1 hour", 3600),
    RetentionPreset("never", "Never expire", 0),
)
RETENTION_PRESETS: dict[str, int | None] = {p.name: p.seconds for p in RETENTION}


@dataclass(frozen=True)
class MemoryConf:
    message_ttl_seconds: int
    fact_ttl_seconds: int
    verbatim_window_turns: int
    search_threshold_turns: int
    max_session_blocks: int
    cross_session_fact_k: int
    cross_session_turn_k: int
    cross_session_episode_k: int
    max_facts_per_turn: int
    note_max_chars: int
    notes_max_tokens: int
    timeout_seconds: float
    write_timeout_seconds: float

    def retention_seconds(self, preset: str | None) -> int:
        seconds = RETENTION_PRESETS.get(preset or "default")
        return self.message_ttl_seconds if seconds is None else seconds


def memory_conf() -> MemoryConf:
    return MemoryConf(
        message_ttl_seconds=settings.MEMORY_MESSAGE_TTL_SECONDS,
        fact_ttl_seconds=settings.MEMORY_FACT_TTL_SECONDS,
        verbatim_window_turns=settings.MEMORY_VERBATIM_WINDOW_TURNS,
        search_threshold_turns=settings.MEMORY_SEARCH_THRESHOLD_TURNS,
        max_session_blocks=settings.MEMORY_MAX_SESSION_BLOCKS,
        cross_session_fact_k=settings.MEMORY_CROSS_SESSION_FACT_K,
        cross_session_turn_k=settings.MEMORY_CROSS_SESSION_TURN_K,
        cross_session_episode_k=settings.MEMORY_CROSS_SESSION_EPISODE_K,
        max_facts_per_turn=settings.MEMORY_MAX_FACTS_PER_TURN,
        note_max_chars=settings.MEMORY_NOTE_MAX_CHARS,
        notes_max_tokens=settings.MEMORY_NOTES_MAX_TOKENS,
        timeout_seconds=settings.AGENT_MEMORY_TIMEOUT_SECONDS,
        write_timeout_seconds=settings.AGENT_MEMORY_WRITE_TIMEOUT_SECONDS,
    )


def retention_preset_for(seconds: int | None, *, conf: MemoryConf | None = None) -> str | None:
    """Name the preset a session's TTL corresponds to, for showing what it runs with."""
    if seconds is None:
        return None
    conf = conf or memory_conf()
    for name in RETENTION_PRESETS:
        if conf.retention_seconds(name) == seconds:
            return name
    return None
