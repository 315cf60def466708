"""A local model directory run with onnxruntime and tokenizers directly, without fastembed.

fastembed's import brings huggingface_hub, requests and httpx along (1.76 s of a cold hybrid
recall on a loaded machine, 0.36 s idle), none of which a model already on disk needs. This
loader reads the same sentence-transformers layout (model.onnx, tokenizer.json,
tokenizer_config.json, special_tokens_map.json, 1_Pooling/config.json) and prepares the
tokenizer and pools the output the way fastembed does for such a model, so the vectors are the
same (tests/test_encoder.py compares them) and the embedding cache stays valid. fastembed stays
for named models and downloads (embed._load_named).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any


class Unloadable(Exception):
    """The directory lacks something this loader needs (the caller says what to do)."""


class Encoder:
    """texts -> unit vectors (numpy float32), with `embed` and `query_embed` as fastembed's TextEmbedding has."""

    def __init__(self, path: Path, model_file: str, pooling: str, normalize: bool, max_tokens: int | None,
                 spin: bool = False) -> None:
        """`spin`: onnxruntime's threads wait for work by spinning, as they do by default. That
        embeds batches 15-20% faster, and costs a query: the spinning thread takes the second core
        from the search beside it (a warm hybrid query at 10k chunks: 27-31 ms spinning, 18-19 ms
        not, 2026-11-26). So only bulk work (embed.for_bulk) spins."""
        import numpy as np
        import onnxruntime as ort

        self._np = np
        self.tokenizer, self.limit = tokenizer(path, max_tokens)
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
        self.session = ort.InferenceSession(str(path / model_file), sess_options=options,
                                            providers=["CPUExecutionProvider"])
        self._inputs = {node.name for node in self.session.get_inputs()}
        self.pooling = pooling
        self.normalize = normalize

    def embed(self, texts: Sequence[str], batch_size: int = 32) -> Iterator[Any]:
        for start in range(0, len(texts), batch_size):
            yield from self._batch(list(texts[start:start + batch_size]))

    def query_embed(self, text: str) -> Iterator[Any]:
        """A query is embedded as a passage is (no prefix: what fastembed does for such a model)."""
        yield from self._batch([text])

    def _batch(self, texts: list[str]) -> Any:
        np = self._np
        encoded = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        out = self.session.run(None, feed)[0]
        if self.pooling == "cls":
            pooled = (out[:, 0] if out.ndim == 3 else out).astype(np.float64)
        else:  # the mean over real tokens, summed in float64 as fastembed sums it
            pooled = np.sum(out, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
            pooled = pooled / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
        if self.normalize:
            pooled = pooled / np.maximum(np.linalg.norm(pooled, ord=2, axis=1, keepdims=True), 1e-12)
        return pooled.astype(out.dtype, copy=False)


def tokenizer(path: Path, max_tokens: int | None) -> tuple[Any, int]:
    """The directory's tokenizer, cut and padded as fastembed prepares it (common/preprocessor_utils),
    then cut at `max_tokens` if that is shorter; (tokenizer, the tokenizer's own limit)."""
    from tokenizers import AddedToken, Tokenizer

    settings = _json(path / "tokenizer_config.json")
    config = _json(path / "config.json")
    limits = [v for v in (settings.get("model_max_length"), settings.get("max_length"))
              if isinstance(v, int) and not isinstance(v, bool) and 0 < v <= sys.maxsize]
    if not limits:
        raise Unloadable(f"{path}/tokenizer_config.json names no input length (model_max_length)")
    limit = min(limits)
    tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    truncation = tok.truncation or {}
    direction = settings.get("truncation_side") or truncation.get("direction", "right")
    tok.enable_truncation(max_length=limit, direction=direction)
    for value in _json(path / "special_tokens_map.json").values():
        for token in value if isinstance(value, list) else [value]:
            tok.add_special_tokens([token] if isinstance(token, str) else [AddedToken(**token)])
    padding = tok.padding or {}
    pad_token = padding.get("pad_token") or settings.get("pad_token")
    if isinstance(pad_token, dict):
        pad_token = pad_token.get("content")
    if pad_token is None:
        raise Unloadable(f"{path} names no padding token")
    pad_id = padding.get("pad_id", config.get("pad_token_id"))
    if pad_id is None:
        pad_id = tok.token_to_id(pad_token)
    if pad_id is None:
        raise Unloadable(f"{path}: the padding token {pad_token!r} has no id")
    tok.enable_padding(direction=settings.get("padding_side") or padding.get("direction", "right"), pad_id=pad_id,
                       pad_type_id=padding.get("pad_type_id", 0), pad_token=pad_token,
                       pad_to_multiple_of=padding.get("pad_to_multiple_of"), length=None)
    if max_tokens and max_tokens < limit:
        tok.enable_truncation(max_length=max_tokens, direction=direction)
    return tok, limit


def _json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        if path.name == "tokenizer_config.json":
            raise Unloadable(f"{path.parent} has no tokenizer_config.json")
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}
