"""Credentials in text: the patterns that find a secret value, and its redaction.

The write guard (notes/guard.py) refuses a note holding one of these, with
detect-secrets' token plugins beside them. Text that reaches an agent without
passing the guard (a line pulled from a teammate, written by hand, or by an
editor) is redacted on its way out by `redact`, with these patterns alone: they
cost microseconds a result, where detect-secrets' import costs a prompt hook
150 ms (search/engine.py, agent/budget.py).
"""

from __future__ import annotations

import re
from typing import Any

# A value that looks like a credential: no spaces, and a digit or a symbol in it
# ("hunter2", "Tr0ub4dor&3"), so "the password is required" stays ordinary. Group v
# is the value itself: redaction replaces it and keeps the words around it.
_VALUE = r"['\"]?(?P<v>(?!(?:none|null|true|false|required|optional|expired|changed)\b)" \
         r"(?=[^\s'\"]*[\d!@#$%^&*+?~])[^\s'\"<>]{6,})"
# "password" in other languages, and how they say "is".
_PASSWORD_WORDS = (r"passwort|kennwort|mot de passe|contrase(ñ|n)a|clave de acceso|senha|wachtwoord|has(ł|l)o|"
                   r"heslo|l(ö|o)senord|salasana|passord|adgangskode|jelszó|parolă|şifre|sifre|пароль|"
                   r"密码|密碼|口令|パスワード|비밀번호")
