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


import re  # noqa: E402

import pytest  # noqa: E402
from hypothesis import given, strategies as st  # noqa: E402


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("block, private", [
    ("title: Therapy: session notes\nprivate: true\n", 1),  # a YAML error (a second ': ')
    ("private: true\ntags: [a\n", 1),
    ("Private: yes\n\t- broken\n", 1),
    ("title: Therapy: session notes\n", 0),  # a YAML error that says nothing of private
    ("- a list, not a mapping\n- private\n", 1),
    ("title: fine\nprivate: true\n", 1),
    ("title: fine\nprivate: false\n", 0),
])
def test_frontmatter_yaml_cannot_read_is_private_if_it_mentions_private(block: str, private: int) -> None:
    parsed = parse(f"---\n{block}---\n# Notes\n\nbody\n".encode())
    assert parsed.private == private
    assert ("bad-frontmatter" in parsed.flags) == (block.startswith(("title: Therapy", "private: true\ntags",
                                                                      "Private", "- a list")))


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_a_frontmatter_block_that_mentions_private_is_never_read_as_public_by_accident(junk: str) -> None:
    """Whatever else the block holds, `private: true` in it keeps the page private, parsed or not."""
    block = junk.replace("---", "") + "\nprivate: true\n"
    parsed = parse(f"---\n{block}\n---\nbody\n".encode("utf-8", "surrogatepass"))
    if parsed.body:  # the block was taken as frontmatter
        assert parsed.private == 1 or "bad-frontmatter" not in parsed.flags and re.search(
            r"^private:\s*true\s*$", block, re.M) is None
