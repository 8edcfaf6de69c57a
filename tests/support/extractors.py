"""Extractors for tests, loaded by the server from AGENT_MEMORY_EXTRACTOR's dotted path."""

from __future__ import annotations

from collections import Counter

from memoryserver.extractors import Extraction, ExtractionError, ExtractiveExtractor


class FlakyExtractor:
    """Texts with ALWAYSFAIL never extract; texts with FLAKY fail twice, then succeed."""

    name = "flaky"

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.inner = ExtractiveExtractor()

    def extract(self, text: str, *, prompt: str | None = None) -> Extraction:
        self.calls[text] += 1
        if "ALWAYSFAIL" in text:
            raise ExtractionError("scripted failure")
        if "FLAKY" in text and self.calls[text] <= 2:
            raise ExtractionError("scripted transient failure")
        return self.inner.extract(text, prompt=prompt)


class SlowExtractor:
    """Never finishes within a test, so blocks stay `processing` until the server stops."""

    name = "slow"

    def extract(self, text: str, *, prompt: str | None = None) -> Extraction:
        import time

        time.sleep(3600)
        raise ExtractionError("unreachable")
