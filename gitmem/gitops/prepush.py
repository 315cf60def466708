"""The pre-push check: a push never carries a notebook page marked private.

git runs the pre-push hook with the remote's name and URL, and one line per ref on its input:
`<local ref> <local oid> <remote ref> <remote oid>`. What the push would send is every object
reachable from the local commits that the remote does not have (`git rev-list --objects`, less
what the remote ref or this clone's copies of the remote's branches hold). A note among them
whose frontmatter says `private: true` refuses the whole push, naming the page.
"""

from __future__ import annotations

import re

from ..errors import Refused
from ..markdown import body_offset
from ..notebook import Notebook, decode
from .log import ZERO

PRIVATE = re.compile(r"^private:\s*[\"']?(true|yes|on)[\"']?\s*(#.*)?$", re.IGNORECASE | re.MULTILINE)


def private_pages(nb: Notebook, remote: str, lines: str) -> list[str]:
    """Notebook-relative pages marked private that this push would send."""
    git = nb.git
    found: dict[str, None] = {}
    remotes = set(git.run("remote").decode().split())
    for line in lines.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[1] == ZERO:
            continue
        _local_ref, local, _remote_ref, theirs = parts
        have = [f"^{theirs}"] if theirs != ZERO and git.has_object(theirs) else []
        if remote in remotes:
            have.append(f"--remotes={remote}")
        raw = git.run("rev-list", "--objects", local, *(["--not", *have] if have else []), "--")
        for item in raw.decode("utf-8", "surrogateescape").splitlines():
            oid, _, path = item.partition(" ")
            rel = nb.rel(path) if path else None
            if rel is None or not nb.settings.is_note(rel) or not git.has_object(oid, "blob"):
                continue
            if _private(decode(git.read_blob(oid))):
                found[rel] = None
    return list(found)


def _private(text: str) -> bool:
    body = body_offset(text)
    return bool(body and PRIVATE.search(text[:body]))


def check(nb: Notebook, remote: str, lines: str) -> None:
    """Refused if the push would send a private page."""
    pages = private_pages(nb, remote, lines)
    if pages:
        shown = ", ".join(pages)
        raise Refused(f"refusing to push to {remote}: {shown} {'is' if len(pages) == 1 else 'are'} marked private "
                      f"(frontmatter private: true) and would travel with the commits; nothing was pushed",
                      "take it out of those commits (git rm --cached PAGE, then amend or rewrite the commits that "
                      "added it) or keep it in your personal notebook (git mem remember --scope personal)")
