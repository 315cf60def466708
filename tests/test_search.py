"""Search behaviour with the real SQLite extension and the real model from ../shared."""

import itertools
import json
import re
import sys

import pytest

from gitmem.search.rankers import fts_query, fuse
from gitmem.search.hits import snippet
from tests.conftest import Mem

PARTS = sorted({"".join(p) for p in itertools.permutations("4717")})


@pytest.fixture
def corpus(mem: Mem) -> Mem:
    mem.write("knowledge/pets.md", "# Pets\n\nThe feline refused to eat its kibble this morning and slept all day.\n")
    mem.write("knowledge/garden.md", "# Garden\n\nThe tomatoes need watering twice a week in summer.\n")
    mem.write("knowledge/car.md", "# Car\n\nThe car needs new tyres before winter; book the garage.\n")
    mem.write("knowledge/parts.md", "# Parts\n\n" + "\n".join(
        f"## Part {i}\n\nReplacement valve part XK{p} is stocked in aisle {i + 3}.\n" for i, p in enumerate(PARTS)))
    mem.write("daily/2026-02-20.md", "# Daily Log — 2026-02-20\n\n## 10:00 — Called Sarah about the timeline\n")
    mem.write("sessions/2026-02-20-1000.md", "# Session\n\nuser: the cat was sick again\nassistant: noted\n")
    mem.commit("corpus")
    return mem


def paths(out: dict) -> list[str]:
    return [r["path"] for r in out["results"]]


def test_semantic_side_answers_without_shared_words(corpus: Mem) -> None:
    query = "my cat is not hungry"
    assert corpus.json("recall", "--mode", "keyword", query)["results"] == []
    assert paths(corpus.json("recall", "--mode", "semantic", query))[0] == "knowledge/pets.md"
    assert paths(corpus.json("recall", query))[0] == "knowledge/pets.md"


def test_keyword_side_answers_an_exact_rare_token(corpus: Mem) -> None:
    def top(mode: str) -> str:
        out = corpus.json("recall", "--mode", mode, "--min-score", "0", "XK7147")
        return out["results"][0]["text"]

    assert "XK7147" not in top("semantic")  # the model confuses XK7147 with its permutations
    assert "XK7147" in top("keyword")
    assert "XK7147" in top("hybrid")


@pytest.mark.parametrize("query", [
    '"unbalanced quote', "-minus", "*", "tyres*", "AND", "OR OR", "NEAR(car garage)", "car AND (", ")(",
    "NOT car", "col:car", "^car", "🚗 tyres", "çà et là", "中文", "{car}", "car + - * / \\", "'", "a" * 10000,
])
def test_any_text_is_a_valid_query(corpus: Mem, query: str) -> None:
    result = corpus("recall", "--json", "--", query)
    out = json.loads(result.stdout)
    assert out["query"] == query and isinstance(out["results"], list)


def test_fts_query_quotes_every_word() -> None:
    assert fts_query('NEAR(car "garage") AND -x*') == '"near" OR "car" OR "garage" OR "x"'
    assert fts_query("🚗 !!") is None
    assert fts_query("the of") == '"the" OR "of"'  # only stopwords: keep them


def test_recall_leaves_sessions_out_and_search_has_them(corpus: Mem) -> None:
    assert "sessions/2026-02-20-1000.md" not in paths(corpus.json("recall", "sick cat"))
    assert paths(corpus.json("search", "--in", "sessions", "sick cat")) == ["sessions/2026-02-20-1000.md"]
    assert "sessions/2026-02-20-1000.md" in paths(corpus.json("search", "sick cat"))