_ENV_NAME = r"[A-Za-z0-9_]*(PASS|PASSWD|PASSWORD|PWD|PW|SECRET|TOKEN|KEY|APIKEY|CREDENTIALS?|AUTH|PASSPHRASE)"
SECRET_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("password assignment", re.compile(
        r"\b(pass(word|wd|phrase|code)?|pwd|pin|secret|api[_ -]?key|access[_ -]?key|auth[_ -]?token|token)"
        r"\s*(:|=|\bis\b|\bwas\b)\s*" + _VALUE, re.I)),
    ("password in another language", re.compile(
        r"(?<![A-Za-zÀ-ÿ])(" + _PASSWORD_WORDS + r")(?![A-Za-zÀ-ÿ])\s*"
        r"(:|：|=|\b(ist|lautet|war|est|était|es|era|é|is|jest|je|är|on|er)\b|是|为|為|は)\s*" + _VALUE, re.I)),
    ("secret in an environment variable", re.compile(
        r"\b[A-Z][A-Z0-9_]*(KEY|TOKEN|SECRET|PASSWORD|PASSWD)\s*=\s*['\"]?(?P<v>[^\s'\"]{8,})")),
    # A .env line: NAME=value at the start of a line, any case, the name ending in a
    # secret's word (DB_PASS, db_password, STRIPE_KEY; not KEY_FILE or PRIMARY_KEY_NAME).
    (".env line with a secret", re.compile(
        r"^\s*(export\s+)?(?=[A-Za-z0-9_]*[A-Za-z])" + _ENV_NAME + r"\s*=\s*['\"]?"
        r"(?P<v>(?!\$\{|<|\[redacted\])[^\s'\"]{4,})", re.I | re.M)),
    # no re.I: case-folding the negated classes made this one pattern take 4 ms to compile
    ("credentials in a URL", re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/:@]+:(?P<v>[^\s/@]{3,})@[^\s/]+")),
    ("OpenAI key", re.compile(r"\bsk-(proj-)?[A-Za-z0-9_-]{20,}")),
    ("Anthropic key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("Google OAuth client secret", re.compile(r"\bGOCSPX-[A-Za-z0-9_-]{20,}")),
    ("GitHub fine-grained token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}")),
    ("Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    # Token formats detect-secrets also knows (by its names, so a finding is named once), here so
    # that a result is redacted without loading it.
    ("AWS Access Key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    ("GitHub Token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b")),
    ("GitLab Token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("Slack Token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Stripe Access Key", re.compile(r"\b[rs]k_live_[A-Za-z0-9]{16,}")),
    ("JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    ("AWS secret key", re.compile(r"\baws_secret_access_key\s*[:=]\s*['\"]?(?P<v>[A-Za-z0-9/+]{40})", re.I)),
    ("private key block", re.compile(r"-----(BEGIN|END) ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----")),
    ("PuTTY private key", re.compile(r"^\s*(PuTTY-User-Key-File-\d+|Private-Lines|Private-MAC|Private-Hash)\s*:",
                                     re.I | re.M)),
    # A key body without its BEGIN line: a line that is all base64 at the width PEM and
    # OpenSSH wrap at, mixing cases and digits (a hex digest is one case), or the DER
    # and OpenSSH openings every key body starts with.
    ("private key body", re.compile(
        r"^\s*(?=[A-Za-z0-9+/]*[a-z])(?=[A-Za-z0-9+/]*[A-Z])(?=[A-Za-z0-9+/]*\d)[A-Za-z0-9+/]{60,76}={0,2}\s*$"
        r"|^\s*(MII[CEGJ][A-Za-z0-9+/]{2}IBA|MHcCAQEE|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/]{8,}", re.M)),
]

# Rules that name no token type; reported after those that do.
GENERIC = {"password assignment", "password in another language", "secret in an environment variable",
           ".env line with a secret", "Secret Keyword"}

REDACTED = "[redacted]"
TRAILING = ".,;:)"  # sentence punctuation after a value is not part of it


def _any(case: bool) -> re.Pattern[str]:
    """One pass over a text for every pattern of that case (a superset: multiline anchors),
    so that text without a secret, nearly all of it, is looked at once."""
    parts = [p.pattern.replace("(?P<v>", "(?:") for _, p in SECRET_PATTERNS if bool(p.flags & re.I) != case]
    return re.compile("|".join(f"(?:{part})" for part in parts), re.M | (0 if case else re.I))


_ANY, _ANY_I = _any(True), _any(False)


def spans(line: str) -> list[tuple[int, int, str]]:
    """(start, end, rule) of each secret value these patterns find in the line: the value alone
    where the pattern names it (group v), else the whole match, without trailing punctuation."""
    out: list[tuple[int, int, str]] = []
    for rule, pattern in SECRET_PATTERNS:
        for match in pattern.finditer(line):
            group = "v" if "v" in pattern.groupindex and match.group("v") else 0
            start, end = match.span(group)
            while end > start + 1 and line[end - 1] in TRAILING:
                end -= 1
            out.append((start, end, rule))
    return out


def distinct(found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """One span for each secret: of overlapping spans the one whose rule names a token type."""
    kept: list[tuple[int, int, str]] = []
    for span in sorted(found, key=lambda s: (s[2] in GENERIC, s[0])):
        if not any(span[0] < k[1] and k[0] < span[1] for k in kept):
            kept.append(span)
    return sorted(kept)


def cut(line: str, found: list[tuple[int, int, str]], fit: bool = False) -> str:
    """The line with every span (and anything overlapping it) replaced by [redacted]; with `fit`,
    a value shorter than that by as many underscores (a budgeted context never grows; no pattern
    reads them as a value)."""
    out, at = [], 0
    for start, end, _ in found:
        if start >= at:
            out += [line[at:start], "_" * (end - start) if fit and end - start < len(REDACTED) else REDACTED]
            at = end
        else:
            at = max(at, end)
    return "".join(out + [line[at:]])


def redact(text: str, fit: bool = False) -> tuple[str, int]:
    """The text with each secret value these patterns find replaced by [redacted] (`fit`: see
    `cut`), and how many there were."""
    if not _ANY.search(text) and not _ANY_I.search(text):
        return text, 0
    lines = text.split("\n")
    count = 0
    for number, line in enumerate(lines):
        found = distinct(spans(line))
        if found:
            lines[number] = cut(line, found, fit)
            count += len(found)
    return "\n".join(lines), count


def redact_all(data: Any) -> tuple[Any, int]:
    """`data` (JSON-like: dicts, lists, strings) with every string redacted, and how many secrets."""
    if isinstance(data, str):
        return redact(data)
    if isinstance(data, dict):
        pairs = [(key, redact_all(value)) for key, value in data.items()]
        return {key: value for key, (value, _) in pairs}, sum(n for _, (_, n) in pairs)
    if isinstance(data, list):
        items = [redact_all(item) for item in data]
        return [item for item, _ in items], sum(n for _, n in items)
    return data, 0


def note(count: int, where: list[str]) -> str:
    """What an answer says when it left secrets out, naming where they are (PATH:LINES, or a page)."""
    said = f"{count} secret value(s) redacted"
    if not where:
        return f"{said}: text the write guard would refuse, pulled or written by hand " \
               "('git mem guard --notes-only FILES' names it)"
    places = ", ".join(where[:3]) + (f" and {len(where) - 3} more" if len(where) > 3 else "")
    first = where[0]
    then = f"'git mem get {first}' shows it, 'git mem forget {first}' removes it" if ":" in first \
        else f"'git mem guard {first}' names the line"
    return f"{said} ({places}): text the write guard would refuse, pulled or written by hand; {then}"
