"""all-MiniLM-L6-v2's encoder as an ONNX graph, run by ONNX Runtime.

The graph is built in memory from the shipped safetensors weights when the server starts
(about a second), so there is no exported file to keep in step with the weights. It mirrors
the numpy forward pass in `llm.embedding.minilm.NumpyMiniLM` op for op, in standard ONNX operators;
ONNX Runtime's matrix kernels make a query embedding two to three times faster than numpy's
OpenBLAS (docs/benchmarks.md, "MiniLM embedder"). The weights stay float32: int8
quantisation was measured and moved vectors too far (cosine to the float32 vector down to
0.98 even with per-channel scales).

Importing this module fails with ImportError when onnx or onnxruntime is not installed;
`llm.embedding.minilm` then falls back to the numpy pass.
"""

from __future__ import annotations

import math

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

OPSET = 20  # the first with Gelu; LayerNormalization needs 17


class _GraphBuilder:
    """Collects nodes and initializers; each node gets a unique output name."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []

    def constant(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, *inputs: str, output: str | None = None, **attributes) -> str:
        output = output or f"{op_type.lower()}_{len(self.nodes)}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [output], **attributes))
        return output


def build_minilm_graph(
    weights: dict[str, np.ndarray], *, heads: int, layers: int, eps: float
) -> onnx.ModelProto:
    """BERT encoder: (input_ids, attention_mask) [batch, seq] int64 -> hidden [batch, seq, width]."""
    g = _GraphBuilder()
    width = weights["embeddings.word_embeddings.weight"].shape[1]
    head_dim = width // heads

    def dense(x: str, prefix: str) -> str:
        # Linear layers store [out, in]; MatMul wants [in, out].
        kernel = g.constant(f"{prefix}.kernel", weights[f"{prefix}.weight"].T)
        return g.op(
            "Add", g.op("MatMul", x, kernel), g.constant(f"{prefix}.b", weights[f"{prefix}.bias"])
        )

    def layer_norm(x: str, prefix: str) -> str:
        return g.op(
            "LayerNormalization",
            x,
            g.constant(f"{prefix}.gamma", weights[f"{prefix}.weight"]),
            g.constant(f"{prefix}.beta", weights[f"{prefix}.bias"]),
            axis=-1,
            epsilon=eps,
        )

    split_heads = g.constant("split_heads", np.array([0, 0, heads, head_dim], np.int64))
    merge_heads = g.constant("merge_heads", np.array([0, 0, width], np.int64))

    def heads_of(x: str, perm: list[int]) -> str:
        return g.op("Transpose", g.op("Reshape", x, split_heads), perm=perm)

    # Embeddings: word + position (the first `seq` rows) + token type 0, then LayerNorm.
    seq = g.op(
        "Slice",
        g.op("Shape", "input_ids"),
        g.constant("one", np.array([1], np.int64)),
        g.constant("two", np.array([2], np.int64)),
    )
    positions = g.op(
        "Slice",
        g.constant("position_table", weights["embeddings.position_embeddings.weight"]),
        g.constant("zero", np.array([0], np.int64)),
        seq,
    )
    words = g.op(
        "Gather",
        g.constant("word_table", weights["embeddings.word_embeddings.weight"]),
        "input_ids",
    )
    token_type = g.constant("token_type", weights["embeddings.token_type_embeddings.weight"][0])
    hidden = layer_norm(
        g.op("Add", g.op("Add", words, positions), token_type), "embeddings.LayerNorm"
    )

    # Padding gets -1e9 before the softmax, as in the numpy pass: exactly zero weight.
    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    pad = g.op("Sub", g.constant("one_f", np.array(1.0, np.float32)), mask)
    mask_bias = g.op(
        "Unsqueeze",
        g.op("Mul", pad, g.constant("pad_bias", np.array(-1e9, np.float32))),
        g.constant("head_and_query_axes", np.array([1, 2], np.int64)),
    )
    scale = g.constant("scale", np.array(1.0 / math.sqrt(head_dim), np.float32))

    for layer in range(layers):
        p = f"encoder.layer.{layer}."
        query = heads_of(dense(hidden, f"{p}attention.self.query"), [0, 2, 1, 3])
        key_t = heads_of(dense(hidden, f"{p}attention.self.key"), [0, 2, 3, 1])
        value = heads_of(dense(hidden, f"{p}attention.self.value"), [0, 2, 1, 3])
        scores = g.op("Add", g.op("Mul", g.op("MatMul", query, key_t), scale), mask_bias)
        probs = g.op("Softmax", scores, axis=-1)
        context = g.op(
            "Reshape",
            g.op("Transpose", g.op("MatMul", probs, value), perm=[0, 2, 1, 3]),
            merge_heads,
        )
        attended = dense(context, f"{p}attention.output.dense")
        hidden = layer_norm(g.op("Add", attended, hidden), f"{p}attention.output.LayerNorm")
        inner = g.op("Gelu", dense(hidden, f"{p}intermediate.dense"))  # exact (erf) GELU
        out = dense(inner, f"{p}output.dense")
        hidden = layer_norm(g.op("Add", out, hidden), f"{p}output.LayerNorm")
    g.op("Identity", hidden, output="hidden")

    graph = helper.make_graph(
        g.nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "seq", width])],
        g.initializers,
    )
    opsets = [helper.make_opsetid("", OPSET)]
    # ONNX Runtime validates the graph when it loads it; onnx.checker would serialise the
    # 90 MB model once more just to check it (tests/memoryserver/test_minilm.py runs the checker).
    return helper.make_model(
        graph, opset_imports=opsets, ir_version=helper.find_min_ir_version_for(opsets)
    )


class OnnxMiniLM:
    """The encoder in an ONNX Runtime session: `encode(ids, mask)` -> hidden states."""

    runtime = "onnxruntime"

    def __init__(
        self,
        weights: dict[str, np.ndarray],
        *,
        heads: int,
        layers: int,
        eps: float,
        intra_op_threads: int = 1,
    ) -> None:
        model = build_minilm_graph(weights, heads=heads, layers=layers, eps=eps)
        options = onnxruntime.SessionOptions()
        # One thread per embedding: the server's parallelism is its request threads (a
        # session may be run from several at once, and run() releases the GIL), as for numpy's
        # OpenBLAS (blas.py). A second intra-op thread per call fights the other requests for
        # the two cores; measured in docs/benchmarks.md.
        options.intra_op_num_threads = intra_op_threads
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        self.session = onnxruntime.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )

    def encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        (hidden,) = self.session.run(["hidden"], {"input_ids": ids, "attention_mask": mask})
        return hidden
