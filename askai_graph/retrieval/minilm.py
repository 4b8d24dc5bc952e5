"""The bundled all-MiniLM-L6-v2 as a NumPy forward pass: its weights, without PyTorch.

A question embedded through sentence-transformers first imports PyTorch, transformers,
sentence-transformers and, through them, scikit-learn: about 5 s of a cold ``askai
ask`` (8 s of 10 s on a loaded 2-core machine, docs/benchmarks.md), for one forward pass
of a 6-layer, 384-wide BERT over a dozen word pieces. This module runs that pass with
NumPy over the same ``model.safetensors`` and ``tokenizer.json`` (the ``tokenizers`` and
``safetensors`` libraries the extra already installs, each a fraction of a second to
import): BERT's embeddings, six encoder layers, mean pooling over the real tokens and
unit length, as the model folder's ``modules.json`` describes. Its vectors match the
PyTorch path's (cosine >= 0.999, tested), so an index embedded by either serves both.

It reads only BERT folders that pool by mean and normalise (the bundled model);
``MiniLM.fits`` says whether a folder is one.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

MODULES = [
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
]
"""The pipeline of a folder this module reads: a transformer, pooling, unit length."""

# Abramowitz and Stegun 7.1.26: erf within 1.5e-7 (NumPy has no erf; BERT's GELU is the exact one).
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * (1 + erf(x / sqrt 2)) / 2, in place over ``x`` (the largest array of a pass)."""
    a1, a2, a3, a4, a5 = _ERF_A
    z = np.abs(x) * np.float32(1 / math.sqrt(2.0))
    t = 1.0 / (1.0 + np.float32(_ERF_P) * z)
    poly = t * np.float32(a5)
    for a in (a4, a3, a2, a1):
        poly += np.float32(a)
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z  # 1 - erf(|x| / sqrt 2)
    # erf(x / sqrt 2) = sign(x) * (1 - poly), so 1 + erf is 2 - poly for x >= 0 and poly below.
    np.subtract(np.float32(2.0), poly, out=poly, where=x >= 0)
    x *= poly
    x *= np.float32(0.5)
    return x


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return np.asarray((x - mean) / np.sqrt(var + eps) * weight + bias, dtype=np.float32)


def _prepared(weights: dict[str, np.ndarray], layers: int) -> dict[str, np.ndarray]:
    """Return ``weights`` ready for row-major products, one per dense layer.

    Each dense weight is transposed (``rows @ W``), and each layer's query, key and value
    weights stand side by side as ``attention.self.qkv``: one product for three.
    """
    for layer in range(layers):
        at = f"encoder.layer.{layer}.attention.self."
        parts = [f"{at}{name}" for name in ("query", "key", "value")]
        weights[f"{at}qkv.weight"] = np.concatenate([weights.pop(f"{part}.weight") for part in parts])
        weights[f"{at}qkv.bias"] = np.concatenate([weights.pop(f"{part}.bias") for part in parts])
    return {
        name: np.ascontiguousarray(value.T) if name.startswith("encoder.") and name.endswith("dense.weight")
        or name.endswith("qkv.weight") else value
        for name, value in weights.items()
    }


