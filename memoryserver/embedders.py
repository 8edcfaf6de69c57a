"""The memory server's embedder, chosen by AGENT_MEMORY_EMBEDDER: `hashing`, `minilm` or `openai`.

The local embedders live in `llm.embedding` (the offline model and the catalog read meaning
with the same MiniLM); this module adds the hosted one, the choice by setting, and the
process's one embedder with its cache of query vectors.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
from django.conf import settings

from llm.embedding import (
    DIMENSIONS,
    MINILM_INSTALL,
    Embedder,
    EmbedderUnavailable,
    HashingEmbedder,
    MiniLMEmbedder,
    NumpyMiniLM,
    normalise,
    passes_planned,
)

__all__ = [
    "DIMENSIONS",
    "MINILM_INSTALL",
    "CachedEmbedder",
    "Embedder",
    "EmbedderUnavailable",
    "HashingEmbedder",
    "MiniLMEmbedder",
    "NumpyMiniLM",
    "OpenAIEmbedder",
    "build_embedder",
    "get_embedder",
    "passes_planned",
]


class OpenAIEmbedder:
    """The OpenAI-compatible embeddings API (EMBEDDING_MODEL at OPENAI_BASE_URL)."""

    name = "openai"

    def __init__(self) -> None:
        import openai

        if not settings.OPENAI_API_KEY:
            raise EmbedderUnavailable("AGENT_MEMORY_EMBEDDER=openai needs OPENAI_API_KEY")
        self.model = settings.EMBEDDING_MODEL
        self.dimensions = 0  # known after the first call
        self.client = openai.OpenAI(
            api_key=settings.OPENAI_API_KEY,
            base_url=settings.OPENAI_BASE_URL,
            timeout=settings.MODEL_TIMEOUT_SECONDS,
        )

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions or 1), dtype=np.float32)
        response = self.client.embeddings.create(model=self.model, input=texts)
        matrix = normalise(np.array([d.embedding for d in response.data], dtype=np.float32))
        self.dimensions = matrix.shape[1]
        return matrix


def build_embedder(name: str) -> Embedder:
    if name == "hashing":
        return HashingEmbedder()
    if name == "minilm":
        return MiniLMEmbedder()
    if name == "openai":
        return OpenAIEmbedder()
    raise EmbedderUnavailable(
        f"unknown AGENT_MEMORY_EMBEDDER={name!r}; use hashing, minilm or openai"
    )


class CachedEmbedder:
    """Remember recent query vectors: a recall often repeats one query across searches."""

    def __init__(self, inner: Embedder, size: int = 1024) -> None:
        self.inner = inner
        self.name = inner.name
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
        vector = self.inner.embed([text])[0]
        with self._lock:
            self._cache[text] = vector
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return vector


_embedder: CachedEmbedder | None = None
_embedder_lock = threading.Lock()


def get_embedder() -> CachedEmbedder:
    """Build the configured embedder once per process (MiniLM weights load here)."""
    global _embedder
    with _embedder_lock:
        if _embedder is None:
            _embedder = CachedEmbedder(build_embedder(settings.AGENT_MEMORY_EMBEDDER))
        return _embedder
