"""Wikilinks and markdown links (links.py), stored in the index (index/links.py), a page's
links both ways (search/links.py), and how the CLI, the web page view, the editor's preview,
the JSON API and `git mem why` show them; rewriting links for a rename (links.retarget)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from gitmem.links import Link, every_link, resolve, resolve_path, retarget, target_of, wikilinks
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


def test_markdown_links_to_pages_count_and_others_do_not() -> None:
    text = ("[c](../reference/contacts.md) [top](/projects/apollo.md#Risks \"t\") ![d](<my page.md>)\n"
            "[web](https://example.com/a.md) [anchor](#x) [img](pic.png) [s](a%20b.md) `[no](x.md)`\n")
    assert every_link(text) == [
        Link("../reference/contacts.md", None, "c", 1, False, True),
        Link("/projects/apollo.md", "Risks", "top", 1, False, True),
        Link("my page.md", None, "d", 1, True, True),
        Link("a b.md", None, "s", 2, False, True),
    ]
    assert resolve_path("../reference/contacts.md", PAGES, "daily/2026-11-25.md") == "reference/contacts.md"
    assert resolve_path("reference/contacts.md", PAGES, "daily/x.md") == "reference/contacts.md"  # from the top
    assert resolve_path("/projects/apollo.md", PAGES, "daily/x.md") == "projects/apollo.md"
    assert resolve_path("../../etc/passwd.md", PAGES, "daily/x.md") is None


def test_retarget_rewrites_every_form_and_keeps_it() -> None:
    pages = ["projects/apollo.md", "reference/contacts.md", "daily/d.md", "old/other/apollo.md"]
    text = ("[[apollo]] [[apollo|A]] [[projects/apollo#Risks]] ![[projects/apollo.md]] [[contacts]]\n"
            "[x](../projects/apollo.md#risks) [y](/projects/apollo.md) `[[apollo]]`\n")
    made, count = retarget(text, "daily/d.md", pages, {"projects/apollo.md": "archive/apollo-2026.md"})
    assert count == 6
    assert made == ("[[apollo-2026]] [[apollo-2026|A]] [[archive/apollo-2026#Risks]] ![[archive/apollo-2026.md]] "
                    "[[contacts]]\n[x](../archive/apollo-2026.md#risks) [y](/archive/apollo-2026.md) `[[apollo]]`\n")
    # a bare name that would then name another page becomes a path
    made, _ = retarget("[[apollo]]\n", "daily/d.md", pages, {"projects/apollo.md": "x/contacts.md"})
    assert made == "[[x/contacts]]\n"
    # the moved page's own relative links are rewritten from its new folder
    made, count = retarget("[c](../reference/contacts.md) [[contacts]]\n", "projects/apollo.md", pages,
                           {"projects/apollo.md": "apollo.md"}, now="apollo.md")
    assert (made, count) == ("[c](reference/contacts.md) [[contacts]]\n", 1)


NAMES = st.sampled_from(["apollo", "projects/apollo", "apollo.md", "contacts", "nowhere", "old/other/apollo"])
FORMS = st.sampled_from(["[[{}]]", "[[{}|label]]", "[[{}#Head]]", "![[{}]]", "[t]({}.md)", "`[[{}]]`", "{}"])


@given(st.lists(st.tuples(FORMS, NAMES, st.sampled_from([" ", "\n", " x\n", "\n```\n"])), max_size=12))
def test_retarget_moves_exactly_the_links_to_the_page(parts: list[tuple[str, str, str]]) -> None:
    pages = ["projects/apollo.md", "reference/contacts.md", "daily/d.md", "old/other/apollo.md"]
    text = "".join(form.format(name.removesuffix(".md") if form.endswith(".md)") else name) + sep
                   for form, name, sep in parts)
    moves = {"projects/apollo.md": "archive/apollo-2026.md"}
    after = ["archive/apollo-2026.md", "reference/contacts.md", "daily/d.md", "old/other/apollo.md"]
    made, count = retarget(text, "daily/d.md", pages, moves)
    before_links, after_links = every_link(text), every_link(made)
    assert len(before_links) == len(after_links)  # no link made or lost, in or out of code
    moved = 0
    for was, now in zip(before_links, after_links):
        target = target_of(was, pages, "daily/d.md")
        assert target_of(now, after, "daily/d.md") == moves.get(target, target) if target else True
        assert (now.label, now.heading, now.embed, now.line) == (was.label, was.heading, was.embed, was.line)
        moved += target in moves
    assert count == moved
    assert retarget(made, "daily/d.md", after, {"nowhere.md": "x.md"}) == (made, 0)  # others untouched


def test_a_commit_adding_or_removing_a_link_updates_backlinks(mem: Mem) -> None:
    _linked(mem)
    back = lambda: [(b["path"], b["line"]) for b in mem.json("links", "reference/contacts.md")["backlinks"]]  # noqa: E731
    assert back() == [("projects/apollo.md", 3)]
    mem.write("daily/2026-11-26.md", "# 26\n\n- called [Sarah](../reference/contacts.md)\n")
    assert back() == [("daily/2026-11-26.md", 3), ("projects/apollo.md", 3)]  # the work tree counts at once
    mem.commit("link")
    mem.write("projects/apollo.md", "# Apollo\n\n- owner: Sarah\n")
    mem.commit("unlink")
    assert back() == [("daily/2026-11-26.md", 3)]
    mem.git("mv", "daily/2026-11-26.md", "daily/renamed.md")
    mem.commit("renamed by hand")
    assert back() == [("daily/renamed.md", 3)]
    mem.git("rm", "-q", "daily/renamed.md")
    mem.commit("gone")
    assert back() == []


def test_links_come_from_the_index_and_fill_in_after_the_migration(mem: Mem) -> None:
    from gitmem.gitops.repo import open_notebook
    from gitmem.index import db
    from gitmem.index.indexer import Index

    _linked(mem)
    mem("links", "reference/contacts.md")
    nb = open_notebook(mem.path)
    index = Index(nb)
    stored = index.conn.execute("SELECT l.target, l.line FROM links l JOIN blobs b ON b.id = l.blob").fetchall()
    assert ("contacts", 3) in stored
    assert [t for t, _ in stored if t == "apollo"] == ["apollo"]  # the daily page's: the private page stores none
    # an index made before migration 13: no rows, every blob unread, links pending
    index.conn.execute("DELETE FROM links")
    index.conn.execute("UPDATE blobs SET linked = 0")
    db.set_meta(index.conn, "links", "pending")
    index.close()
    assert [b["path"] for b in mem.json("links", "reference/contacts.md")["backlinks"]] == ["projects/apollo.md"]


def test_why_json_gives_the_pages_backlinks(mem: Mem) -> None:
    _linked(mem)
    data = mem.json("why", "reference/contacts.md:3")
    assert [(b["path"], b["line"]) for b in data["backlinks"]] == [("projects/apollo.md", 3)]
    assert "page linked from projects/apollo.md:3" in mem("why", "reference/contacts.md:3").stdout
