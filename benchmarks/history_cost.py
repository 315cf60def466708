"""What indexing a long history costs: a 1,000-commit notebook of small edits.

Builds a notebook with N commits (default 1,000) of the edits an agent makes
(a bullet added or reworded, a daily-log entry, now and then a new page or a
deleted line) over simulated days with fixed dates, with a second clone's
three-commit branch merged back every 50 commits, then indexes it from
scratch with an empty embedding cache, the way `git mem index` does.

Reported, against baselines measured in the same run:
- revisions, page versions, and chunks summed over every version (what
  indexing each revision separately would chunk and embed),
- distinct chunk texts and embeddings computed (what gitmem does),
- time for the history (sync) and the embeddings, and the same notebook's
  final tree indexed as a single commit (HEAD only),
- latency of history reads on the result: recall --at, --history, log, log --grep.

Target: embeddings computed per distinct chunk text = 1.0 (every text
embedded once, however many revisions hold it).

Run:  python benchmarks/history_cost.py [--commits 1000] [--seed 7] [--quick]
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402
from gitmem.index import embed, embeddings, maintenance
from gitmem.search import engine as search
from gitmem.search import timeline  # noqa: E402
from gitmem.index.indexer import Index  # noqa: E402
from gitmem.gitops.repo import open_notebook  # noqa: E402
from tests.histories import Builder  # noqa: E402

WORDS = ("sensor vendor launch beta spec prototype courier budget review design logo pelican tea coffee "
         "dentist passport wifi router office garden tomato boiler invoice contract meeting demo deadline "
         "tester release server backup password calendar flight hotel taxi lunch dinner birthday gift "
         "cable battery laptop printer paper ticket visa report draft feedback roadmap sprint").split()
PEOPLE = ("Sarah Bob Dana Eli Farah Gus Hana Ivo Jun Kai Lena Milo Nora Omar Pia Quinn Rosa Sven Tara Uma").split()
PAGES = ["reference/contacts.md", "reference/preferences.md", "reference/plan.md", "knowledge/facts.md",
         "knowledge/project.md", "knowledge/vendors.md", "lists/todos.md", "lists/shopping.md"]


def sentence(rng: random.Random) -> str:
    return f"{rng.choice(PEOPLE)} {' '.join(rng.choice(WORDS) for _ in range(rng.randint(4, 9)))}"


class Notebook:
    """The simulated notebook: pages as lists of bullet lines, daily logs as entries."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.pages: dict[str, list[str]] = {p: [] for p in PAGES[:3]}
        self.days: dict[str, list[str]] = {}

    def text(self, path: str) -> str:
        title = path.rsplit("/", 1)[-1][:-3].capitalize()
        return f"# {title}\n\n" + "".join(f"- {line}\n" for line in self.pages[path])

    def daily_text(self, day: str) -> str:
        return f"# Daily Log — {day}\n" + "".join(self.days[day])

    def edit(self, when: datetime) -> tuple[dict[str, str | None], str]:
        rng = self.rng
        roll = rng.random()
        day = f"{when:%Y-%m-%d}"
        if roll < 0.35:  # a daily-log entry
            entry = sentence(rng)
            self.days.setdefault(day, []).append(f"\n## {when:%H:%M} — {entry}\n\n{sentence(rng)}.\n")
            path = f"daily/{day}.md"
            return {path: self.daily_text(day)}, f"mem: daily {day} {entry[:40]}"
        if roll < 0.40 and len(self.pages) < len(PAGES):  # a new page
            path = next(p for p in PAGES if p not in self.pages)
            self.pages[path] = [sentence(rng)]
            return {path: self.text(path)}, f"mem: write {path}"
        path = rng.choice(sorted(self.pages))
        lines = self.pages[path]
        if roll < 0.75 or not lines:  # a new bullet
            lines.append(sentence(rng))
            verb = "remember"
        elif roll < 0.95:  # a reworded bullet
            lines[rng.randrange(len(lines))] = sentence(rng)
            verb = "update"
        else:  # a dropped bullet
            lines.pop(rng.randrange(len(lines)))
            verb = "forget"
        return {path: self.text(path)}, f"mem: {verb} in {path}"


