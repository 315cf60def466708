"""The embedding model as gitmem loads it, with the real model from ../shared."""

from __future__ import annotations

import numpy as np
import pytest

from gitmem.index import embed

WORDS = "river lantern copper meadow harbour pebble willow ember violet canyon falcon tundra saffron".split()


def vector(embedder: embed.Embedder, text: str) -> np.ndarray:
    return np.frombuffer(embedder.embed([text])[0], dtype=np.float32)


def test_inputs_are_cut_where_the_model_was_trained_to_read() -> None:
    embedder = embed.load(embed.resolve(None))
    assert embedder.max_tokens == 256  # sentence_bert_config.json of the local all-MiniLM-L6-v2
    assert embedder.key == embedder.spec.key + "@256"  # cached apart from embeddings cut elsewhere
    head = " ".join(WORDS[i % len(WORDS)] for i in range(300))  # one word, one token: 300 > 256
    same_start = vector(embedder, head + " the tomatoes need watering twice a week")
    other_end = vector(embedder, head + " the boiler is broken and the plumber comes on Friday")
    assert np.allclose(same_start, other_end, atol=1e-6)  # what follows token 256 is not read
    early = vector(embedder, "the boiler is broken " + head)
    assert not np.allclose(same_start, early, atol=1e-3)
    short = vector(embedder, "the boiler is broken")
    assert abs(float(np.linalg.norm(short)) - 1.0) < 1e-4


def test_a_loaded_model_is_handed_over_without_a_loader_thread() -> None:
    """A warm process (the MCP server) asks for the model on every query: no thread to start."""
    import threading

    spec = embed.resolve(None)
    loaded = embed.load(spec)
    before = threading.active_count()
    started: list[threading.Thread] = []
    real_start = threading.Thread.start

    def spy(self: threading.Thread) -> None:
        started.append(self)
        real_start(self)

    threading.Thread.start = spy  # type: ignore[method-assign]
    try:
        background = embed.Background(spec)
    finally:
        threading.Thread.start = real_start  # type: ignore[method-assign]
    assert background.get() is loaded
    assert started == [] and threading.active_count() == before


def test_an_unloaded_model_loads_on_a_thread_and_reports_why_it_cannot() -> None:
    spec = embed.ModelSpec("no-such/model", None, "test")
    background = embed.Background(spec)
    with pytest.raises(embed.ModelUnavailable) as caught:
        background.get()
    assert str(caught.value) == "fastembed does not know the model 'no-such/model' (from test)"
    assert "GITMEM_MODEL_DIR" in caught.value.hint


def test_a_query_is_embedded_once_for_ranking_and_for_naming_its_facts() -> None:
    """search embeds the query to rank texts, and again to choose each hit's fact: the model runs once."""
    embedder = embed.load(embed.resolve(None))
    calls: list[str] = []
    model = embedder._model
    original = model.query_embed

    def counted(text: str, **kwargs: object) -> object:
        calls.append(text)
        return original(text, **kwargs)

    model.query_embed = counted  # type: ignore[method-assign]
    try:
        first = embedder.embed_query("when is the boiler serviced")
        again = embedder.embed_query("when is the boiler serviced")
        other = embedder.embed_query("who feeds the cat")
    finally:
        del model.query_embed
    assert calls == ["when is the boiler serviced", "who feeds the cat"]
    assert first == again and first != other
    assert np.allclose(np.frombuffer(first, dtype=np.float32), vector(embedder, "when is the boiler serviced"),
                       atol=1e-6)
