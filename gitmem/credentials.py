"""Credentials in text: the patterns that find a secret value, and its redaction.

The write guard (notes/guard.py) refuses a note holding one of these, with
detect-secrets' token plugins beside them. Text that reaches an agent without
passing the guard (a line pulled from a teammate, written by hand, or by an
editor) is redacted on its way out by `redact`, with these patterns alone: they
cost microseconds a result, where detect-secrets' import costs a prompt hook
150 ms (search/engine.py, agent/budget.py).
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any

# A value that looks like a credential: no spaces, and a digit or a symbol in it
# ("hunter2", "Tr0ub4dor&3"), so "the password is required" stays ordinary. Group v
# is the value itself: redaction replaces it and keeps the words around it. A value
# that starts with "[" is one redaction already left ([redacted], or what `cut` fits).
# Every run a pattern scans is bounded, or starts only where a run starts: redaction
# reads whole pages (a context, an MCP reply), and a hostile page of 20,000 "sk-" or
# blank lines made an unbounded one quadratic (a review, 2026-11-26: 31 s for a context).
_VALUE = r"['\"]?(?P<v>(?!(?:none|null|true|false|required|optional|expired|changed)\b|\[)" \
         r"(?=[^\s'\"]{0,255}[\d!@#$%^&*+?~])[^\s'\"<>]{6,256}[^\s'\"<>]*+)"
def _source(pattern: str, flags: int = 0) -> tuple[str, int]:
    return pattern, flags


_SP = r"[^\S\n]*"  # spaces on the same line: never across a newline (whole pages are read at once)
_START = r"(?<![A-Za-z0-9_-])"  # a token starts a run of token characters, not inside one
# "password" in other languages, and how they say "is".
_PASSWORD_WORDS = (r"passwort|kennwort|mot de passe|contrase(ñ|n)a|clave de acceso|senha|wachtwoord|has(ł|l)o|"
                   r"heslo|l(ö|o)senord|salasana|passord|adgangskode|jelszó|parolă|şifre|sifre|пароль|"
                   r"密码|密碼|口令|パスワード|비밀번호")
_ENV_NAME = r"[A-Za-z0-9_]*(PASS|PASSWD|PASSWORD|PWD|PW|SECRET|TOKEN|KEY|APIKEY|CREDENTIALS?|AUTH|PASSPHRASE)"
_SOURCES: list[tuple[str, tuple[str, int]]] = [
    ("password assignment", _source(
        r"\b(pass(word|wd|phrase|code)?|pwd|pin|secret|api[_ -]?key|access[_ -]?key|auth[_ -]?token|token)"
        + _SP + r"(:|=|\bis\b|\bwas\b)" + _SP + _VALUE, re.I)),
    ("password in another language", _source(
        r"(?<![A-Za-zÀ-ÿ])(" + _PASSWORD_WORDS + r")(?![A-Za-zÀ-ÿ])" + _SP +
        r"(:|：|=|\b(ist|lautet|war|est|était|es|era|é|is|jest|je|är|on|er)\b|是|为|為|は)" + _SP + _VALUE, re.I)),
    # a card's or a phone's PIN is a secret however short ("My bank PIN is 4821": a newcomer's was
    # stored, 2026-11-27): PIN in capitals, or a pin someone has ("my debit card pin"), or a passcode;
    # not a door's, a gate's or an alarm's (x: a household fact people keep in their notes), not a
    # board's pin, and not a 6-digit PIN code (India's postal code: "Bengaluru, PIN code: 560001")
    ("PIN", _source(r"(?P<x>\b(?:door|gate|alarm|garage|keypad|lock|safe|gpio|header)[^\S\n]+)?"
                    r"(?<![\w-])(?:(?-i:PIN)|(?:my|your|our|his|her|their|card|bank|debit|credit|atm|sim|phone)"
                    r"[^\S\n]+(?:[\w-]+[^\S\n]+){0,2}?pin|passcode)(?P<code>[^\S\n]*code)?(?:[^\S\n]+number)?"
                    + _SP + r"(?::|=|\bis\b|\bwas\b)" + _SP + r"(?(code)(?!\d{6}(?![\w-])))(?P<v>\d{4,12})(?![\w-])",
                    re.I)),
    ("secret in an environment variable", _source(
        r"(?<![A-Z0-9_])[A-Z][A-Z0-9_]{0,63}(KEY|TOKEN|SECRET|PASSWORD|PASSWD)" + _SP + "=" + _SP +
        r"['\"]?(?P<v>(?!\[)[^\s'\"]{8,})")),
    # A .env line: NAME=value at the start of a line, any case, the name ending in a
    # secret's word (DB_PASS, db_password, STRIPE_KEY; not KEY_FILE or PRIMARY_KEY_NAME).
    (".env line with a secret", _source(
        r"^[^\S\n]*(export[^\S\n]+)?(?=[A-Za-z0-9_]*[A-Za-z])" + _ENV_NAME + _SP + "=" + _SP + r"['\"]?"
        r"(?P<v>(?!\$\{|<|\[)[^\s'\"]{4,})", re.I | re.M)),
    # no re.I: case-folding the negated classes made this one pattern take 4 ms to compile
    ("credentials in a URL", _source(
        r"(?<![a-zA-Z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]{0,31}://[^\s/:@]{1,256}:(?P<v>(?!\[)[^\s/@]{3,256})@[^\s/]+")),
    ("OpenAI key", _source(_START + r"sk-(proj-)?[A-Za-z0-9_-]{20,}")),
    ("Anthropic key", _source(_START + r"sk-ant-[A-Za-z0-9_-]{20,}")),
    ("Google API key", _source(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("Google OAuth client secret", _source(_START + r"GOCSPX-[A-Za-z0-9_-]{20,}")),
    ("GitHub fine-grained token", _source(_START + r"github_pat_[A-Za-z0-9_]{22,}")),
    ("Hugging Face token", _source(_START + r"hf_[A-Za-z0-9]{30,}\b")),
    # Token formats detect-secrets also knows (by its names, so a finding is named once), here so
    # that a result is redacted without loading it.
    ("AWS Access Key", _source(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    ("GitHub Token", _source(_START + r"gh[pousr]_[A-Za-z0-9]{36,}\b")),
    ("GitLab Token", _source(_START + r"glpat-[A-Za-z0-9_-]{20,}")),
    ("Slack Token", _source(_START + r"xox[abposr]-[A-Za-z0-9-]{10,}")),
    ("Stripe Access Key", _source(_START + r"[rs]k_live_[A-Za-z0-9]{16,}")),
    ("JSON Web Token", _source(_START + r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    ("AWS secret key", _source(r"\baws_secret_access_key" + _SP + "[:=]" + _SP + r"['\"]?(?P<v>[A-Za-z0-9/+]{40})",
                                  re.I)),
    # ... and said bare, near "secret" or "AWS": 40 characters of base64 mixing cases with a digit or a
    # slash ("AKIA... secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" showed it, a newcomer's team)
    ("AWS secret key", _source(r"(?i:\b(?:secret|aws)\b)[^\n]{0,24}?(?<![A-Za-z0-9/+])"
                               r"(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[0-9/+])"
                               r"(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])")),
    ("private key block", _source(r"-----(BEGIN|END) ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----")),
    ("PuTTY private key", _source(r"^[^\S\n]*(PuTTY-User-Key-File-\d+|Private-Lines|Private-MAC|Private-Hash)"
                                     + _SP + ":", re.I | re.M)),
    # A key body without its BEGIN line: a line that is all base64 at the width PEM and
    # OpenSSH wrap at, mixing cases and digits (a hex digest is one case), or the DER
    # and OpenSSH openings every key body starts with.
    ("private key body", _source(
        r"^[^\S\n]*(?=[A-Za-z0-9+/]{0,76}[a-z])(?=[A-Za-z0-9+/]{0,76}[A-Z])(?=[A-Za-z0-9+/]{0,76}\d)"
        r"[A-Za-z0-9+/]{60,76}={0,2}[^\S\n]*$"
        r"|^[^\S\n]*(MII[CEGJ][A-Za-z0-9+/]{2}IBA|MHcCAQEE|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/]{8,}", re.M)),
]


@functools.cache
def patterns() -> list[tuple[str, re.Pattern[str]]]:
    """(rule, pattern) of every secret, compiled on first use: compiling them takes 8-18 ms, which
    every `git mem` start (--help, the hooks) would pay when this module is imported."""
    return [(rule, re.compile(source, flags)) for rule, (source, flags) in _SOURCES]

# Rules that name no token type; reported after those that do.
GENERIC = {"password assignment", "PIN", "password in another language", "secret in an environment variable",
           ".env line with a secret", "Secret Keyword"}

REDACTED = "[redacted]"
TRAILING = ".,;:)"  # sentence punctuation after a value is not part of it


# Words one of which every pattern above needs (lower case): most text holds none, and a text
# that holds none is passed over at the cost of a substring search each (about 70 us for a
# 1.6 KB chunk, where running the patterns takes 1 ms). A key body has no word: BODY stands for it.
# tests/test_credentials.py checks them against every secret the guard's test sets hold.
NEEDLES = ("pass", "pw", "pin", "secret", "key", "token", "auth", "credential", "://", "sk-", "aiza", "gocspx-",
           "github_pat_", "hf_", "akia", "asia", "abia", "acca", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-",
           "xox", "_live_", "eyj", "-----", "private-", "wort", "contrase", "clave", "senha", "hasło", "haslo",
           "heslo", "senord", "salasana", "adgangskode", "jelsz", "parol", "şifre", "sifre", "пароль", "密码",
           "密碼", "口令", "パスワード", "비밀번호", "mii", "mhccaqee", "b3blbnnzac1rzxktdje")
BODY = re.compile(r"[A-Za-z0-9+/]{60}")


# The letters outside ASCII that a pattern compiled with re.I reads as ASCII ones ("paſſword",
# "PİN"): lower() leaves them as they are (tests/test_credentials.py lists every such letter)
FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def maybe(text: str) -> bool:
    """Whether some pattern could find a secret in the text (False: none can)."""
    low = text.translate(FOLD).lower()
    if any(needle in low for needle in NEEDLES):
        return True
    return any(len(word) >= 60 for word in text.split()) and BODY.search(text) is not None


def spans(line: str) -> list[tuple[int, int, str]]:
    """(start, end, rule) of each secret value these patterns find in the line: the value alone
    where the pattern names it (group v), else the whole match, without trailing punctuation."""
    out: list[tuple[int, int, str]] = []
    for rule, pattern in patterns():
        for match in pattern.finditer(line):
            if "x" in pattern.groupindex and match.group("x"):
                continue  # what the pattern found is said not to be a secret ("the alarm PIN is 4512")
            group = "v" if "v" in pattern.groupindex and match.group("v") else 0
            start, end = match.span(group)
            while end > start + 1 and line[end - 1] in TRAILING:
                end -= 1
            out.append((start, end, rule))
    return out


def distinct(found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """One span for each secret: of overlapping spans the one whose rule names a token type. The
    spans kept never overlap, so each is checked against its neighbours by bisection (a line of
    50 KB of URLs with a password took 0.4 s checked against every span kept)."""
    starts: list[int] = []
    kept: list[tuple[int, int, str]] = []
    for span in sorted(found, key=lambda s: (s[2] in GENERIC, s[0])):
        at = bisect.bisect_left(starts, span[0])
        before = kept[at - 1] if at > 0 else None
        after = kept[at] if at < len(kept) else None
        if (before is None or before[1] <= span[0]) and (after is None or span[1] <= after[0]):
            starts.insert(at, span[0])
            kept.insert(at, span)
    return kept


def cut(line: str, found: list[tuple[int, int, str]], fit: bool = False) -> str:
    """The line with every span (and anything overlapping it) replaced by [redacted]; with `fit`,
    a value shorter than that by "[___]" as long as it (a budgeted context never grows; no pattern
    reads a value that starts with "[")."""
    out, at = [], 0
    for start, end, _ in found:
        if start >= at:
            out += [line[at:start], _hidden(end - start, fit)]
            at = end
        else:
            at = max(at, end)
    return "".join(out + [line[at:]])


SHOWN_HIDDEN = re.compile(r"\[redacted\]|\[_*\]")  # what _hidden writes in a value's place


def shows_hidden(text: str) -> bool:
    """Whether a text holds a value as an answer hides it ([redacted], or a fitted [___]): copied from
    one, it would put that word where the secret was."""
    return SHOWN_HIDDEN.search(text) is not None


def _hidden(width: int, fit: bool) -> str:
    """What stands for a value `width` long: [redacted], or with `fit`, no more than its width."""
    if not fit or width >= len(REDACTED):
        return REDACTED
    return "[" + "_" * max(0, width - 2) + "]" if width >= 2 else "_" * width


KEY_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----")
KEY_END = re.compile(r"-----END ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----")


LINE_BREAK = re.compile(r"(\r\n|[\r\n\x85\u2028\u2029])")  # what may end a line a reader sees


def redact(text: str, fit: bool = False) -> tuple[str, int]:
    """The text with each secret value these patterns find replaced by [redacted] (`fit`: see
    `cut`), and every line of a private key block whole, and how many secrets there were. Lines
    end at any line break a reader sees (a key body split by CR alone is a key body)."""
    if not maybe(text):
        return text, 0
    parts = LINE_BREAK.split(text)  # line, break, line, break, ..., line
    count = 0
    in_key = False
    for number in range(0, len(parts), 2):
        line = parts[number]
        if in_key and not KEY_END.search(line):  # a body line of any width: none of it is shown
            parts[number] = _hidden(len(line), fit)
            continue
        in_key = bool(KEY_BLOCK.search(line)) and not KEY_END.search(line)
        found = distinct(spans(line))
        if found:
            parts[number] = cut(line, found, fit)
            count += len(found)
    return "".join(parts), count


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
    if first.startswith("--at "):  # a past version: shown as it stood; forgetting takes a line of now
        then = f"'git mem get {first}' shows it"
    elif ":" in first:
        then = f"'git mem get {first}' shows it, 'git mem forget {first}' removes it"
    else:
        then = f"'git mem guard {first}' names the line"
    return f"{said} ({places}): text the write guard would refuse, pulled or written by hand; {then}"