def test_filters_apply_before_ranking(mem: Mem) -> None:
    for i in range(150):
        mem.write(f"noise/n{i}.md", f"---\ntags: [noise]\n---\nbudget budget budget review {i}\n")
    mem.write("finance/plan.md", "---\ntags: [finance]\ntype: plan\n---\n# Plan\n\n" + "Many words about other things. " * 40
              + "The budget is approved.\n")
    mem.commit("many")
    unfiltered = paths(mem.json("recall", "--mode", "keyword", "-n", "100", "budget"))
    assert "finance/plan.md" not in unfiltered  # below the top 100 without the filter
    assert paths(mem.json("recall", "--mode", "keyword", "--tag", "finance", "budget")) == ["finance/plan.md"]
    assert paths(mem.json("recall", "--tag", "FINANCE", "budget")) == ["finance/plan.md"]
    assert paths(mem.json("recall", "--tag", "#finance", "budget")) == ["finance/plan.md"]  # as `git mem tags` reads it
    assert paths(mem.json("recall", "--mode", "keyword", "--type", "plan", "budget")) == ["finance/plan.md"]
    # a tag no page has: a note says so (a newcomer's "no results" said nothing, 2026-11-27)
    assert mem("recall", "--mode", "keyword", "--tag", "#nosuchtag", "budget").stdout == (
        "no results for 'budget'\nnote: no page is tagged #nosuchtag; 'git mem tags' lists the tags there are\n")
    assert mem.json("recall", "--mode", "keyword", "--type", "goal", "budget")["results"] == []


def test_json_schema(corpus: Mem) -> None:
    out = corpus.json("recall", "timeline")
    assert set(out) == {"query", "mode", "semantic", "results", "timing", "notes", "view", "evidence", "asked_as"}
    assert out["asked_as"] is None  # --full: every field; without it, only when a role was read as a name
    assert set(out["evidence"]) == {"keyword", "semantic", "confidence", "above"}
    assert out["view"] == {"kind": "live"}
    assert out["semantic"] is True and out["mode"] == "hybrid"
    hit = out["results"][0]
    assert set(hit) >= {"group", "path", "heading", "snippet", "text", "score", "lines", "commit", "date",
                        "author", "current"}
    assert hit["path"] == "daily/2026-02-20.md" and hit["group"] == "daily"
    assert 0 <= hit["score"] <= 1 and hit["commit"] == corpus.git("rev-parse", "HEAD").strip()
    scores = [r["score"] for r in out["results"]]
    assert scores == sorted(scores, reverse=True)


def test_compact_json_schema(corpus: Mem) -> None:
    """Without --full each result is the fact, PATH:LINES, score, weak, date and short commit:
    provenance once, no chunk."""
    out = corpus.compact("recall", "timeline")
    assert set(out) == {"query", "mode", "semantic", "results", "timing", "notes", "view", "evidence"}
    assert set(out["evidence"]) == {"keyword", "semantic", "confidence", "above", "weak"}
    hit = out["results"][0]
    assert set(hit) <= {"text", "where", "group", "score", "weak", "date", "commit", "headings", "confidence",
                        "revision", "superseded", "successor"}
    assert hit["where"].startswith("daily/2026-02-20.md:") and hit["weak"] is False
    assert hit["commit"] == corpus.git("rev-parse", "--short=7", "HEAD").strip() and len(hit["date"]) == 10


def test_human_output_is_grouped(corpus: Mem) -> None:
    import re

    head = corpus.git("rev-parse", "--short=7", "HEAD").strip()
    day = corpus.git("log", "-1", "--format=%cs").strip()
    out = corpus("recall", "--mode", "keyword", "Sarah tomatoes").stdout
    expected = (
        "NOTEBOOK (1)\n"
        f"  knowledge/garden.md:3 ...................... 0.40  ({head} {day})\n"  # one of the two words
        "    Garden\n"
        "      The tomatoes need watering twice a week in summer.\n"
        "DAILY (1)\n"
        f"  daily/2026-02-20.md:3 ...................... 0.SCORE  ({head} {day})\n"
        "    Daily Log — 2026-02-20\n"
        "      ## 10:00 — Called Sarah about the timeline\n")
    assert re.fullmatch(re.escape(expected).replace("SCORE", r"\d\d"), out), out


def test_no_model_keyword_still_answers_and_says_so(corpus: Mem, no_model) -> None:
    out = corpus.json("recall", "tyres")
    assert out["semantic"] is False and out["mode"] == "keyword"
    assert paths(out) == ["knowledge/car.md"]
    assert out["notes"][0].startswith("semantic search is off")
    assert "GITMEM_MODEL_DIR" in out["notes"][0] and "git mem init --model-dir DIR" in out["notes"][0]
    text = corpus("recall", "tyres").stdout
    assert "note: semantic search is off" in text and "knowledge/car.md" in text