class MiniLM:
    """A BERT sentence encoder with mean pooling, run with NumPy: ``encode`` returns unit-length rows."""

    def __init__(self, folder: Path, max_tokens: int, *, threads: int | None = 1) -> None:
        """Load the weights and tokenizer in ``folder``, reading at most ``max_tokens`` word pieces of a text.

        ``threads`` caps the BLAS threads of this process (``None``: leave them), as
        ``torch.set_num_threads`` does for the PyTorch path: on a loaded 2-core machine,
        OpenBLAS's default of one thread per core spun against the other processes and
        embedded 64 passages in 53 s instead of 5 s with one thread.
        """
        from safetensors.numpy import load_file
        from threadpoolctl import threadpool_limits
        from tokenizers import Tokenizer

        if threads is not None:
            threadpool_limits(threads, user_api="blas")

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.max_seq_length = max_tokens  # the name sentence-transformers gives it
        self.weights: dict[str, np.ndarray] = _prepared(load_file(str(folder / "model.safetensors")), self.layers)
        self.tokenizer: Any = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.enable_padding(pad_id=int(config.get("pad_token_id", 0)))  # to the batch's longest

    @property
    def lowercases(self) -> bool:
        """Whether the tokenizer lower-cases every text (then case never changes a vector)."""
        normalizer = json.loads(self.tokenizer.to_str()).get("normalizer") or {}
        return bool(normalizer.get("lowercase", False))

    @staticmethod
    def configured_tokens(folder: Path) -> int:
        """Return the word pieces ``folder``'s sentence-transformers configuration reads of a text (512 unsaid)."""
        try:
            config = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            config = {}
        return int(config.get("max_seq_length") or 512)

    @staticmethod
    def fits(folder: Path) -> bool:
        """Whether ``folder`` is a model this module runs exactly: BERT, mean pooling, normalised, safetensors."""
        try:
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
            modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
            pooling = json.loads((folder / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        means = pooling.get("pooling_mode_mean_tokens") and not any(
            pooling.get(mode) for mode in ("pooling_mode_cls_token", "pooling_mode_max_tokens",
                                           "pooling_mode_mean_sqrt_len_tokens")
        )
        return bool(
            config.get("model_type") == "bert"
            and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and [module.get("type") for module in modules] == MODULES
            and means
            and (folder / "model.safetensors").is_file()
            and (folder / "tokenizer.json").is_file()
        )

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Return one unit-length float32 row per text, ``batch_size`` texts of similar length per pass."""
        # Longest first, as sentence-transformers batches: a batch pads to its longest text.
        order = sorted(range(len(texts)), key=lambda n: -len(texts[n]))
        rows = np.empty((len(texts), self.weights["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            chosen = order[start:start + batch_size]
            rows[chosen] = self._batch([texts[n] for n in chosen])
        return rows

    def _batch(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([encoding.ids for encoding in encodings], dtype=np.int64)
        types = np.array([encoding.type_ids for encoding in encodings], dtype=np.int64)
        mask = np.array([encoding.attention_mask for encoding in encodings], dtype=np.float32)
        hidden = self._encoder(ids, types, mask)
        summed = (hidden * mask[:, :, None]).sum(axis=1)
        pooled = summed / np.clip(mask.sum(axis=1, keepdims=True), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.clip(norms, 1e-12, None), dtype=np.float32)

    def _encoder(self, ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.weights
        length = ids.shape[1]
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        # Padding attends nowhere: a large negative score before the softmax, as BERT does.
        blocked = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        for layer in range(self.layers):
            x = self._layer(x, blocked, f"encoder.layer.{layer}.")
        return x

    def _layer(self, x: np.ndarray, blocked: np.ndarray, at: str) -> np.ndarray:
        w = self.weights
        batch, length, width = x.shape
        size = width // self.heads
        rows = x.reshape(batch * length, width)  # one matrix product per weight, not one per text

        def dense(name: str, value: np.ndarray) -> np.ndarray:
            return np.asarray(value @ w[f"{at}{name}.weight"] + w[f"{at}{name}.bias"], dtype=np.float32)

        def heads(value: np.ndarray) -> np.ndarray:
            return value.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)

        query, key, value = np.split(dense("attention.self.qkv", rows), 3, axis=1)
        scores = heads(query) @ heads(key).transpose(0, 1, 3, 2) / np.float32(math.sqrt(size)) + blocked
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ heads(value)).transpose(0, 2, 1, 3).reshape(batch * length, width)
        attended = dense("attention.output.dense", context)
        rows = _layer_norm(rows + attended, w[f"{at}attention.output.LayerNorm.weight"],
                           w[f"{at}attention.output.LayerNorm.bias"], self.eps)
        out = dense("output.dense", _gelu(dense("intermediate.dense", rows)))
        rows = _layer_norm(rows + out, w[f"{at}output.LayerNorm.weight"], w[f"{at}output.LayerNorm.bias"], self.eps)
        return rows.reshape(batch, length, width)
