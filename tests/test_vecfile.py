"""The file format of shared embeddings: int8 round trip, strict decoding of untrusted bytes."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.index import vecfile


def _vectors(count: int, dim: int = 384, seed: int = 0) -> dict[str, bytes]:
    rng = np.random.default_rng(seed)
    out = {}
    for i in range(count):
        v = rng.normal(size=dim).astype("f4")
        out[hashlib.sha256(str(i).encode()).hexdigest()] = (v / np.linalg.norm(v)).astype("<f4").tobytes()
    return out


def _cos(a: bytes, b: bytes) -> float:
    x, y = np.frombuffer(a, "<f4"), np.frombuffer(b, "<f4")
    return float(x @ y / np.linalg.norm(x) / np.linalg.norm(y))


def test_int8_round_trip_keeps_every_vector_within_cosine_0_9999() -> None:
    vectors = _vectors(200)
    back = vecfile.decode(vecfile.encode("onnx-sha256:abc@256", 384, vectors))
    assert back is not None and (back.model, back.dim) == ("onnx-sha256:abc@256", 384)
    assert set(back.vectors) == set(vectors)
    assert min(_cos(vectors[h], back.vectors[h]) for h in vectors) >= 0.9999
    assert all(abs(np.linalg.norm(np.frombuffer(v, "<f4")) - 1) < 1e-5 for v in back.vectors.values())


def test_a_file_costs_420_bytes_a_vector_of_384_dimensions() -> None:
    data = vecfile.encode("m", 384, _vectors(1000))
    header = data.index(b"\n\n") + 2
    assert (len(data) - header, vecfile.record_size(384)) == (420_000, 420)


def test_re_encoding_a_decoded_file_does_not_drift() -> None:
    """Compaction decodes and encodes again: the int8 values stay the same, so vectors do not move."""
    data = vecfile.encode("m", 64, _vectors(50, 64))
    back = vecfile.decode(data)
    assert back is not None
    again = vecfile.encode("m", 64, back.vectors)
    size, start = vecfile.record_size(64), data.index(b"\n\n") + 2
    assert [data[i + 36:i + size] for i in range(start, len(data), size)] == \
        [again[i + 36:i + size] for i in range(start, len(again), size)]
    twice = vecfile.decode(again)
    assert twice is not None and min(_cos(back.vectors[h], twice.vectors[h]) for h in back.vectors) > 0.999999


def test_the_header_says_version_model_dimension_and_count() -> None:
    data = vecfile.encode("name:BAAI/bge-small-en-v1.5", 8, _vectors(2, 8))
    assert data.split(b"\n\n")[0].decode().splitlines() == [
        "gitmem-embeddings 1", "model name:BAAI/bge-small-en-v1.5", "dim 8", "encoding int8", "count 2"]


@pytest.mark.tally("bad-input/fault matrix")
def test_malformed_files_decode_to_none() -> None:
    good = vecfile.encode("m", 8, _vectors(3, 8))
    header, _, body = good.partition(b"\n\n")
    bad = [
        b"", b"garbage", good[:-1], good + b"x",
        good.replace(b"gitmem-embeddings 1", b"gitmem-embeddings 2"),  # a later version is left alone
        good.replace(b"encoding int8", b"encoding int4"),
        good.replace(b"dim 8", b"dim 9"), good.replace(b"dim 8", b"dim 0"), good.replace(b"dim 8", b"dim x"),
        good.replace(b"count 3", b"count 4"), good.replace(b"count 3", b"count \xc2\xb2"),
        header + b"\nextra 1\n\n" + body, b"gitmem-embeddings 1\n" + b"x" * 10_000,
    ]
    assert [vecfile.decode(data) for data in bad] == [None] * len(bad)


def test_a_record_with_a_broken_scale_is_left_out_and_the_rest_kept() -> None:
    vectors = _vectors(3, 8)
    data = bytearray(vecfile.encode("m", 8, vectors))
    start = data.index(b"\n\n") + 2
    data[start + 32:start + 36] = np.array([np.nan], "<f4").tobytes()  # the first record's scale
    back = vecfile.decode(bytes(data))
    assert back is not None and len(back.vectors) == 2 and sorted(vectors)[0] not in back.vectors


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_decode_never_raises_on_any_bytes(data: bytes) -> None:
    vecfile.decode(data)
    vecfile.decode(b"gitmem-embeddings 1\nmodel m\ndim 4\nencoding int8\ncount 1\n\n" + data)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 40), st.integers(1, 64), st.integers(0, 2**31))
def test_round_trip_of_any_size_keeps_hashes_and_direction(count: int, dim: int, seed: int) -> None:
    vectors = _vectors(count, dim, seed)
    back = vecfile.decode(vecfile.encode("m", dim, vectors))
    assert back is not None and set(back.vectors) == set(vectors)
    assert min(_cos(vectors[h], back.vectors[h]) for h in vectors) >= 0.99
