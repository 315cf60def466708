"""Wikilinks (links.py), a page's links both ways (search/links.py), and how the CLI, the
web page view, the editor's preview and the JSON API show them."""

from __future__ import annotations

import json

from hypothesis import given, strategies as st

from gitmem.links import Link, resolve, wikilinks
from gitmem.web.render import render
from tests.conftest import Mem

PAGES = ["reference/contacts.md", "projects/apollo.md", "archive/projects/apollo.md", "daily/2026-11-25.md"]


def test_every_obsidian_form_is_read_outside_code() -> None:
    text = ("See [[contacts]], [[projects/apollo#Risks|the risks]] and ![[diagram]].\n"
            "`[[not a link]]`\n```\n[[fenced]]\n```\n[[ spaced |  label ]]\n")
    assert wikilinks(text) == [
        Link("contacts", None, None, 1, False),
        Link("projects/apollo", "Risks", "the risks", 1, False),
        Link("diagram", None, None, 1, True),
        Link("spaced", None, "label", 6, False),
    ]


def test_targets_resolve_as_obsidian_resolves_them() -> None:
    assert resolve("contacts", PAGES) == "reference/contacts.md"
    assert resolve("reference/contacts.md", PAGES) == "reference/contacts.md"
    assert resolve("apollo", PAGES) == "projects/apollo.md"  # the shortest path wins
    assert resolve("apollo", PAGES, here="archive/projects/notes.md") == "archive/projects/apollo.md"  # same folder
    assert resolve("archive/projects/apollo", PAGES) == "archive/projects/apollo.md"
    assert resolve("nowhere", PAGES) is None
    assert resolve("other/apollo", PAGES) is None  # a folder that does not hold it


@given(st.text(max_size=300))
def test_any_text_parses_to_links_whose_lines_exist(text: str) -> None:
    lines = text.split("\n")
    for link in wikilinks(text):
        assert 1 <= link.line <= len(lines)
        assert f"[[{link.target}" in lines[link.line - 1].replace("[[ ", "[[").replace("[[\t", "[[") or \
            link.target in lines[link.line - 1]
        assert len(link.target) <= 200 and "\n" not in link.target


def test_render_links_existing_pages_and_offers_to_create_missing_ones() -> None:
    html = render("Call [[contacts|Sarah]], see [[Nowhere]] and `[[code]]`.\n", "daily/2026-11-25.md",
                  pages=PAGES).html
    assert '<a href="/page/reference/contacts.md" title="reference/contacts.md"' in html and ">Sarah</a>" in html
    assert '<a href="/new?path=Nowhere.md" title="no such page yet: create it"' in html and ">Nowhere (new)</a>" in html
    assert "<code>[[code]]</code>" in html


def test_a_note_cannot_smuggle_a_script_through_a_wikilink() -> None:
    html = render('[[x" onmouseover="alert(1)|<script>alert(1)</script>]]\n', "a.md", pages=PAGES).html
    assert "<script" not in html and "onmouseover=\"alert" not in html


def _linked(mem: Mem) -> Mem:
    mem.write("projects/apollo.md", "# Apollo\n\n- owner: [[contacts|Sarah]]\n- risks: [[risks]]\n")
    mem.write("reference/contacts.md", "# Contacts\n\n- Sarah Chen, 555-1234\n")
    mem.write("daily/2026-11-25.md", "# 2026-11-25\n\n- talked to [[apollo]] team\n")
    mem.write("knowledge/secret.md", "---\nprivate: true\n---\n- about [[apollo]]\n")
    mem.commit("pages")
    return mem


def test_links_lists_both_ways_and_leaves_private_pages_out(mem: Mem) -> None:
    out = _linked(mem)("links", "projects/apollo.md").stdout
    assert out.splitlines() == [
        "projects/apollo.md",
        "links to (2):",
        "  reference/contacts.md  (line 3)",
        "  risks.md (no such page yet)  (line 4)",
        "linked from (1):",
        "  daily/2026-11-25.md:3  - talked to [[apollo]] team",
    ]
    data = json.loads(mem("links", "reference/contacts.md", "--json").stdout)
    assert [(b["path"], b["line"]) for b in data["backlinks"]] == [("projects/apollo.md", 3)]


def test_links_of_a_missing_page_is_one_line(mem: Mem) -> None:
    assert mem("links", "nowhere.md", code=1).stderr.startswith("error: ")


def test_page_view_and_api_show_backlinks(mem: Mem) -> None:
    from tests.test_web import API, client

    c = client(_linked(mem))
    page = c.get("/page/projects/apollo.md").text
    assert '<a href="/page/reference/contacts.md" title="reference/contacts.md"' in page
    assert '<a href="/page/daily/2026-11-25.md?lines=3">daily/2026-11-25.md</a>' in page
    backlinks = page[page.index('<section class="backlinks"'):]
    assert "knowledge/secret.md" not in backlinks  # the tree lists it (a person's own view); backlinks do not
    api = c.get("/api/links?path=reference/contacts.md", headers=API).json()
    assert [b["path"] for b in api["backlinks"]] == ["projects/apollo.md"]