@pytest.mark.parametrize("model", ["nonexistent/model", "BAAI/bge-small-en-v1.5"])
def test_unreachable_model_never_waits(corpus: Mem, model: str, monkeypatch, network: list) -> None:
    """A model that is not on this machine: recall answers by keyword without trying the network
    (no connection, no download), so it never waits on it. The behaviour, not a wall-clock limit
    (2 s failed at load 8); what it costs is in benchmarks/coldstart.py."""
    monkeypatch.delenv("GITMEM_MODEL_DIR")
    monkeypatch.setenv("GITMEM_MODEL", model)
    monkeypatch.setenv("HF_ENDPOINT", "http://10.255.255.1")  # a blackhole address, if anything tried it
    out = corpus.json("recall", "tyres")
    assert out["semantic"] is False and paths(out) == ["knowledge/car.md"]
    assert out["notes"][0].startswith("semantic search is off")
    assert network == []


def test_snippet_centres_on_the_query_word() -> None:
    body = "intro " * 100 + "the zeppelin landed " + "outro " * 100
    s = snippet(body, "zeppelin")
    assert "zeppelin" in s and s.startswith("…") and s.endswith("…") and len(s) <= 202


def test_hybrid_scores_are_the_mean_of_each_rankers_relative_scores() -> None:
    from gitmem import config
    from gitmem.search import engine as search

    keyword = {1: 8.0, 2: 2.0}  # a clear keyword match, and a weak one
    semantic = {2: 0.6, 3: 0.55, 1: 0.3}  # nothing clear by meaning
    fused = fuse([{t: s / 8.0 for t, s in keyword.items()}, semantic], config.Settings())
    assert fused == {1: (1.0 + 0.5) / 2, 2: (0.25 + 1.0) / 2, 3: (0.55 / 0.6) / 2}
    assert max(fused, key=fused.__getitem__) == 1  # rank fusion would put 2 first (ranks 2+1 beat 1+3)
    rrf = fuse([keyword, semantic], config.Settings(fusion="rrf"))
    assert max(rrf, key=rrf.__getitem__) == 2 and abs(rrf[2] - (1 / 62 + 1 / 61) / (2 / 61)) < 1e-12


def test_fusion_setting_switches_the_notebook_to_rank_fusion(corpus: Mem) -> None:
    query = ["recall", "--min-score", "0", "the car needs tyres"]
    scores = [r["score"] for r in corpus.json(*query)["results"]]
    corpus.write(".gitmem.toml", corpus.path.joinpath(".gitmem.toml").read_text()
                 .replace('fusion = "scores"', 'fusion = "rrf"'))
    ranks = [r["score"] for r in corpus.json(*query)["results"]]
    assert scores[0] == 1.0  # knowledge/car.md's fact: first in both lists
    # rank fusion scores places, whatever the scores were: (1/(60+a) + 1/(60+b)) / (2/61) for
    # places a and b (the fact and its chunk share the first places)
    places = {round((1 / (60 + a) + 1 / (60 + b)) / (2 / 61), 4) for a in range(1, 5) for b in range(1, 5)}
    assert ranks[0] in places and ranks[1] in places and scores[1] != ranks[1]


def few_embedded_on_read(mem: Mem, limit: int) -> None:
    config = mem.path / ".gitmem.toml"
    text = config.read_text()
    assert "\nembed_on_read = 100 " in text  # what git mem init wrote
    config.write_text(text.replace("\nembed_on_read = 100 ", f"\nembed_on_read = {limit} "))
    mem.commit("a low embed_on_read")


def test_a_big_catch_up_answers_by_keyword_at_once_and_embeds_in_the_background(corpus: Mem, monkeypatch) -> None:
    """Paper cut 1: the first recall after cloning a big notebook embedded everything first (two
    minutes of nothing). With more new texts than embed_on_read it answers by keyword at once,
    says semantic results are still being prepared, and starts the background worker."""
    from gitmem.gitops import hookrun

    started: list = []
    monkeypatch.setattr(hookrun, "spawn", lambda top: started.append(top) or True)
    few_embedded_on_read(corpus, 2)
    out = corpus.json("recall", "tyres")
    assert (out["mode"], out["semantic"]) == ("keyword", False)
    assert paths(out) == ["knowledge/car.md"]
    assert out["notes"][-1].startswith("semantic results are still being prepared: ")
    assert " passages are being embedded in the background, so this answer is by keyword only" in out["notes"][-1]
    assert started == [corpus.path]
    assert corpus.json("status", "--no-model")["counts"]["embedded"] == 0  # nothing was embedded in the read


