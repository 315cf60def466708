"""The browser's faces (issue 27): a paginated timeline grouped by day, messages without
gitmem's machine trailers, status badges that say what they mean."""

from __future__ import annotations

import re

from tests.conftest import Mem
from tests.test_web import client


def _commits(mem: Mem, count: int) -> None:
    for n in range(count):
        mem.write("knowledge/log.md", "".join(f"- fact {i}\n" for i in range(n + 1)))
        mem.commit(f"fact {n}")


def test_timeline_pages_thirty_entries_grouped_by_day_with_an_older_link(mem: Mem) -> None:
    _commits(mem, 33)
    c = client(mem)
    first = c.get("/log").text
    assert first.count('<li class="entry">') == 30
    assert re.search(r'<h2 class="day"><time datetime="\d{4}-\d\d-\d\d">', first)
    assert '<a href="?page=2" rel="next">Older</a>' in first and 'rel="prev"' not in first
    second = c.get("/log?page=2").text
    assert second.count('<li class="entry">') == 3  # init's commit changed no note
    assert '<a href="?page=1" rel="prev">Newer</a>' in second and 'rel="next"' not in second
    assert "fact 0" in second and "fact 32" not in second


def test_timeline_filters_survive_paging_and_a_bad_page_is_refused(mem: Mem) -> None:
    _commits(mem, 31)
    c = client(mem)
    assert '<a href="?grep=fact&amp;page=2" rel="next">Older</a>' in c.get("/log?grep=fact").text
    bad = c.get("/log?page=0")
    assert bad.status_code == 400 and "is not a page number" in bad.text
    assert '<a href="?page=2" rel="next">Older</a>' in c.get("/history/knowledge/log.md").text


def test_people_see_no_gitmem_trailers_in_the_timeline(mem: Mem) -> None:
    mem("remember", "Sarah's phone is 555-1234")
    page = client(mem).get("/log").text
    assert "mem: remember Sarah&#39;s phone is 555-1234" in page and "Gitmem-Verb" not in page
    out = mem("log").stdout
    assert "    mem: remember Sarah's phone is 555-1234" in out.splitlines() and "Gitmem-Verb" not in out
    assert "Gitmem-Verb: remember" in mem.json("log")["entries"][0]["message"]  # machines still get them


def test_semantic_search_not_checked_is_a_neutral_badge_that_says_why(mem: Mem) -> None:
    page = client(mem).get("/status").text
    assert '<span class="badge unknown">not checked yet</span>' in page
    assert 'class="badge off">not checked' not in page
    assert '<a href="/status?model=1">check now</a>' in page
