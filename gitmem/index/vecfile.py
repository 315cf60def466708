"""The file format of shared embeddings (the blobs under refs/gitmem/embeddings, see sharing.py).

One file holds vectors of one model, in a text header and binary records:

    gitmem-embeddings 1
    model <model id>
    dim <dimension>
    encoding int8
    count <number of records>
    <blank line>
    <records, sorted by hash>

A record is the text's SHA-256 (32 raw bytes), a little-endian float32 scale and `dim` signed
bytes: the vector is the bytes times the scale, made unit length again. int8 with a scale per
vector is 420 bytes a vector of 384 dimensions (float16 would be 800, float32 1,568), and keeps
every vector within a cosine of 0.9999 of the original (tests/test_vecfile.py).

Whatever comes in from a clone is untrusted: `decode` checks every header field and the length,
and returns None for anything else; it never raises on bad input.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass

MAGIC = b"gitmem-embeddings"
VERSION = 1
ENCODING = "int8"
HASH_BYTES = 32
MAX_DIM = 8192
MAX_HEADER = 4096
DIGITS = re.compile(r"[0-9]{1,12}")


@dataclass(frozen=True)
class VecFile:
    """The decoded content of one file: its model, dimension, and text hash -> float32 vector bytes."""

    model: str
    dim: int
    vectors: dict[str, bytes]


def encode(model: str, dim: int, vectors: dict[str, bytes]) -> bytes:
    """The file of these float32 vectors (text hash (hex) -> bytes) of one model."""
    import numpy as np

    if "\n" in model or not model:
        raise ValueError(f"bad model id {model!r}")
    hashes = sorted(vectors)
    header = (f"gitmem-embeddings {VERSION}\nmodel {model}\ndim {dim}\nencoding {ENCODING}\n"
              f"count {len(hashes)}\n\n").encode()
    if not hashes:
        return header
    matrix = np.stack([np.frombuffer(vectors[h], dtype="<f4") for h in hashes])
    if matrix.shape[1] != dim:
        raise ValueError(f"vectors of {matrix.shape[1]} dimensions, not {dim}")
    peak = np.abs(matrix).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype("<f4")
    quantized = np.clip(np.rint(matrix / scale[:, None]), -127, 127).astype("i1")
    keys = np.frombuffer(b"".join(bytes.fromhex(h) for h in hashes), dtype="u1").reshape(-1, HASH_BYTES)
    records = np.concatenate([keys, scale.view("u1").reshape(-1, 4), quantized.view("u1")], axis=1)
    return header + records.tobytes()


def decode(data: bytes) -> VecFile | None:
    """The file's content, or None when it is not a well-formed file of this format."""
    header = _header(data)
    if header is None:
        return None
    fields, start = header
    model, dim, count = fields
    size = HASH_BYTES + 4 + dim
    if len(data) - start != count * size:
        return None
    import numpy as np

    records = np.frombuffer(data, dtype="u1", offset=start).reshape(count, size) if count else \
        np.zeros((0, size), dtype="u1")
    scale = records[:, HASH_BYTES:HASH_BYTES + 4].copy().view("<f4").reshape(-1)
    values = records[:, HASH_BYTES + 4:].copy().view("i1").astype("f4") * scale[:, None]
    norms = np.linalg.norm(values, axis=1) if count else np.zeros(0, dtype="f4")
    vectors: dict[str, bytes] = {}
    for i in range(count):
        if not (math.isfinite(float(scale[i])) and scale[i] > 0 and math.isfinite(float(norms[i]))
                and norms[i] > 0):
            continue  # a broken record is left out; the rest of the file stands
        vectors[records[i, :HASH_BYTES].tobytes().hex()] = (values[i] / norms[i]).astype("<f4").tobytes()
    return VecFile(model, dim, vectors)


def _header(data: bytes) -> tuple[tuple[str, int, int], int] | None:
    """(model, dim, count) and where the records start, or None."""
    end = data.find(b"\n\n", 0, MAX_HEADER)
    if end < 0 or not data.startswith(MAGIC + b" "):
        return None
    try:
        lines = data[:end].decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    if lines[0] != f"gitmem-embeddings {VERSION}" or len(lines) != 5:
        return None  # another version: a later gitmem's file is left alone
    fields = dict(line.partition(" ")[::2] for line in lines[1:])
    if set(fields) != {"model", "dim", "encoding", "count"} or fields["encoding"] != ENCODING:
        return None
    if not (DIGITS.fullmatch(fields["dim"]) and DIGITS.fullmatch(fields["count"]) and fields["model"]):
        return None
    dim, count = int(fields["dim"]), int(fields["count"])
    if not 0 < dim <= MAX_DIM:
        return None
    return (fields["model"], dim, count), end + 2


def record_size(dim: int) -> int:
    """Bytes per vector of `dim` dimensions."""
    return HASH_BYTES + struct.calcsize("<f") + dim