def test_a_small_catch_up_is_embedded_by_the_read_itself(corpus: Mem, monkeypatch) -> None:
    from gitmem.gitops import hookrun

    monkeypatch.setattr(hookrun, "spawn", lambda top: pytest.fail("no background worker for a few texts"))
    out = corpus.json("recall", "tyres")
    assert out["semantic"] is True and not any("prepared" in n for n in out["notes"])


def test_the_background_worker_embeds_and_the_next_recall_is_semantic(corpus: Mem) -> None:
    """The real worker (git mem hooks run background), even with hooks switched off (GITMEM_HOOKS=0
    in every test): it is what a read asked for, not a hook."""
    import time

    few_embedded_on_read(corpus, 2)
    first = corpus.json("recall", "tyres")
    assert first["semantic"] is False
    deadline = time.monotonic() + 300  # a timeout for a loaded machine, not a measurement
    while corpus.json("status", "--no-model")["counts"]["pending_embeddings"]:
        assert time.monotonic() < deadline, (corpus.path / ".git/gitmem/hooks.log").read_text()
        time.sleep(0.5)
    later = corpus.json("recall", "what needs replacing on the vehicle")
    assert later["semantic"] is True and not any("prepared" in n for n in later["notes"])
    log = corpus.path / ".git/gitmem/hooks.log"
    while not (log.exists() and "background: indexed" in log.read_text()):  # the worker logs once it is done,
        assert time.monotonic() < deadline, "the worker never logged"  # a moment after its last vector
        time.sleep(0.2)


def test_a_read_reports_how_its_catch_up_goes(mem: Mem) -> None:
    """Paper cut 1: what the progress bar shows on a terminal: commits indexed, then texts embedded."""
    from gitmem.gitops.repo import open_notebook
    from gitmem.search import engine as search

    for i in range(3):
        mem.write(f"knowledge/n{i}.md", f"# Note {i}\n\nfact number {i} about gardening\n")
        mem.commit(f"note {i}")
    commits: list = []
    texts: list = []
    search.run(open_notebook(mem.path), search.Query("gardening"), progress=lambda d, t: texts.append((d, t)),
               indexing=lambda d, t: commits.append((d, t)))
    assert commits == [(1, 4), (2, 4), (3, 4), (4, 4)]  # init's commit and the three notes
    assert texts and texts[-1][0] == texts[-1][1] >= 3


@pytest.mark.tally("bad-input/fault matrix")
@pytest.mark.parametrize("floor", [float("nan"), float("inf"), -0.1, 1.5])
def test_a_min_score_outside_0_to_1_is_refused(mem: Mem, floor: float) -> None:
    """The web's and MCP's number reaches the engine as given: NaN would silently find nothing."""
    from gitmem.errors import UsageError
    from gitmem.gitops.repo import open_notebook
    from gitmem.search import engine

    mem("remember", "The boiler is serviced in May")
    with pytest.raises(UsageError, match="is not between 0 and 1"):
        engine.run(open_notebook(mem.path), engine.Query("boiler", mode="keyword", min_score=floor))


PERSONAL = {
    "user.md": "# About me\n\n- User is allergic to shellfish.\n- I was born in Leeds.\n- I work as a backend "
               "engineer at Northwind.\n- I am left-handed.\n- I go running on Tuesdays along the canal.\n"
               "- I drink two cups of black coffee every morning.\n",
    "people/family.md": "# Family\n\n## Emma\n\n- My daughter Emma is allergic to peanuts.\n- Emma goes to "
                        "Oakfield Primary, class 3B.\n- Emma has swimming lessons on Saturday.\n\n## Tom\n\n"
                        "- My husband Tom works night shifts at the hospital.\n- Tom hates coriander.\n",
    "reference/home.md": "# Home\n\n- Rent is £1,450 a month, paid on the 1st by standing order.\n- Landlord: "
                         "Mr Davies, 07700 900123.\n- Bins: recycling goes out Wednesday night.\n- The stopcock "
                         "is under the kitchen sink.\n- Lease ends 31 July 2027.\n",
    "projects/apollo.md": "---\ntags: [apollo]\n---\n# Apollo\n\n## Decisions\n\n- We picked PostgreSQL over "
                          "MongoDB because we need transactions across orders and payments.\n- Chose FastAPI "
                          "instead of Django: the service is API-only.\n\n## Risks\n\n- The route optimiser "
                          "vendor may raise prices next year.\n- Only Priya knows the billing code.\n",
    "reference/todos.md": "# Todos\n",
    "reference/car.md": "# Car\n\n- Car: 2019 Toyota Yaris hybrid.\n- MOT due 22 April every year.\n- Tyre "
                        "pressure: 33 psi front, 31 psi rear.\n",
}


