"""Abbreviations of work and home said in full where the notebook says them the other way.

"which CI do we use" found nothing in a notebook that says "Continuous integration runs on GitHub
Actions": the small model places "CI" far from its long form (cosine 0.27), and no word is shared
(an agent developer's run, 2026-11-27). A question that says an abbreviation the notebook spells
out is asked with the long form beside it ("which CI (continuous integration) do we use"), and one
that spells out what the notebook abbreviates with the abbreviation beside it; only where the
notebook says the other form, so nothing is added to a question the notebook cannot answer so.

The list is short and common on purpose: an abbreviation with several readings in everyday use
("PM" the time and the role, "ID", "IT") is left out, and so is one the notebook's own roles
already cover (PO, TL: search/aliases.py).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ..index import fts

if TYPE_CHECKING:
    import apsw

    from .aliases import Asked

LONG = {
    "CI": "continuous integration", "CD": "continuous deployment", "PR": "pull request", "MR": "merge request",
    "DB": "database", "K8S": "kubernetes", "SLA": "service level agreement", "SLO": "service level objective",
    "OKR": "objectives and key results", "KPI": "key performance indicator", "PTO": "paid time off",
    "OOO": "out of office", "EOD": "end of day", "WFH": "working from home", "SSO": "single sign-on",
    "MFA": "multi-factor authentication", "2FA": "two-factor authentication", "VPN": "virtual private network",
    "CDN": "content delivery network", "DNS": "domain name system", "API": "application programming interface",
    "CLI": "command line", "ADR": "architecture decision record", "RFC": "request for comments",
    "CEO": "chief executive", "CTO": "chief technology officer", "CFO": "chief financial officer",
    "HR": "human resources", "QA": "quality assurance", "UX": "user experience", "AWS": "amazon web services",
    "GCP": "google cloud", "ETA": "estimated arrival", "DOB": "date of birth", "NHS": "national health service",
}
# as people type them in lower case too, where that is no other word ("hr" is an hour, "eta" a letter)
LOWER_TOO = frozenset("ci pr db k8s sla slo okr kpi pto ooo eod wfh sso mfa 2fa vpn cdn api cli adr ceo cto cfo "
                      "qa ux aws gcp".split())
SHORT = re.compile(r"(?<![\w-])(" + "|".join(sorted(LONG, key=len, reverse=True)) + r")(s?)(?![\w-])",
                   re.IGNORECASE)
FULL = {short: re.compile(r"(?<![\w-])" + r"[\s-]+".join(map(re.escape, long.split())) + r"s?(?![\w-])",
                          re.IGNORECASE) for short, long in LONG.items()}


def spelled(conn: apsw.Connection, asked: Asked) -> Asked:
    """`asked` with each abbreviation or long form beside the form the notebook says instead."""
    ranked = _spelled(conn, asked.ranked)
    if ranked == asked.ranked:
        return asked
    return replace(asked, ranked=ranked, judged=_spelled(conn, asked.judged))


def _spelled(conn: apsw.Connection, text: str) -> str:
    out = SHORT.sub(lambda m: _long(conn, m), text)
    said = {m.group(1).upper() for m in SHORT.finditer(out)}
    for short, pattern in FULL.items():
        if short not in said and pattern.search(out) and _says(conn, short):
            out = pattern.sub(rf"\g<0> ({short})", out)
    return out


def _long(conn: apsw.Connection, m: re.Match[str]) -> str:
    said = m.group(1)
    if not (said.isupper() or said.lower() in LOWER_TOO):
        return m.group()
    long = LONG[said.upper()]
    if FULL[said.upper()].search(m.string):
        return m.group()  # said both ways already
    plural = "s" if m.group(2) and not long.endswith("s") else ""  # "PRs" (pull requests)
    return f"{m.group()} ({long}{plural})" if _says(conn, long) else m.group()


def _says(conn: apsw.Connection, phrase: str) -> bool:
    """Whether any text of the notebook says the phrase (FTS5's words: case and plural's stem aside)."""
    words = re.findall(r"\w+", phrase)
    return bool(words) and fts.matching(conn, '"' + " ".join(words) + '"') > 0
