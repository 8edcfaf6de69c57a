"""Summary and contexts for a block: a language model, or a deterministic extractive fallback.

AGENT_MEMORY_EXTRACTOR picks one: "model" (default) asks the project's model factory
(`llm.factory.chat_client`, `llm.prompts.extraction_messages`); "extractive" builds both
from the text itself. Any model failure (missing factory, error, bad JSON) raises
ExtractionError, which the worker counts as one failed attempt.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from dataclasses import dataclass
from typing import Any, Protocol

from django.conf import settings
from django.utils.module_loading import import_string

SUMMARY_MAX_CHARS = 400
CONTEXT_MAX_CHARS = 120
MAX_CONTEXTS = 5


class ExtractionError(RuntimeError):
    """One failed extraction attempt."""


@dataclass(frozen=True)
class Extraction:
    summary: str
    contexts: list[str]


class Extractor(Protocol):
    name: str

    def extract(self, text: str, *, prompt: str | None = None) -> Extraction: ...


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# A run of capitalised words (optionally joined by digits or "-") keeps "Trail Runner 2" whole.
_NAME = re.compile(r"\b[A-Z][\w'-]*(?:\s+(?:[A-Z0-9][\w'-]*))*")
_NUMBERS = re.compile(r"\b(?:size|eur|€|\$)?\s?\d+(?:[.,]\d+)?\s?(?:eur|€|cm|mm|kg|g)?\b", re.I)
_STOP_STARTS = {"I", "The", "A", "An", "It", "We", "You", "My", "Yes", "No", "Ok", "Okay", "Hi"}


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut + "…"


def _first_sentence(text: str) -> str:
    return _SENTENCE.split(text.strip(), maxsplit=1)[0]


def _names(text: str) -> list[str]:
    found: list[str] = []
    for match in _NAME.finditer(text):
        words = match.group(0).split()
        while words and words[0] in _STOP_STARTS:
            words = words[1:]
        name = " ".join(words)
        if name and name not in found:
            found.append(name)
    return found


class ExtractiveExtractor:
    """Deterministic summary (one sentence) and contexts (names, figures, the request)."""

    name = "extractive"

    def extract(self, text: str, *, prompt: str | None = None) -> Extraction:
        text = text.strip()
        if not text:
            raise ExtractionError("nothing to extract from an empty block")
        summary = _clip(_first_sentence(" ".join(text.split("\n"))), SUMMARY_MAX_CHARS)
        contexts: list[str] = []
        names = _names(text)
        if names:
            contexts.append(_clip("Mentions: " + ", ".join(names), CONTEXT_MAX_CHARS))
        figures = [m.group(0).strip() for m in _NUMBERS.finditer(text) if m.group(0).strip()]
        if figures:
            contexts.append(
                _clip("Figures: " + ", ".join(dict.fromkeys(figures)), CONTEXT_MAX_CHARS)
            )
        first_line = text.split("\n", 1)[0]
        contexts.append(_clip(_first_sentence(first_line), CONTEXT_MAX_CHARS))
        return Extraction(summary=summary, contexts=list(dict.fromkeys(contexts))[:MAX_CONTEXTS])


def parse_extraction(raw: str | None) -> Extraction:
    """Validate the model's JSON; anything but {"summary": str, "contexts": [str]} fails."""
    try:
        data: Any = json.loads(raw or "")
    except ValueError as exc:
        raise ExtractionError(f"model returned invalid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ExtractionError("model JSON is not an object")
    summary, contexts = data.get("summary"), data.get("contexts", [])
    if not isinstance(summary, str) or not summary.strip():
        raise ExtractionError("model JSON has no summary string")
    if not isinstance(contexts, list) or not all(isinstance(c, str) for c in contexts):
        raise ExtractionError("model JSON contexts is not a list of strings")
    cleaned = [_clip(c, CONTEXT_MAX_CHARS) for c in contexts if c.strip()][:MAX_CONTEXTS]
    return Extraction(summary=_clip(summary, SUMMARY_MAX_CHARS), contexts=cleaned)


class ModelExtractor:
    """Extraction by the chat model of `llm.factory`, one event loop per calling thread."""

    name = "model"

    def __init__(self) -> None:
        self._local = threading.local()

    def _loop_and_client(self) -> tuple[asyncio.AbstractEventLoop, Any, str, Any]:
        state = getattr(self._local, "state", None)
        if state is None:
            # Imported on first use, not with this module: the model factory pulls in the
            # OpenAI client, which only the `model` extractor needs, and its absence is one
            # failed attempt rather than a server that cannot start.
            try:
                from llm.factory import chat_client, model_for
                from llm.prompts import extraction_messages
            except ImportError as exc:
                raise ExtractionError(f"the model factory is not available: {exc}") from exc
            # The AsyncOpenAI client binds to the loop it first runs on, so each thread
            # keeps its own loop and client for its lifetime.
            loop = asyncio.new_event_loop()
            state = (loop, chat_client(), model_for("extraction"), extraction_messages)
            self._local.state = state
        return state

    def extract(self, text: str, *, prompt: str | None = None) -> Extraction:
        try:
            loop, client, model, build_messages = self._loop_and_client()
            messages = list(build_messages(text))
            if prompt:
                # A registered custom prompt steers extraction ahead of the default rules.
                messages.insert(0, {"role": "system", "content": prompt})
            response = loop.run_until_complete(
                client.chat.completions.create(
                    model=model,
                    messages=messages,
                    response_format={"type": "json_object"},
                )
            )
            raw = response.choices[0].message.content
        except ExtractionError:
            raise
        except Exception as exc:  # any model failure is one failed attempt, never a crash
            raise ExtractionError(f"model call failed: {exc!r}") from exc
        return parse_extraction(raw)


_extractor: Extractor | None = None
_extractor_lock = threading.Lock()


def build_extractor(name: str) -> Extractor:
    """`model`, `extractive`, or the dotted path of an Extractor class (a plug-in or test fake)."""
    if "." in name:
        return import_string(name)()
    if name == "extractive":
        return ExtractiveExtractor()
    if name == "model":
        return ModelExtractor()
    raise ValueError(f"unknown AGENT_MEMORY_EXTRACTOR={name!r}; use model or extractive")


def get_extractor() -> Extractor:
    global _extractor
    with _extractor_lock:
        if _extractor is None:
            _extractor = build_extractor(settings.AGENT_MEMORY_EXTRACTOR)
        return _extractor
