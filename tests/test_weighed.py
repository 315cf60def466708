"""The facts a query weighs by meaning are embedded when the index is: after `git mem index`, a
hybrid recall and a hybrid `recall --history` embed nothing but the query (gitmem/index/weighed.py),
with the real model."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from gitmem.gitops.repo import open_notebook
from gitmem.index import db, embed, embeddings, weighed
from gitmem.index.blobs import text_hash
from gitmem.index.indexer import Index
from tests.conftest import Mem, git

VENDORS = [("Acme Tooling", "ships the calibration rig on Fridays.", "Their contact is Dana in Leeds."),
           ("Borealis Plastics", "moulds the sensor housings in grey.", "They need six weeks of notice."),
           ("Cobalt Freight", "carries the pallets to the warehouse.", "Invoices go to the Lisbon office."),
           ("Delta Circuits", "solders the prototype boards by hand.", "Their lead time is two weeks."),
           ("Ember Glass", "cuts the display covers to size.", "A broken cover is replaced for free."),
           ("Fjord Cables", "supplies the braided power cables.", "Orders under fifty units cost extra."),
           ("Granite Labs", "tests every batch for water ingress.", "Reports arrive as PDF on Mondays."),
           ("Harbor Print", "prints the manuals and the boxes.", "Proofs must be signed by Sarah."),
           ("Iris Optics", "grinds the lenses for the camera module.", "They closed for August last year."),
           ("Juniper Foam", "cuts the packing foam inserts.", "The foam is recycled from offcuts."),
           ("Kestrel Metals", "stamps the aluminium brackets.", "Payment is due within thirty days."),
           ("Lumen Paints", "coats the brackets in matte black.", "The coating cures overnight.")]

WHY = ("We chose the slower supplier for the housings because the faster one could not promise the "
       "grey colour match across batches, and a mismatch between the front and back halves was the "
       "single most common complaint in the last beta. The slower supplier also agreed to keep the "
       "moulds for five years at no charge, which removes the retooling risk for the second run, and "
       "their quality reports arrive with every pallet rather than once a quarter. The extra two weeks "
       "of lead time are absorbed by starting the order before the firmware freeze instead of after it, "
       "which the team agreed to at the planning meeting.")


ROUTER = ("The router sits in the cupboard under the stairs, next to the boiler, and it restarts itself every "
          "night at three, which is why the guest network drops for a minute or two if anyone is still working "
          "then. If it does not come back, unplug it for ten seconds; the admin login is on a sticker underneath, "
          "and the provider's support line is open until ten in the evening. The office manager keeps a spare "
          "router in the same cupboard, already set up with the same network names and passwords, so swapping "
          "it takes five minutes, and the old one goes back to the provider in the box it came in. Nobody has "
          "needed the spare so far.")


def page(budget: str, rig_day: str, standup: str) -> str:
    """A long page: a vendor list longer than a chunk (its borders cut list items), a long
    paragraph beside short facts, daily entries whose one paragraph is all their chunk says, a table."""
    vendors = "".join(f"- {name} {what.replace('Fridays', rig_day)}\n  {more}\n  Their account number is "
                      f"ACC-{i:04d} and the account manager answers within a day.\n"
                      for i, (name, what, more) in enumerate(VENDORS))
    return (f"# Project Larch\n\n## Vendors\n{vendors}\n"
            f"## Decisions\n{WHY}\n\n- The budget for the pilot is {budget}.\n- Sarah signs off every purchase order.\n"
            "- The launch moves to March if the housings slip.\n\n"
            f"## 09:15 — Standup with the sensor team\n{standup}\n\n"
            "## 14:40 — Call with the courier\nThe courier collects on Tuesdays and Thursdays before noon.\n\n"
            "## Rooms\n| room | floor | seats |\n|---|---|---|\n| Larch | 2 | 8 |\n| Birch | 3 | 12 |\n")


def build(mem: Mem) -> None:
    mem.write("knowledge/larch.md", page("40k EUR", "Fridays", "Dana reported the rig is calibrated."))
    mem.write("knowledge/office.md", "# Office\n\n## Access\nThe door code changes every month.\n\n## Wifi\n"
                                     "- The guest network is called Larch-Guest\n- The password is on the fridge\n\n"
                                     f"{ROUTER}\n")
    mem.commit("larch notes")
    mem.write("knowledge/larch.md", page("55k EUR", "Fridays", "Dana reported the rig is calibrated."))
    mem.commit("budget raised")
    mem.write("knowledge/larch.md", page("55k EUR", "Wednesdays", "Eli found a loose cable on the rig."))
    mem.commit("rig day moved, standup note")


QUERIES = ["who ships the calibration rig", "why did we pick the slower supplier for the housings",
           "how much money does the pilot have", "when does the courier come", "what did the standup find",
           "where is the guest network password"]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the model embeds from now on (a query is embedded by embed_query)."""
    texts: list[str] = []
    plain = embed.Embedder.embed

    def counting(self: embed.Embedder, batch: Sequence[str]) -> list[bytes]:
        texts.extend(batch)
        return plain(self, batch)

    monkeypatch.setattr(embed.Embedder, "embed", counting)
    return texts


