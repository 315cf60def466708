"""The local model run with onnxruntime and tokenizers directly (index/encoder.py) gives the vectors
fastembed gives for the same directory, so embeddings cached by either stay valid."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from gitmem.index import embed, encoder
from tests.conftest import MODEL_DIR

TEXTS = ["Sarah's phone is 555-1234", "the boiler is broken and the plumber comes on Friday",
         "ok", "Übergrößenträger café naïve — 東京 🚀", "",
         " ".join(["river lantern copper meadow"] * 120),  # past the 256 tokens the model was trained on
         "what does the user drink in the morning?"]


def fastembed_vectors(texts: list[str]) -> np.ndarray:
    """What gitmem loaded before encoder.py: the directory registered with fastembed as a custom
    model, inputs cut at 256 tokens as sentence-transformers cuts them."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    name = f"test-local/{MODEL_DIR}"
    if not any(m["model"] == name for m in TextEmbedding.list_supported_models()):
        TextEmbedding.add_custom_model(model=name, pooling=PoolingType.MEAN, normalization=True,
                                       sources=ModelSource(hf=name), dim=384, model_file="model.onnx")
    model = TextEmbedding(model_name=name, specific_model_path=str(MODEL_DIR))
    tokenizer = model.model.tokenizer  # type: ignore[attr-defined]
    tokenizer.enable_truncation(max_length=256, direction=(tokenizer.truncation or {}).get("direction", "right"))
    return np.stack(list(model.embed(texts, batch_size=4)))


def test_vectors_match_fastembed_for_the_same_directory() -> None:
    mine = encoder.Encoder(MODEL_DIR, "model.onnx", "mean", True, 256)
    assert mine.limit == 512  # the tokenizer's own limit; the model was trained on 256
    ours = np.stack(list(mine.embed(TEXTS, batch_size=4)))
    theirs = fastembed_vectors(TEXTS)
    assert ours.shape == theirs.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    assert np.allclose(ours, theirs, atol=1e-5)
    single = next(iter(mine.query_embed(TEXTS[0])))  # alone, no padding: the same vector
    assert np.allclose(single, theirs[0], atol=1e-5)


def test_the_loaded_model_keeps_the_key_of_its_embeddings() -> None:
    """Same vectors, same cache key as fastembed's loader gave ('dir:PATH@256')."""
    loaded = embed.load(embed.ModelSpec(MODEL_DIR.name, MODEL_DIR, "test"))
    assert isinstance(loaded._model, encoder.Encoder)
    assert loaded.key == f"dir:{MODEL_DIR}@256"


def test_loading_a_local_model_imports_no_fastembed() -> None:
    code = ("import sys; from pathlib import Path; from gitmem.index import embed; "
            f"e = embed.load(embed.ModelSpec('m', Path({str(MODEL_DIR)!r}), 't')); e.embed_query('x'); "
            "print(sorted(m for m in ('fastembed', 'huggingface_hub', 'requests', 'httpx', 'git') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_only_bulk_work_lets_onnxruntime_spin(monkeypatch) -> None:
    """A spinning intra-op thread takes the second core from the search beside a query (a warm
    hybrid query: 27-31 ms spinning, 18-19 ms not); batches keep it (15-20% faster)."""
    def spinning(bulk: bool) -> str:
        monkeypatch.setattr(embed, "_loaded", {})
        monkeypatch.setattr(embed, "_bulk", False)
        if bulk:
            embed.for_bulk()
        model = embed.load(embed.ModelSpec("local", MODEL_DIR, "test"))
        options = model._model.session.get_session_options()  # type: ignore[attr-defined]
        return str(options.get_session_config_entry("session.intra_op.allow_spinning"))

    assert spinning(bulk=False) == "0"
    assert spinning(bulk=True) == "1"
