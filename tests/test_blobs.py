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


def _laughs(last: str) -> bytes:
    """A frontmatter whose aliases stand for 10**9 values ("billion laughs")."""
    lines, previous = ["---", "a0: &a [~,~,~,~,~,~,~,~,~,~]"], "a"
    for name in "bcdefghi":
        lines.append(f"{name}0: &{name} [" + ",".join(["*" + previous] * 10) + "]")
        previous = name
    return "\n".join([*lines, f"{last}: *i", "---", "- llamas", ""]).encode()


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("last, private", [("private", 1), ("tags", 0)])
def test_a_frontmatter_of_a_billion_laughs_is_bad_yaml_not_a_billion_steps(
        last: str, private: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """An attack run's pulled page kept the hooks' worker at full CPU for minutes, walking its
    aliases (privacy.says_yes). It is read as bad YAML: private if it says private, else text."""
    from gitmem import privacy
    from gitmem.notes import fields

    real, calls = privacy.says_yes, [0]

    def counted(value: object, depth: int = 0) -> bool:
        calls[0] += 1
        if calls[0] > 100_000:
            raise AssertionError("walked the aliases")
        return real(value, depth)

    monkeypatch.setattr(privacy, "says_yes", counted)
    parsed = parse(_laughs(last))
    assert (parsed.private, parsed.flags, parsed.tags) == (private, "bad-frontmatter", "")
    assert "- llamas" in parsed.text
    with pytest.raises(fields.BadFields, match="aliases stand for more than 10,000 values"):
        fields.read(_laughs(last).decode(), "reference/bomb.md")


def test_small_counts_what_a_walk_meets() -> None:
    from gitmem.text import small

    shared = list(range(10))
    assert small({"a": [shared] * 10}, most=113) and not small({"a": [shared] * 10}, most=112)  # 1+2+10+100
    assert small({"a": [[shared] * 10] * 10}, most=2_000) and not small({"a": [[shared] * 10] * 10}, most=1_000)