def ask(mem: Mem, *flags: str) -> list[dict]:
    """The results of every query (hybrid, every fact named), with the vectors this process kept
    forgotten so that each fact is looked up in the embedding cache."""
    embeddings._kept.clear()
    out = []
    for query in QUERIES:
        out += mem.json("recall", *flags, "--limit", "30", "--min-score", "0", query)["results"]
    return out


def test_a_query_embeds_nothing_but_itself_after_index(mem: Mem, counted: list[str]) -> None:
    build(mem)
    mem("index")
    assert counted, "the index embeds its texts and facts with the model"
    index = Index(open_notebook(mem.path))
    try:
        weighed_here = weighed.of_blobs(index, weighed.every_blob(index.conn))
        texts = {r[0] for r in index.conn.execute("SELECT hash FROM texts")}
    finally:
        index.close()
    # facts no text of the index holds: longer than a fact row, cut by a chunk's border; a chunk's only
    # statement (under its heading) is judged by its words: nothing to weigh
    own = [weighed_here[h] for h in set(weighed_here) - texts]
    assert any(t.endswith(WHY) for t in own) and any(t.endswith(ROUTER) for t in own)
    assert not any(t.endswith("\nDana reported the rig is calibrated.") for t in weighed_here.values())
    assert any(t.split("\n")[1].startswith("  ") or "ACC-" not in t for t in own if "\n- " in t and "Vendors" in t)
    counted.clear()
    now = ask(mem)
    past = ask(mem, "--history")
    assert counted == []
    assert any(r["fact"]["text"].startswith("- Acme Tooling ships the calibration rig") for r in now)
    assert any(r["fact"]["text"] == WHY for r in now)
    assert any(r["fact"]["text"] == "- The budget for the pilot is 40k EUR." and r.get("current") is False
               for r in past)
    assert any(r["fact"]["text"] == "Dana reported the rig is calibrated." and r.get("current") is False
               for r in past)


def test_an_index_built_before_facts_were_weighed_weighs_every_page_once(mem: Mem, counted: list[str]) -> None:
    build(mem)
    mem("index")
    index = Index(open_notebook(mem.path))
    try:  # as an index built before index/weighed.py: only the index's texts in the cache
        texts = [r[0] for r in index.conn.execute("SELECT body FROM texts")]
        with db.transaction(index.cache):
            index.cache.execute("DELETE FROM embeddings")
        with db.transaction(index.conn):
            index.conn.execute("DELETE FROM meta WHERE key = 'weighed'")
        embedder = embed.load(embed.resolve(index.nb.git))
        embeddings._kept.clear()
        embeddings.vectors_of(index, embedder, texts)
    finally:
        index.close()
    embeddings._kept.clear()
    counted.clear()
    mem("index")
    assert counted and text_hash(counted[0]) not in {text_hash(t) for t in texts}
    counted.clear()
    mem("index")
    assert counted == []  # once
    ask(mem)
    ask(mem, "--history")
    assert counted == []


def cached(mem: Mem) -> set[str]:
    """The hashes the embedding cache holds vectors of."""
    index = Index(open_notebook(mem.path))
    try:
        return {r[0] for r in index.cache.execute("SELECT hash FROM embeddings")}
    finally:
        index.close()


def test_forgetting_a_line_keeps_the_other_facts_vectors_and_drops_its_own(mem: Mem, counted: list[str]) -> None:
    build(mem)
    mem("index")
    why = f"Project Larch / Decisions\n{WHY}"
    assert text_hash(why) in cached(mem)
    before = cached(mem)
    line = (mem.path / "knowledge/larch.md").read_text().split("\n").index(WHY) + 1
    mem("forget", "--yes", f"knowledge/larch.md:{line}")
    mem("index")
    assert text_hash(why) not in cached(mem)
    assert len(before - cached(mem)) < len(before) // 2  # the other facts' vectors stay
    counted.clear()
    ask(mem)
    ask(mem, "--history")
    assert counted == []


def test_a_fresh_clone_computes_no_fact_a_query_weighs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      counted: list[str]) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(tmp_path, "clone", "-q", str(remote), "a")
    a = Mem(tmp_path / "a", monkeypatch)
    a("init", "--no-index")
    build(a)
    a("index")
    a("sync")
    counted.clear()
    git(tmp_path, "clone", "-q", str(remote), "b")
    b = Mem(tmp_path / "b", monkeypatch)
    b("init")
    assert counted == []  # every vector, the facts' too, came with the clone
    ask(b)
    assert counted == []


def test_a_forget_that_lands_while_an_index_is_open_is_heeded(mem: Mem, counted: list[str]) -> None:
    """An indexer opened before a forget landed weighs the pages with the forgotten line blanked:
    it reads the forgotten record again under the lock, so the line's vector stays purged."""
    build(mem)
    mem("index")
    why = f"Project Larch / Decisions\n{WHY}"
    opened = Index(open_notebook(mem.path))  # its record of forgotten lines is read now
    try:
        line = (mem.path / "knowledge/larch.md").read_text().split("\n").index(WHY) + 1
        mem("forget", "--yes", f"knowledge/larch.md:{line}")
        assert text_hash(why) not in cached(mem)
        db.set_meta(opened.conn, "weighed", "0")  # an index built by an older rule: weigh every page again
        embeddings.embed(opened, embed.load(embed.resolve(opened.nb.git)), live_only=False)
    finally:
        opened.close()
    assert text_hash(why) not in cached(mem)
