"""Embeddings that travel with the notebook (refs/gitmem/embeddings): exported after indexing,
pushed by `git mem sync`, fetched by `git mem init` and plain `git fetch`, imported verified, with
a real bare remote and the real model."""

from __future__ import annotations

import subprocess
from pathlib import Path

import apsw
import numpy as np
import pytest

from gitmem.gitops.git import Git
from gitmem.index import sharing, vecfile
from tests.conftest import Mem, git

REF = "refs/gitmem/embeddings"
FACTS = [
    "The boiler is serviced by Hendricks every spring",
    "Our dentist is Dr. Okafor on Baker Street",
    "The car insurance renews on the first of March",
    "Grandma's birthday cake recipe uses buttermilk and orange zest",
    "The wifi password is kept in the blue notebook in the hall",
]


def _clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, remote: Path, name: str, *init: str) -> Mem:
    git(tmp_path, "clone", "-q", str(remote), name)
    m = Mem(tmp_path / name, monkeypatch)
    m("init", *init)
    return m


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    path = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


@pytest.fixture
def first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, remote: Path) -> Mem:
    """A clone that wrote five facts, indexed them (which exported their vectors) and synced."""
    a = _clone(tmp_path, monkeypatch, remote, "a", "--no-index")
    for fact in FACTS:
        a("remember", fact)
    a("index")
    a("sync")
    return a


