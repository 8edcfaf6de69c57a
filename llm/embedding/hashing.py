"""Feature hashing: the embedder that needs no model."""

from __future__ import annotations

import hashlib
import re
from itertools import pairwise

import numpy as np

from llm.embedding.base import DIMENSIONS, normalise

_WORD = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    """Feature hashing of words, word pairs and character trigrams: deterministic and model-free."""

    name = "hashing"

    def __init__(self, dimensions: int = DIMENSIONS) -> None:
        self.dimensions = dimensions

    def _features(self, text: str) -> list[tuple[str, float]]:
        words = _WORD.findall(text.lower())
        feats: list[tuple[str, float]] = [(f"w:{w}", 1.0) for w in words]
        feats += [(f"b:{a} {b}", 0.5) for a, b in pairwise(words)]
        for word in words:
            padded = f"^{word}$"
            feats += [(f"c:{padded[i : i + 3]}", 0.3) for i in range(len(padded) - 2)]
        return feats

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dimensions, dtype=np.float32)
        for feature, weight in self._features(text):
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            # The sign bit halves collisions' bias (the usual hashing-trick correction).
            sign = 1.0 if value >> 63 else -1.0
            vec[value % self.dimensions] += sign * weight
        return vec

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return normalise(np.stack([self._vector(t) for t in texts]))