@pytest.fixture
def personal(mem: Mem) -> Mem:
    for path, text in PERSONAL.items():
        mem.write(path, text)
    mem.commit("personal notebook")
    return mem


@pytest.mark.parametrize("question, fact", [
    ("what am I allergic to", "- User is allergic to shellfish."),
    ("what does my daughter need to avoid eating", "- My daughter Emma is allergic to peanuts."),
    ("when is the rent due", "- Rent is £1,450 a month, paid on the 1st by standing order."),
    ("which database did we pick and why", "- We picked PostgreSQL over MongoDB because we need transactions "
                                           "across orders and payments."),
])
def test_a_question_in_other_words_finds_its_fact_at_default_settings(personal: Mem, question: str,
                                                                       fact: str) -> None:
    """Facts are retrieval units (their own keyword entry and vector, made at index time): a
    one-line fact is found by a question that shares at most a word with it, by default."""
    out = personal.compact("recall", question)
    assert fact in [r["text"] for r in out["results"][:3]], out["results"]


def test_a_heading_alone_is_never_a_result(personal: Mem) -> None:
    for args in (("recall", "todos"), ("recall", "--tag", "apollo", "risk"), ("search", "--min-score", "0", "risks")):
        out = personal.json(*args)
        assert out["results"], args
        for r in out["results"]:
            assert r["fact"] is not None and not r["fact"]["text"].startswith("#"), (args, r["fact"])
    top = personal.json("recall", "--tag", "apollo", "risk")["results"][0]
    assert top["fact"]["text"].startswith("- ") and top["fact"]["headings"] == ["Apollo", "Risks"]


def test_weak_matches_are_shown_and_marked(personal: Mem) -> None:
    """A question the notebook may not answer gets its closest facts marked weak (text: under a
    'weak matches' line), never an empty answer while something stands above the background."""
    out = personal.compact("recall", "what is the name of my dog")
    assert out["results"] and all(r["weak"] for r in out["results"]) and out["evidence"]["weak"] is True
    text = personal("recall", "what is the name of my dog").stdout
    assert text.startswith(f"WEAK MATCHES ({len(out['results'])}): the closest, but they may not answer\n")
    groups = {r["group"] for r in personal.json("recall", "what is the name of my dog")["results"]}
    assert ("  [notebook]" in text) == (len(groups) > 1)  # a group is named only among others
    strong = personal.compact("recall", "Tom hates coriander")
    assert strong["results"][0]["weak"] is False and strong["evidence"]["weak"] is False
    assert strong["results"][0]["text"] == "- Tom hates coriander."


def test_search_is_one_ranking_and_recall_keeps_its_groups(personal: Mem) -> None:
    personal.write("daily/2026-11-20.md", "# Daily Log — 2026-11-20\n\n## 10:00 — Paid the rent for December\n")
    personal.write("sessions/2026-11-20-1000.md", "# Session\n\nuser: the rent is due on the first\n")
    personal.commit("more")
    out = personal.compact("search", "--min-score", "0", "rent")
    scores = [r["score"] for r in out["results"]]
    assert scores == sorted(scores, reverse=True) and len({r["group"] for r in out["results"]}) >= 2
    text = personal("search", "--min-score", "0", "rent").stdout
    assert "NOTEBOOK (" not in text and "SESSIONS (" not in text
    shown = [float(m) for m in re.findall(r" \.+ (\d\.\d\d)  ", text)]
    assert shown == sorted(shown, reverse=True) and len(shown) == len(out["results"])
    grouped = personal("recall", "--min-score", "0", "rent").stdout
    assert grouped.index("NOTEBOOK (") < grouped.index("DAILY (")


