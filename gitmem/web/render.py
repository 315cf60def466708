"""A page's markdown as HTML a browser can show safely.

Notes come from agents and from pulls, so they are untrusted. markdown-it-py
renders them (CommonMark, with tables and strikethrough; inline HTML passes
through, so the `<!-- gitmem: ... -->` comments that carry a fact's source
stay hidden as in any markdown viewer), and nh3 (the Rust `ammonia`
sanitiser) then keeps only an allow-list of tags and attributes: a script
and its content, event handlers, `javascript:` and `data:` links, SVG,
iframes and forms are removed whatever the note says. Remote images are not
loaded unless the server was started with --remote-images: the image keeps
its alt text and loses its address, so reading a note never tells a third
party that you did.

A hostile page must not cost minutes of CPU either: html5ever (inside nh3)
takes time quadratic in the nesting depth of block elements (100,000 nested
`<div>`s, a 500 KB page, took a minute), so HTML nested deeper than
MAX_DEPTH is shown as text (markdown still rendered); and markdown-it-py,
linear but slow on dense syntax (about 40 µs a byte for `![![![...`), renders
bodies up to RENDER_LIMIT bytes; a bigger body is shown as plain text.
"""

from __future__ import annotations

import html as markup
import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote, urlencode, urlsplit

import nh3
from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

from ..blocks import BULLET
from ..links import WIKILINK, new_page_for, parse, resolve, slug
from ..markdown import body_offset

TAGS = {"a", "abbr", "b", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
        "i", "img", "input", "li", "ol", "p", "pre", "s", "strong", "sub", "sup", "table", "tbody", "td",
        "th", "thead", "tr", "ul", "span", "details", "summary", "kbd", "mark", "dl", "dt", "dd"}
ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title"}, "th": {"align"}, "td": {"align"},
              "ol": {"start"}, "code": {"class"}}
LANGUAGE = re.compile(r"language-[\w+#.-]{1,40}")  # a fenced block's class; no other class (.flash, .sr-only) is kept
SCHEMES = {"http", "https", "mailto"}
RENDER_LIMIT = 256 * 1024  # bytes of markdown rendered as HTML (worst case, dense syntax: about 10 s)
MAX_DEPTH = 200  # nesting of HTML elements kept as HTML (markdown itself nests at most 20 deep)
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(/?)>")


@dataclass
class Rendered:
    frontmatter: str  # the raw YAML block, shown as text ('' if none)
    html: str  # sanitised


@lru_cache(maxsize=2)
def _parser(html: bool = True) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": html, "linkify": False}).enable(["table", "strikethrough"])
    md.inline.ruler.before("link", "wikilink", _wikilink)
    return md


def _wikilink(state: StateInline, silent: bool) -> bool:
    """`[[page]]`, `[[page#heading|label]]`, `![[page]]`: a link to the page it resolves to
    (see links.py), or to the form that creates it when there is no such page."""
    if not state.src.startswith(("[[", "![["), state.pos):
        return False
    match = WIKILINK.match(state.src, state.pos)
    if match is None:
        return False
    if not silent:
        link = parse(match)
        pages, here = state.env.get("pages"), state.env.get("here", "")
        found = resolve(link.target, pages, here) if pages is not None else new_page_for(link.target)
        if found is None:
            href, title = "/new?" + urlencode({"path": new_page_for(link.target)}), "no such page yet: create it"
        else:
            href = "/page/" + quote(found) + (f"#{slug(link.heading)}" if link.heading else "")
            title = found
        token = state.push("link_open", "a", 1)
        token.attrs = {"href": href, "title": title}
        state.push("text", "", 0).content = link.shown + (" (new)" if found is None else "")
        state.push("link_close", "a", -1)
    state.pos = match.end()
    return True


def render(text: str, rel: str = "", remote_images: bool = False, pages: list[str] | None = None) -> Rendered:
    """The page's frontmatter as text and its body as sanitised HTML (see the module docstring
    for the bounds on what a hostile page can cost). `pages`, the notebook's pages, resolves
    wikilinks; without it a wikilink points at the page its target names."""
    cut = body_offset(text)
    body = text[cut:]
    if len(body.encode("utf-8", "surrogatepass")) > RENDER_LIMIT:
        html = (f"<p><em>This page is over {RENDER_LIMIT // 1024} KiB, so it is shown as text.</em></p>"
                f"<pre>{markup.escape(body, quote=False)}</pre>")
    else:
        env = {"pages": pages, "here": rel}
        html = _parser().render(body, env)
        if depth(html) > MAX_DEPTH:  # its own HTML is shown as text; the markdown around it still renders
            html = _parser(html=False).render(body, env)
    return Rendered(text[:cut].strip("\n"), sanitise(html, rel, remote_images))


def depth(html: str) -> int:
    """How deep elements nest in `html`, counting an element left open as nesting (an upper bound)."""
    level = deepest = 0
    for closing, name, empty in TAG.findall(html):
        if empty or name.lower() in VOID:
            continue
        level = max(level - 1, 0) if closing else level + 1
        deepest = max(deepest, level)
    return deepest


def sanitise(html: str, rel: str = "", remote_images: bool = False) -> str:
    """HTML reduced to the allow-list; links between pages point at the app's page view."""
    folder = posixpath.dirname(rel)

    def keep(tag: str, attribute: str, value: str) -> str | None:
        if tag == "img" and attribute == "src":
            return value if _local(value) or (remote_images and _scheme(value) in ("http", "https")) else None
        if tag == "a" and attribute == "href":
            return _link(value, folder)
        if attribute == "class":  # a note must not dress up as the app's own notices, or hide text
            return value if LANGUAGE.fullmatch(value) else None
        return value

    return nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes=SCHEMES, attribute_filter=keep,
                     link_rel="noopener noreferrer nofollow", strip_comments=True)


def _scheme(url: str) -> str:
    return urlsplit(url.strip()).scheme.lower()


def _local(url: str) -> bool:
    """A data: image of a raster type (never SVG, which can carry script)."""
    return url.strip().lower().startswith(("data:image/png", "data:image/jpeg", "data:image/gif", "data:image/webp"))


def _link(href: str, folder: str) -> str | None:
    """A relative link to another page becomes that page's view; anything unsafe goes."""
    parts = urlsplit(href.strip())
    if not parts.scheme and not parts.netloc and (parts.path.startswith("/page/") or
                                                  (parts.path == "/new" and parts.query.startswith("path="))):
        return href  # a wikilink (see _wikilink): the app's own page view, or the form that creates a page
    if parts.scheme:
        return href if parts.scheme.lower() in SCHEMES else None
    if parts.netloc or not parts.path:
        return href if not parts.netloc else None
    target = posixpath.normpath(posixpath.join(folder, parts.path)) if not parts.path.startswith("/") else parts.path
    if target.startswith(("..", "/")):
        return None
    return "/page/" + quote(target) + (f"#{parts.fragment}" if parts.fragment else "")





def inline(text: str, rel: str = "", pages: list[str] | None = None) -> str:
    """One fact as inline HTML: its list marker dropped, its emphasis, code and links rendered,
    sanitised like a page (a fact is a line of a note, so just as untrusted)."""
    body = BULLET.sub("", text.strip(), count=1)[:RENDER_LIMIT]
    return sanitise(_parser().renderInline(body, {"pages": pages, "here": rel}), rel)