def build(repo: Path, commits: int, seed: int) -> tuple[list[str], dict[str, str]]:
    """`commits` commits; every 50th starts a second clone's branch of three
    commits (its own daily log and page) that the next commit merges back."""
    rng = random.Random(seed)
    nb = Notebook(rng)
    b = Builder()
    start = datetime(2026, 1, 1, 8, 0, tzinfo=timezone.utc)
    final: dict[str, str] = {}
    laptop: list[str] = []
    tip = 0
    i = 0
    while i < commits:
        when = start + timedelta(days=i // 10, minutes=50 * (i % 10))
        if i % 50 == 49 and i + 4 < commits:
            day = f"{when:%Y-%m-%d}"
            side: dict[str, str] = {}
            for k in range(3):
                laptop.append(sentence(rng))
                side = {f"daily/{day}-laptop.md": f"# Daily Log — {day} (laptop)\n\n## 2{k}:00 — {laptop[-1]}\n",
                        "knowledge/laptop.md": "# Laptop\n\n" + "".join(f"- {x}\n" for x in laptop)}
                b.commit(f"laptop: {laptop[-1][:40]}", when + timedelta(minutes=k), side, branch="laptop",
                         parent=tip if k == 0 else None)
            tip = b.commit("Merge branch 'laptop'", when + timedelta(minutes=5), dict(side), merge=len(b.specs))
            final.update(side)
            i += 4
            continue
        files, message = nb.edit(when)
        final.update({k: v for k, v in files.items() if v is not None})
        tip = b.commit(message, when, files)
        i += 1
    return b.write(repo), final


def index_from_scratch(repo: Path) -> dict[str, float | int]:
    """What `git mem index` does on a fresh clone, timed in two parts."""
    nb = open_notebook(repo)
    index = Index(nb)
    embedder = embed.load(embed.resolve(nb.git))
    started = time.monotonic()
    report = index.sync(wait=None)
    synced = time.monotonic()
    emb = embeddings.embed(index, embedder, live_only=False, wait=None)
    done = time.monotonic()
    snapshots = index.conn.execute(
        """SELECT sum(n * (coalesce(e.seq, (SELECT max(seq) + 1 FROM commits)) - s.seq))
             FROM (SELECT v.start_commit, v.end_commit, count(c.id) AS n FROM versions v
                     JOIN chunks c ON c.blob = v.blob GROUP BY v.id) v
             JOIN commits s ON s.id = v.start_commit LEFT JOIN commits e ON e.id = v.end_commit""").fetchone()[0]
    from_branches = index.conn.execute(
        "SELECT count(DISTINCT text) FROM origins WHERE oid IN (SELECT oid FROM merged)").fetchone()[0]
    index.close()
    counts = maintenance.status(nb, check_model=False)["counts"]
    return {"revisions": counts["revisions"], "page_versions": counts["versions"],
            "chunks_in_all_revisions": snapshots, "texts_from_merged_branches": from_branches,
            "chunks_over_history": counts["chunks_over_history"], "chunks_at_head": counts["chunks"],
            "distinct_texts": counts["distinct_chunks"], "embeddings_computed": emb.embedded,
            "embeddings_reused": emb.reused, "blobs_chunked": report.blobs_chunked,
            "sync_s": round(synced - started, 2), "embed_s": round(done - synced, 2),
            "total_s": round(done - started, 2)}


def head_only(repo: Path, final: dict[str, str]) -> dict[str, float | int]:
    b = Builder()
    b.commit("final tree", datetime(2026, 6, 1, tzinfo=timezone.utc), dict(final))
    b.write(repo)
    return index_from_scratch(repo)


def reads(repo: Path) -> dict[str, float]:
    """Median wall time (ms) of history reads, in-process, model loaded."""
    nb = open_notebook(repo)

    def timed(fn, runs: int = 5) -> float:
        samples = []
        for _ in range(runs):
            t = time.monotonic()
            fn()
            samples.append((time.monotonic() - t) * 1000)
        return round(sorted(samples)[len(samples) // 2], 1)

    q = "Sarah vendor deadline"
    out = {
        "recall": timed(lambda: search.run(nb, search.Query(q))),
        "recall --at 2026-02-15": timed(lambda: search.run(nb, search.Query(q, at="2026-02-15"))),
        "recall --history": timed(lambda: search.run(nb, search.Query(q, history=True))),
        "recall --history --mode keyword": timed(lambda: search.run(nb, search.Query(q, mode="keyword",
                                                                                       history=True))),
        "log -n 20": timed(lambda: timeline.log(nb, limit=20)),
        "log --path reference/plan.md": timed(lambda: timeline.log(nb, path="reference/plan.md")),
    }
    t = time.monotonic()
    timeline.log(nb, grep="vendor is late with the sensors")
    out["log --grep (first: embeds every diff)"] = round((time.monotonic() - t) * 1000, 1)
    out["log --grep (cached)"] = timed(lambda: timeline.log(nb, grep="vendor is late with the sensors"), 3)
    return out


def main() -> None:
    p = common.parser(__doc__)
    p.add_argument("--commits", type=int, default=1000)
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args()
    commits = 200 if args.quick else args.commits
    common.setup()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        t = time.monotonic()
        _, final = build(Path(tmp) / "history", commits, args.seed)
        built = round(time.monotonic() - t, 2)
        common.log(f"{commits} commits built in {built}s; indexing the history from scratch")
        history = index_from_scratch(Path(tmp) / "history")
        common.log("indexing the final tree as one commit")
        head = head_only(Path(tmp) / "head", final)
        latency = reads(Path(tmp) / "history")
    rate = history["embeddings_computed"] / history["embed_s"] if history["embed_s"] else 0
    naive_s = round(history["chunks_in_all_revisions"] / rate, 1) if rate else None
    per_text = round(history["embeddings_computed"] / history["distinct_texts"], 3)
    rows = [("revisions indexed", "revisions"), ("page versions", "page_versions"),
            ("chunks in all revisions (a snapshot per commit)", "chunks_in_all_revisions"),
            ("chunks summed over page versions", "chunks_over_history"), ("chunks at HEAD", "chunks_at_head"),
            ("distinct chunk texts stored", "distinct_texts"), ("embeddings computed", "embeddings_computed"),
            ("texts attributed to merged-branch commits", "texts_from_merged_branches"),
            ("history sync (chunking, versions, origins), s", "sync_s"), ("embedding, s", "embed_s"),
            ("total, s", "total_s")]
    common.table(["", "all history", "HEAD only"], [[label, history[k], head[k]] for label, k in rows],
                 f"{commits}-commit notebook (seed {args.seed}), indexed from scratch with an empty embedding cache")
    print(f"embeddings computed per distinct text: {per_text} (target 1.0: {'met' if per_text == 1.0 else 'MISSED'})")
    print(f"embedding rate {rate:.1f} texts/s; embedding every chunk of every revision instead would take "
          f"~{naive_s}s (an estimate, not run)\n")
    common.table(["read (in-process, model loaded)", "median ms"], list(latency.items()),
                 f"reads on the {commits}-commit notebook")
    common.save("history_cost", {"commits": commits, "seed": args.seed, "build_repo_s": built, "history": history,
                                 "head_only": head, "embed_rate_per_s": round(rate, 1),
                                 "embeddings_per_distinct_text": per_text,
                                 "snapshot_per_revision_embed_s_estimate": naive_s, "reads_ms": latency})


if __name__ == "__main__":
    main()
