"""Embeddings (ONNX on the CPU), loaded lazily.

The model is named by GITMEM_MODEL_DIR / git config mem.modelDir (a local
sentence-transformers directory: ONNX file, tokenizer, 1_Pooling/config.json,
run by encoder.py with onnxruntime and tokenizers directly) or by GITMEM_MODEL
/ mem.model (a fastembed model name, default BAAI/bge-small-en-v1.5, run by
fastembed, which also downloads it). A query never downloads: only `git mem init`,
`rebuild` and `git mem model download` may fetch a named model.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .. import config
from ..errors import GitmemError

if TYPE_CHECKING:
    from ..gitops.git import Git

# a fresh clone of a notebook built with a local model directory has no mem.modelDir (git config is per
# clone): pointing it at that directory comes first, as the vectors that came with the clone are of that
# model; downloading the default model works too, but embeds the whole notebook again
HOW_TO_ENABLE = (f"point this clone at the model directory the notebook uses (git mem init --model-dir DIR, "
                 f"or {config.MODEL_DIR_ENV}), or run 'git mem model download' for the named model")
BATCH = 32


class ModelUnavailable(GitmemError):
    def off_note(self) -> str:
        """What every output says when semantic search cannot run."""
        return f"semantic search is off: {self.message}; to turn it on, {self.hint}"


@dataclass(frozen=True)
class ModelSpec:
    """Which model to use and where the choice came from."""

    name: str
    path: Path | None
    source: str

    @property
    def key(self) -> str:
        """Identity of the model for the embedding cache."""
        return f"dir:{self.path}" if self.path else f"name:{self.name}"


def resolve(git: Git | None, environ: Mapping[str, str] | None = None) -> ModelSpec:
    """The model this machine is configured to use (the variable wins over git config); with
    `environ`, the one a process with those variables would use (the daemon asks for a caller's)."""
    variables = os.environ if environ is None else environ

    def setting(env: str, key: str) -> tuple[str | None, str]:
        if variables.get(env):
            return variables[env], env
        value = git.config_get(key) if git else None
        return value, f"git config {key}"

    path, source = setting(config.MODEL_DIR_ENV, config.MODEL_DIR_KEY)
    if path:
        resolved = Path(path).expanduser().resolve()
        return ModelSpec(resolved.name, resolved, source)
    name, source = setting(config.MODEL_NAME_ENV, config.MODEL_NAME_KEY)
    return ModelSpec(name or config.DEFAULT_MODEL, None, source if name else "default")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gitmem" / "models"


class Model(Protocol):
    """What an Embedder needs of its model: gitmem's own Encoder, or fastembed's TextEmbedding."""

    def embed(self, texts: list[str], /, batch_size: int) -> Iterable[Any]: ...

    def query_embed(self, text: str, /) -> Iterable[Any]: ...


class Embedder:
    """A loaded model: texts in, L2-normalised float32 vectors (as bytes) out."""

    def __init__(self, spec: ModelSpec, model: Model, dim: int, max_tokens: int | None = None) -> None:
        self.spec = spec
        self.dim = dim
        self.max_tokens = max_tokens  # inputs cut to this many tokens, if gitmem cut them shorter than the loader
        self._model = model
        self._lock = threading.Lock()
        self._last_query: tuple[str, bytes] | None = None  # a search embeds its query twice (ranking, facts)

    @property
    def key(self) -> str:
        """Identity of the embeddings for the cache: the model, and where its inputs are cut."""
        return self.spec.key + (f"@{self.max_tokens}" if self.max_tokens else "")

    def embed(self, texts: Sequence[str]) -> list[bytes]:
        out: list[bytes] = [b""] * len(texts)
        # Batches of similar length: a batch is padded to its longest text.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with self._lock:
            for i in range(0, len(order), BATCH):
                chosen = order[i:i + BATCH]
                vectors = self._model.embed([texts[j] for j in chosen], batch_size=BATCH)
                for j, v in zip(chosen, vectors):
                    out[j] = v.astype("float32").tobytes()
        return out

    def embed_queries(self, texts: list[str]) -> list[bytes]:
        """A query's vectors: one batch for a local model (two texts: 13.9 ms where one after the
        other took 18.9, 2026-11-26), one at a time for a loader that may treat queries apart."""
        from .encoder import Encoder

        if len(texts) < 2 or not isinstance(self._model, Encoder):
            return [self.embed_query(t) for t in texts]
        with self._lock:
            out = [v.astype("float32").tobytes() for v in self._model.embed(texts, batch_size=len(texts))]
            self._last_query = (texts[0], out[0])
        return out

    def embed_query(self, text: str) -> bytes:
        with self._lock:
            if self._last_query is not None and self._last_query[0] == text:
                return self._last_query[1]
            vector: bytes = next(iter(self._model.query_embed(text))).astype("float32").tobytes()
            self._last_query = (text, vector)
        return vector


_loaded: dict[str, Embedder] = {}
_load_lock = threading.Lock()
_bulk = False


def for_bulk() -> None:
    """This process embeds in bulk (git mem index, rebuild, init, the background worker): a local
    model loaded from now on favours batches over single queries (encoder.Encoder's `spin`)."""
    global _bulk
    _bulk = True


def load(spec: ModelSpec, allow_download: bool = False) -> Embedder:
    """Load the model (once per process). ModelUnavailable says why it cannot."""
    with _load_lock:
        if spec.key in _loaded:
            return _loaded[spec.key]
        embedder = _load_local(spec) if spec.path else _load_named(spec, allow_download)
        _loaded[spec.key] = embedder
        return embedder


def _load_local(spec: ModelSpec) -> Embedder:
    assert spec.path is not None
    if not spec.path.is_dir():
        raise ModelUnavailable(f"model directory {spec.path} (from {spec.source}) does not exist", HOW_TO_ENABLE)
    model_file = next((f for f in ("model.onnx", "onnx/model.onnx", "model_quantized.onnx")
                       if (spec.path / f).is_file()), None)
    if model_file is None or not (spec.path / "tokenizer.json").is_file():
        raise ModelUnavailable(f"{spec.path} has no model.onnx and tokenizer.json", HOW_TO_ENABLE)
    pooling, normalize, dim, max_tokens = _read_layout(spec.path)
    from . import encoder

    try:
        model = encoder.Encoder(spec.path, model_file, pooling, normalize, max_tokens, spin=_bulk)
    except encoder.Unloadable as exc:
        raise ModelUnavailable(str(exc), HOW_TO_ENABLE) from exc
    except Exception as exc:  # onnxruntime and tokenizers raise many kinds
        raise ModelUnavailable(f"cannot load the model in {spec.path}: {exc}", HOW_TO_ENABLE) from exc
    # Inputs are cut at the length the model was trained for (sentence-transformers'
    # max_seq_length), as sentence-transformers does, where the tokenizer's own limit is longer
    # (512 for all-MiniLM-L6-v2, trained on 256): on LoCoMo's 1,600-character chunks of dialogue
    # the first 256 tokens alone gave a better ranking (evidence recall@5 of semantic search
    # 50.7% -> 60.0%; SciFact nDCG@10 0.658 -> 0.660), and shorter inputs embed faster. The
    # cut is part of the embeddings' key.
    cut = max_tokens if max_tokens and max_tokens < model.limit else None
    return Embedder(spec, model, dim, cut)


def _read_layout(path: Path) -> tuple[str, bool, int, int | None]:
    """Pooling mode, normalisation, dimension and trained input length from a sentence-transformers layout."""
    pooling_file = path / "1_Pooling" / "config.json"
    pooling = json.loads(pooling_file.read_text()) if pooling_file.is_file() else {}
    mode = "cls" if pooling.get("pooling_mode_cls_token") else "mean"
    modules_file = path / "modules.json"
    modules = json.loads(modules_file.read_text()) if modules_file.is_file() else []
    normalize = not modules or any("Normalize" in m.get("type", "") for m in modules)
    dim = pooling.get("word_embedding_dimension")
    if not dim and (path / "config.json").is_file():
        dim = json.loads((path / "config.json").read_text()).get("hidden_size")
    if not dim:
        raise ModelUnavailable(f"cannot tell the embedding size of {path}", "add 1_Pooling/config.json")
    st_file = path / "sentence_bert_config.json"
    max_tokens = json.loads(st_file.read_text()).get("max_seq_length") if st_file.is_file() else None
    return mode, normalize, int(dim), int(max_tokens) if isinstance(max_tokens, int) and max_tokens > 0 else None


NETWORK_TIMEOUT = 5.0  # seconds to reach the model hub before giving up on a download


def _load_named(spec: ModelSpec, allow_download: bool) -> Embedder:
    # A short network timeout for the explicit download step; queries never reach the network.
    os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", "5")
    os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", "15")
    from fastembed import TextEmbedding

    known = {m["model"].lower(): m for m in TextEmbedding.list_supported_models()}
    if spec.name.lower() not in known:
        raise ModelUnavailable(f"fastembed does not know the model {spec.name!r} (from {spec.source})",
                               HOW_TO_ENABLE)
    try:
        from loguru import logger

        logger.disable("fastembed")  # its retry messages would bury gitmem's one line
    except ImportError:  # fastembed's logger; a later fastembed may not use it
        pass
    try:
        model = TextEmbedding(model_name=spec.name, cache_dir=str(cache_dir()),
                              local_files_only=True)
    except Exception as exc:
        if not allow_download:
            raise _unavailable(spec, "find a downloaded copy of", exc) from exc
        _check_reachable(spec)
        try:
            model = TextEmbedding(model_name=spec.name, cache_dir=str(cache_dir()))
        except Exception as exc:
            raise _unavailable(spec, "download", exc) from exc
    return Embedder(spec, model, int(known[spec.name.lower()]["dim"]))


def _unavailable(spec: ModelSpec, verb: str, exc: Exception) -> ModelUnavailable:
    return ModelUnavailable(f"cannot {verb} the model {spec.name}: {str(exc).splitlines()[0][:200]}", HOW_TO_ENABLE)


def _check_reachable(spec: ModelSpec) -> None:
    """Fail within seconds when the model hub cannot be reached, rather than after
    fastembed's retries (3 + 9 + 27 s of waiting on a machine without network)."""
    import socket
    from urllib.parse import urlsplit

    endpoint = urlsplit(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    host, port = endpoint.hostname or "huggingface.co", endpoint.port or (80 if endpoint.scheme == "http" else 443)
    try:
        socket.create_connection((host, port), timeout=NETWORK_TIMEOUT).close()
    except OSError as exc:
        raise ModelUnavailable(f"cannot download the model {spec.name}: {host}:{port} is not reachable ({exc})",
                               HOW_TO_ENABLE) from exc


class Background:
    """Loads the model on a thread while the caller catches the index up."""

    def __init__(self, spec: ModelSpec, allow_download: bool = False) -> None:
        self.spec = spec
        self._result: Embedder | None = None
        self._error: ModelUnavailable | None = None
        self._thread: threading.Thread | None = None
        # no lock: a load in progress holds it, and the caller should catch up meanwhile
        self._result = _loaded.get(spec.key)
        if self._result is None:  # a thread only when there is loading to do (a warm server has none)
            self._thread = threading.Thread(target=self._run, args=(allow_download,), daemon=True)
            self._thread.start()

    def _run(self, allow_download: bool) -> None:
        try:
            self._result = load(self.spec, allow_download)
        except ModelUnavailable as exc:
            self._error = exc
        except Exception as exc:  # a broken install must not take keyword search down
            self._error = ModelUnavailable(f"cannot load the model: {exc}", HOW_TO_ENABLE)

    def get(self) -> Embedder:
        if self._thread is not None:
            self._thread.join()
        if self._error:
            raise self._error
        assert self._result is not None
        return self._result
