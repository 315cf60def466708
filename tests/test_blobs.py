"""blobs.py: how the index reads a blob."""

from gitmem.index.blobs import parse, text_hash


def test_parse_flags_binary_and_conflicts() -> None:
    assert parse(b"\x00\x01binary").flags == "binary"
    assert parse(b"a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> other\n").flags == "conflict"
    assert parse("caf\xe9".encode("latin-1")).text == "caf\ufffd"
    assert parse(b"---\ntags: [a\n---\nbody\n").tags == ""  # malformed YAML is just text


def test_text_hash_is_sha256_of_utf8_and_keeps_lone_surrogates_apart() -> None:
    assert text_hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert text_hash("\ud800") != text_hash("\ud801")