def _cold_caches() -> None:
    """Forget what this process kept between queries, as a fresh process starts."""
    from gitmem import blocks
    from gitmem.gitops import stamp
    from gitmem.index import embeddings, pagetext
    from gitmem.search import facts, vectors

    embeddings._kept.clear()
    stamp._kept.clear()
    stamp._asked.clear()
    pagetext._PARSED.clear()
    pagetext._parsed_chars = 0
    blocks.kept.cache_clear()
    facts._words.cache_clear()
    blocks.cut.cache_clear()
    vectors._cache.clear()


def test_a_warm_process_answers_as_a_fresh_one(corpus: Mem, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a warm process keeps between queries (the work tree's stamp, pages, their facts and
    words, the vectors) never changes an answer, and an edit is found as a fresh process finds it."""
    import os
    import time

    from gitmem import records
    from gitmem.gitops import stamp
    from gitmem.gitops.repo import open_notebook
    from gitmem.search import engine

    monkeypatch.setattr(stamp, "RACY_SECONDS", 0.0)  # trust the stamp at once (the files are seconds old)
    nb = open_notebook(corpus.path)
    queries = ["sick cat", "tyres before winter", "XK7147", "watering tomatoes", "Sarah timeline", "snow chains"]

    def answers() -> list[dict]:
        out = []
        for q in queries:
            record = records.jsonable(engine.run(nb, engine.Query(q, full=True)))
            out.append({k: v for k, v in record.items() if k != "timing"})
        return out

    _cold_caches()
    fresh = answers()
    assert fresh == answers() == answers()
    assert not any("snow" in r["text"] for r in fresh[-1]["results"])
    page = corpus.write("knowledge/car.md", "# Car\n\nThe car needs snow chains before winter; book the garage.\n")
    when = time.time() - 60
    os.utime(page, (when, when))
    warm = answers()
    assert "snow chains" in warm[-1]["results"][0]["text"]  # the warm process saw the edit
    _cold_caches()
    assert warm == answers()


def test_a_second_fact_of_a_chunk_already_shown_yields_to_another_section() -> None:
    """Ten results reach into more sections: a fact whose chunk a better result shows counts
    SAME_CHUNK of its score, so a close fact of another section comes before it; a far one does not."""
    from gitmem.search import engine
    from gitmem.search.facts import Found
    from gitmem.search.hits import Hit

    def found(path: str, start: int, end: int, score: float) -> Found:
        return Found(Hit(group="notebook", path=path, heading="", snippet="", text="", score=score,
                         lines={"start": start, "end": end}, commit=None, date=None, author=None),
                     1, None, (start, start))

    first, same, other, far = (found("a.md", 1, 9, 0.80), found("a.md", 1, 9, 0.78),
                               found("b.md", 3, 7, 0.75), found("c.md", 1, 4, 0.60))
    order = engine._spread([first, same, other, far])
    assert [f.hit.path for f in order] == ["a.md", "b.md", "a.md", "c.md"]
    assert same.hit.score == round(0.78 * engine.SAME_CHUNK, 4) and other.hit.score == 0.75


def test_full_results_show_each_chunk_once(mem: Mem) -> None:
    """Without --full two facts of one section are two results; with it a result is the whole
    section, so a second fact of a section already shown adds nothing and is left out."""
    mem.write("knowledge/birds.md", "# Birds\n\n## Herons\n\n- The grey heron nests in the alder carr.\n"
              "- A heron was seen fishing at the weir.\n- Heron chicks fledge in June.\n\n"
              "## Owls\n\n- The barn owl hunts over the meadow.\n")
    mem.commit("birds")
    for mode in ("keyword", "hybrid"):
        facts = mem.compact("recall", "--mode", mode, "--min-score", "0", "heron")["results"]
        full = mem.json("recall", "--mode", mode, "--min-score", "0", "heron")["results"]
        herons = [r for r in facts if r["where"].startswith("knowledge/birds.md:") and "eron" in r["text"]]
        assert len(herons) >= 2, facts
        spans = [(r["path"], r["lines"]["start"], r["lines"]["end"]) for r in full]
        assert len(spans) == len(set(spans)) and spans[0] == ("knowledge/birds.md", 1, 7), spans


def test_full_keeps_a_chunk_whose_first_occurrence_names_nothing() -> None:
    """Chunks overlap: a better chunk may already name the fact of a chunk's first occurrence,
    which then names nothing and is dropped (_distinct). With --full that occurrence must not
    count as showing its chunk, or the chunk's own later fact would be lost with it."""
    from gitmem.search import engine
    from gitmem.search.facts import Fact, Found
    from gitmem.search.hits import Hit

    def found(start: int, end: int, score: float, fact: Fact | None) -> Found:
        hit = Hit(group="notebook", path="knowledge/a.md", heading="A", snippet="", text="", score=score,
                  lines={"start": start, "end": end}, commit=None, date=None, author=None, fact=fact)
        return Found(hit, 1, None, None, named=True)

    x, y = Fact("- x", {"start": 5, "end": 5}, ["A"]), Fact("- y", {"start": 9, "end": 9}, ["A"])
    occurrences = [found(1, 6, 0.9, x), found(5, 10, 0.8, None), found(5, 10, 0.7, y)]
    for full in (False, True):
        kept = engine._distinct(engine._spread(list(occurrences), full), 10)
        assert [(f.hit.lines["start"], f.hit.fact.text if f.hit.fact else None) for f in kept] == \
            [(1, "- x"), (5, "- y")]


def test_a_smaller_limit_gives_the_first_results_of_a_larger_one(mem: Mem) -> None:
    """`-n 3` is the top three of the default: results are worked out for the default's number at
    least (engine.POOL), so a fact scored down for sharing its section with a better one gives
    its place to the same fact whatever the limit (with a pool sized by the limit, `-n 2` gave
    two herons of one section, `-n 3` a heron of another section between them)."""
    weir = "\n".join(f"- Heron {i} fishing at the weir: heron count {i}." for i in range(1, 10))
    mem.write("knowledge/weir.md", f"# Weir\n\n{weir}\n")
    for i, place in enumerate(("marsh", "river", "lake", "estuary", "pond", "canal")):
        mem.write(f"knowledge/{place}.md", f"# {place.title()}\n\n- A heron at the {place}, fishing.\n\n"
                  + "".join(f"- The {place} path is closed on day {d}.\n" for d in range(i + 2)))
    mem.commit("herons")
    for mode in ("keyword", "hybrid"):
        whole = [r["where"] for r in mem.compact("recall", "--mode", mode, "heron fishing")["results"]]
        assert len(whole) >= 10 and len({w.split(":")[0] for w in whole[:6]}) > 1, whole
        for n in range(1, 11):
            shown = [r["where"] for r in mem.compact("recall", "--mode", mode, "-n", str(n), "heron fishing")["results"]]
            assert shown == whole[:n], (mode, n, shown, whole)


def test_now_and_other_words_of_time_are_no_keywords(mem: Mem) -> None:
    """A newcomer's prompt hook (keyword, no daemon) added "Tom's email is now ..." to a question
    about the staging box "now": "now", "currently", "still" match every updated fact."""
    mem.write("knowledge/infra.md", "# Infra\n\n- The staging box is at 10.0.0.5\n")
    mem.write("reference/contacts.md", "# Contacts\n\n- Tom's email is now tom@walshdesign.co.uk\n"
                                       "- Dana is still the product owner\n")
    mem.commit("notes")
    found = mem.compact("recall", "--mode", "keyword", "--min-score", "0", "which IP does the staging box have now")
    assert [r["text"] for r in found["results"]] == ["- The staging box is at 10.0.0.5"]
    still = mem.compact("recall", "--mode", "keyword", "--min-score", "0", "is the staging box currently still up")
    assert [r["text"] for r in still["results"]] == ["- The staging box is at 10.0.0.5"]


def test_a_keyword_result_that_scores_0_is_weak(mem: Mem) -> None:
    """A newcomer's notebook without a model listed its only result under NOTEBOOK at 0.00: the
    words it shares with the question were too few to count as evidence, so it is weak."""
    mem.write("knowledge/infrastructure.md", "# Infrastructure\n\n- The staging server is staging-01.internal at "
                                             "10.20.0.15\n")
    mem.commit("notes")
    found = mem.compact("recall", "--mode", "keyword", "staging box address")
    assert [(r["score"], r["weak"]) for r in found["results"]] == [(0.0, True)] and found["evidence"]["weak"] is True
    assert mem("recall", "--mode", "keyword", "staging box address").stdout.startswith("WEAK MATCHES (1)")
    strong = mem.compact("recall", "--mode", "keyword", "staging server address")["results"]
    assert strong[0]["score"] > 0 and strong[0]["weak"] is False