def _cache(m: Mem) -> dict[str, bytes]:
    """hash -> vector of the clone's embedding cache."""
    conn = apsw.Connection(str(m.path / ".git" / "gitmem" / "embeddings.db"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return {h: v for h, v in conn.execute("SELECT hash, vector FROM embeddings")}
    finally:
        conn.close()


def _ref_hashes(m: Mem, ref: str = REF) -> set[str]:
    g = Git.find(m.path)
    found: set[str] = set()
    from gitmem.gitops import vectorref

    listing = vectorref.files(g, [m.git("rev-parse", ref).strip()])
    for _, data in vectorref.read(g, list(listing.values())):
        content = vecfile.decode(data)
        assert content is not None
        found.update(content.vectors)
    return found


def _hits(m: Mem, query: str) -> list[tuple[str, int, str | None]]:
    """The results of a semantic recall: page, lines, and the fact picked as the answer."""
    return [(h["path"], h["lines"]["start"], (h.get("fact") or {}).get("text"))
            for h in m.json("recall", query, "--mode", "semantic")["results"]]


def test_a_fresh_clone_imports_the_vectors_instead_of_computing_them(tmp_path, monkeypatch, remote, first) -> None:
    assert first.git("ls-remote", str(remote), REF).split()[1] == REF
    b = _clone(tmp_path, monkeypatch, remote, "b")
    summary = b.json("index")
    assert summary["embedded"] == 0
    assert b.git("rev-parse", "refs/remotes/origin/gitmem/embeddings").strip() == \
        first.git("rev-parse", REF).strip()
    ours, theirs = _cache(first), _cache(b)
    shared = _ref_hashes(first)
    assert shared and shared <= set(theirs)
    assert min(float(np.frombuffer(ours[h], "<f4") @ np.frombuffer(theirs[h], "<f4")) for h in shared) >= 0.99
    for query in ("who looks after the heating", "when does the car cover renew", "what is in the cake"):
        assert _hits(b, query) == _hits(first, query)


def test_init_reports_the_vectors_as_reused(tmp_path, monkeypatch, remote, first) -> None:
    git(tmp_path, "clone", "-q", str(remote), "b")
    b = Mem(tmp_path / "b", monkeypatch)
    out = b.json("init")
    assert out["index"]["embedded"] == 0 and out["index"]["reused"] >= len(FACTS)


def test_two_clones_that_each_added_vectors_converge_on_the_union(tmp_path, monkeypatch, remote, first) -> None:
    b = _clone(tmp_path, monkeypatch, remote, "b")
    first("remember", "The plumber's number is on the fridge")
    first("index")
    b("remember", "The cat's vet is in Elm Road")
    b("index")
    first("sync")
    b("sync")  # diverged: joined as a union, pushed
    first("sync")
    assert first.git("rev-parse", REF) == b.git("rev-parse", REF) == git(remote, "rev-parse", REF)
    union = _ref_hashes(first)
    for m in (first, b):  # every vector either clone computed is in the ref both hold
        assert {h for (h,) in m_index(m).execute(sharing.EXPORTABLE)} <= union
    merge = first.git("log", "-1", "--format=%P", REF).split()
    assert len(merge) == 2


def m_index(m: Mem) -> apsw.Connection:
    return apsw.Connection(str(m.path / ".git" / "gitmem" / "index.db"), flags=apsw.SQLITE_OPEN_READONLY)


def test_plain_git_fetches_the_ref_and_plain_push_is_unchanged(tmp_path, monkeypatch, remote, first) -> None:
    b = _clone(tmp_path, monkeypatch, remote, "b")
    assert b.git("config", "--get-all", "remote.origin.fetch").splitlines() == [
        "+refs/heads/*:refs/remotes/origin/*", "+refs/gitmem/*:refs/remotes/origin/gitmem/*"]
    assert subprocess.run(["git", "config", "remote.origin.push"], cwd=b.path).returncode == 1
    first("remember", "The plumber's number is on the fridge")
    first("index")
    first("sync")
    b.git("fetch", "-q")  # plain git: the remote's new vectors, next to (never over) the local ref
    assert b.git("rev-parse", "refs/remotes/origin/gitmem/embeddings") == first.git("rev-parse", REF)
    b.git("merge", "-q", "--ff-only", "origin/main")
    b("remember", "The cat's vet is in Elm Road")
    summary = b.json("index")
    assert summary["embedded"] > 0
    local = b.git("rev-parse", REF).strip()
    # the local ref now holds the remote's vectors too (joined), so pushing it is a fast-forward
    assert b.git("merge-base", "--is-ancestor", "refs/remotes/origin/gitmem/embeddings", REF) == ""
    b.git("push", "-q")  # a plain push pushes the branch only, as before
    assert git(remote, "rev-parse", REF) == first.git("rev-parse", REF)
    assert git(remote, "rev-parse", "main").strip() == b.git("rev-parse", "HEAD").strip()
    b.git("push", "-q", "origin", REF)
    assert git(remote, "rev-parse", REF).strip() == local


def test_a_remote_without_the_ref_works_as_before(tmp_path, monkeypatch, remote) -> None:
    a = _clone(tmp_path, monkeypatch, remote, "a", "--no-index")
    a("remember", FACTS[0])
    a.git("push", "-q", "origin", "HEAD")
    b = _clone(tmp_path, monkeypatch, remote, "b", "--no-index")
    assert "gitmem" not in b.git("for-each-ref")
    b.git("fetch", "-q")  # the wildcard refspec matches nothing, and that is no error
    summary = b.json("index")
    assert summary["embedded"] > 0 and summary["notes"] == []
    assert [h["path"] for h in b.json("recall", "who services the boiler")["results"]][:1] == ["knowledge/facts.md"]


@pytest.mark.tally("bad-input/fault matrix")
def test_tampered_files_are_ignored_and_the_texts_embedded_here(tmp_path, monkeypatch, remote, first) -> None:
    g = Git.find(first.path)
    from gitmem.gitops import vectorref

    listing = vectorref.files(g, [first.git("rev-parse", REF).strip()])
    (folder, shard, _), oid = next((p.split("/"), o) for p, o in listing.items())
    content = vecfile.decode(next(vectorref.read(g, [oid]))[1])
    assert content is not None
    wrong_model = vecfile.encode("name:another-model", content.dim, content.vectors)
    wrong_dim = vecfile.encode(content.model, 8, {h: np.ones(8, "<f4").tobytes() for h in content.vectors})
    cut = vecfile.encode(content.model, content.dim, content.vectors)[:-7]
    # the real files replaced by broken ones: no clone may trust them
    drop = set(listing)
    vectorref.add(g, [(f"{folder}/{shard}", data) for data in (wrong_model, wrong_dim, cut, b"\0junk")], drop,
                  "tampered")
    first.git("push", "-q", "-f", "origin", REF)
    b = _clone(tmp_path, monkeypatch, remote, "b", "--no-index")
    summary = b.json("index")
    assert summary["embedded"] >= len(FACTS) and summary["notes"] == []
    conn = apsw.Connection(str(b.path / ".git" / "gitmem" / "embeddings.db"), flags=apsw.SQLITE_OPEN_READONLY)
    notes = sorted(note for (note,) in conn.execute("SELECT note FROM shared_blobs WHERE note LIKE 'ignored%'"))
    assert notes == ["ignored: 8 dimensions, the model has 384", "ignored: not a well-formed embeddings file",
                     "ignored: not a well-formed embeddings file",
                     "ignored: vectors of another model (name:another-model)"]
    assert _hits(b, "who looks after the heating") == _hits(first, "who looks after the heating")


@pytest.mark.tally("bad-input/fault matrix")
def test_a_ref_that_is_not_a_commit_costs_only_the_embedding(tmp_path, monkeypatch, remote) -> None:
    a = _clone(tmp_path, monkeypatch, remote, "a", "--no-index")
    a("remember", FACTS[0])
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=a.path, input=b"not a commit",
                          capture_output=True, check=True).stdout.decode().strip()
    a.git("update-ref", REF, blob)
    summary = a.json("index")
    assert summary["embedded"] > 0
    assert [n.split(":")[0] for n in summary["notes"]] == [
        "shared embeddings (refs/gitmem/embeddings) could not be read",
        "embeddings could not be shared in refs/gitmem/embeddings"]
    assert a.git("rev-parse", REF).strip() == blob  # left as it was: nothing of a person's is overwritten
    assert _hits(a, "who services the boiler")[0][2] == f"- {FACTS[0]}"


def test_only_committed_public_text_is_exported(tmp_path, monkeypatch, remote) -> None:
    a = _clone(tmp_path, monkeypatch, remote, "a", "--no-index")
    a("remember", FACTS[0])
    a.write("knowledge/secret.md", "---\nprivate: true\n---\n# Secret\n\n- The safe code is 4711\n")
    a.commit("private page")
    a.write("knowledge/draft.md", "# Draft\n\n- Not committed yet: the spare key is under the mat\n")
    a("index")
    conn = m_index(a)
    texts = {body: h for h, body in conn.execute("SELECT hash, body FROM texts WHERE embedded = 1")}
    shared = _ref_hashes(a)
    assert any(FACTS[0] in body and h in shared for body, h in texts.items())
    assert not any(("4711" in body or "spare key" in body) and h in shared for body, h in texts.items())
    assert any("spare key" in body for body in texts)  # embedded here, for recall, but not shared


def test_sharing_switched_off_exports_nothing(tmp_path, monkeypatch, remote) -> None:
    a = _clone(tmp_path, monkeypatch, remote, "a", "--no-index")
    a.git("config", sharing.SHARE_KEY, "false")
    a("remember", FACTS[0])
    a("index")
    assert "gitmem" not in a.git("for-each-ref")


def test_an_export_with_nothing_new_makes_no_commit(tmp_path, monkeypatch, remote, first) -> None:
    before = first.git("rev-parse", REF)
    first("index")
    first("remember", FACTS[0])  # already there: no new text
    first("index")
    assert first.git("rev-parse", REF) == before


def test_small_files_of_a_shard_are_compacted(tmp_path, monkeypatch, remote) -> None:
    monkeypatch.setattr(sharing, "SHARD_FILES", 2)
    a = _clone(tmp_path, monkeypatch, remote, "a", "--no-index")
    for i in range(12):
        a("remember", f"Fact number {i}: the {i}th shelf holds jars of jam")
        a("index")
    listing = a.git("ls-tree", "-r", "--name-only", REF).split()
    per_shard: dict[str, int] = {}
    for path in listing:
        per_shard[path.rsplit("/", 1)[0]] = per_shard.get(path.rsplit("/", 1)[0], 0) + 1
    assert max(per_shard.values()) <= 2
    exportable = {h for (h,) in m_index(a).execute(sharing.EXPORTABLE)}
    assert exportable == _ref_hashes(a)
