"""Write guardrails: refuse secrets and instruction-like injections.

Memory flows back into an agent's prompt, so a note that says "ignore previous
instructions" or carries an API key must not land silently. Secrets are found
by detect-secrets' token plugins (cloud keys, tokens, private keys, keyword
assignments) plus assignment patterns it misses in prose; injections by
patterns for text that addresses the model instead of recording a fact, set
phrases here and, in notes/requests.py, rules for what such text asks (to
run commands, drop rules, give away secrets; addressed to the model; posing
as the system).

Text is normalised before matching (`normalise`: NFKC, which folds fullwidth
and other compatibility letters to plain ones, and no Unicode format characters,
which hide zero-width joiners inside words), so "ｉｇｎｏｒｅ" and "ig\u200bnore"
read as "ignore". Page names (they become the page's title) and section names
are checked like the text.

Every rule is a necessary-condition regex first: one pass of each over the
whole text finds the few lines worth a closer look, and only those lines go
through the exact per-line checks (detect-secrets costs ~0.3 ms a line, so a
10 MB page scanned line by line would take a minute).
"""

from __future__ import annotations

import bisect
import re
import shlex
import unicodedata
from dataclasses import dataclass
from typing import Any

from .. import credentials
from ..credentials import GENERIC, REDACTED, TRAILING
from ..errors import Refused
from ..paths import shown
from .requests import REQUEST_PATTERNS

# detect-secrets plugins that name a token format. The entropy plugins flag
# ordinary words in prose, and a public IP is not a secret in a notebook.
_SKIP_PLUGINS = {"Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector"}

INJECTION_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("ignore previous instructions", re.compile(
        r"\b(ignore|disregard|forget|override|bypass)\b.{0,30}\b(previous|prior|above|earlier|all|any|your|the "
        r"system|preceding|original)\b.{0,20}\b(instructions?|prompts?|guidelines|directives|programming)\b"
        r"|\b(ignore|disregard|forget|override|bypass) (all|any|your)( (the|of the|previous|prior|safety))* rules\b",
        re.I)),
    ("forget what you were told", re.compile(
        r"\b(forget|ignore|disregard)\b.{0,20}\b(everything|all|anything) (you('ve| have)? (were|been|was) "
        r"(told|taught|given)|you know|above)", re.I)),
    ("you must always/never", re.compile(
        r"\byou (must|shall) (always|never|now|only|not)\b|\byou (will|should) (now|from now)\b", re.I)),
    ("new instructions", re.compile(
        r"\b(new|updated|real|actual|revised|secret|hidden) (system )?(instructions?|prompt|directives?|orders)\s*:",
        re.I)),
    ("system prompt", re.compile(
        r"\b(reveal|print|show|repeat|leak|output|disclose|dump)\b.{0,30}\b(system prompt|hidden instructions|"
        r"initial instructions|developer message)|\byour (system prompt|instructions) (is|are|says?)\b", re.I)),
    ("role override", re.compile(
        r"\b((?<!where )you are now (an?|the|in|called|named|free|unrestricted|jailbroken|dan)"
        r"|from now on,? you (are|will|must|should)|act as if you (have|had) no"
        r"|pretend (that )?you (are|have)|you are no longer (an?|the) (ai|assistant|model)"
        r"|enter (developer|god|jailbreak|dan) mode)\b", re.I)),
    ("chat-format marker", re.compile(
        r"<\|?(im_start|im_end|system|endoftext)\|?>|\[/?INST\]|<</?SYS>>|^\s*#{2,3}\s*(instruction|system)\s*:?\s*$"
        r"|</?\s*(system|system-reminder|system_prompt|assistant|human|instructions|function_calls|antml:[a-z_]+)"
        r"(\s[^>]*)?>",
        re.I | re.M)),
    # A turn of a chat transcript written into a note: the model would read it as the
    # user's (or its own) words.
    ("fake chat turn", re.compile(r"^\W{0,3}(Human|Assistant)\s*:", re.M)),
    ("instructions in German", re.compile(
        r"\b(ignorier|vergiss|missachte|übergeh)\w*\b.{0,40}\b(anweisung|instruktion|vorgabe|regel|befehl|"
        r"systemprompt|system-prompt|anordnung)\w*"
        r"|\b(du bist (jetzt|ab sofort|nun)|ab (jetzt|sofort),? (bist|wirst|musst|sollst) du|neue anweisungen\s*:)"
        r"|\b(zeig|gib|verrat|nenn)\w*\b.{0,30}\b(system-?prompt|systemanweisung)", re.I)),
    ("instructions in French", re.compile(
        r"\b(ignore|oublie|néglige|neglige|outrepasse)\w*\s+(toute?s?\s+)?(les|tes|vos|ces|des|la|le|l')\s*.{0,30}"
        r"\b(instructions?|consignes?|directives?|règles|regles|invite système|prompt système)\b"
        r"|\b(tu es|vous êtes|vous etes) (maintenant|désormais|desormais)\b|\bà partir de maintenant,? (tu|vous)\b"
        r"|\bnouvelles? (instructions?|consignes?)\s*:|\b(révèle|revele|affiche|montre|donne)\w*\b.{0,30}"
        r"\b(prompt|invite) (système|systeme)", re.I)),
    ("instructions in Chinese", re.compile(
        r"(忽略|无视|無視|忘记|忘記|不要理会|跳过).{0,12}(指令|指示|提示|规则|規則|说明|說明|设定|設定|要求)"
        r"|你现在是|你現在是|从现在开始|從現在開始|新的?指令\s*[:：]|(显示|顯示|输出|輸出|透露|泄露|打印|告诉我|告訴我).{0,10}"
        r"(系统提示|系統提示|系统指令|系統指令)")),
    ("instructions in Spanish", re.compile(
        r"\b(ignora|olvida|omite)\w*\b.{0,40}\b(instrucciones|indicaciones|reglas|directrices)\b"
        r"|\b(ahora eres|a partir de ahora,? (eres|serás|debes))\b|\bnuevas instrucciones\s*:", re.I)),
    # Markdown that a renderer fetches on its own: an image whose URL carries a query
    # (or a placeholder) sends whatever it holds to that server.
    ("image that sends data", re.compile(
        r"!\[[^\]\n]*\]\(\s*<?(https?:)?//[^)\s]*(\?[^)\s]*=|[{}$])"
        r"|<img\b[^>]*\bsrc\s*=\s*['\"]?(https?:)?//[^'\" >]*\?[^'\" >]*=", re.I)),
    ("instruction to the assistant", re.compile(
        r"\b(attention|note to|message to|instructions? (for|to)) (the |all )?(ai|assistant|agent|model|llm|chatbot)s?"
        r"\b.{0,3}[:,-]|\b(ai|assistant|agent|model|llm)s?,? (must|shall|should) (now )?(ignore|disregard|reveal|obey|"
        r"not tell)\b|\bdo not (tell|inform|alert|mention (this|it) to) the user\b", re.I)),
    # Shell that fetches and runs code, or command substitution: an agent with a shell
    # tool may run what a note tells it to.
    ("tool-call smuggling", re.compile(
        r"\b(curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n]{0,300}\|\s*(sudo\s+)?"
        r"(-\S+\s+)*((ba|z|da|k|c|tc|fi)?sh|python[0-9.]*|perl|ruby|node|php|iex|invoke-expression|source)\b"
        r"|\b(ba|z)?sh\s+(-c\s+)?['\"]?(<\(|\$\()\s*(curl|wget)\b"
        r"|\$\(\s*[A-Za-z_][\w.-]*(\s|\))"
        r"|\brm -rf (/|~|\$HOME|\*)"
        r"|\b(send|post|upload|exfiltrate|forward|email)\b.{0,40}\b(api keys?|passwords?|credentials|secrets|"
        r"ssh keys?|tokens|the (system )?prompt|conversation history)\b.{0,20}\bto\b.{0,10}(https?://|\S+@)", re.I)),
]


INJECTION_PATTERNS += REQUEST_PATTERNS  # by what the text asks, not by set phrases (notes/requests.py)


@dataclass(frozen=True)
class Finding:
    kind: str  # "secret" or "injection"
    rule: str
    line: int
    excerpt: str
    last: int = 0  # the last line an injection said over lines of a paragraph spans (0: `line` alone)

    def describe(self, where: str = "") -> str:
        place = f"{where}:{self.line}" if where else f"line {self.line}"
        return f"{self.kind} ({self.rule}) at {place}: {self.excerpt}"


def scan(text: str) -> list[Finding]:
    """Every secret and injection in the (normalised) text, in line order (lines split at \\n)."""
    text = normalise(text)
    lines = text.split("\n")
    candidates = _candidate_lines(text)
    if not candidates:
        return _split(text, set())
    flagged = _detect_secrets({n: lines[n - 1] for n in candidates})
    findings: list[Finding] = []
    for number in candidates:
        line = lines[number - 1]
        rules = [rule for _, _, rule in credentials.spans(line)]  # as redaction finds them (a door's PIN is none)
        rules.extend(flagged.get(number, []))
        rules = sorted(dict.fromkeys(rules), key=lambda r: r in GENERIC)  # a named token type says more
        generic = [r for r in rules if r in GENERIC]
        rules = [r for r in rules if r not in GENERIC] + generic[:1]  # one generic rule says all they can
        findings.extend(Finding("secret", rule, number, _redact(line)) for rule in rules)
        findings.extend(Finding("injection", rule, number, _clip(line))
                        for rule, pattern in INJECTION_PATTERNS if pattern.search(line))
    return sorted(findings + _split(text, {(f.rule, f.line) for f in findings}), key=lambda f: f.line)


# a line break inside a paragraph, with the next line's indent or list marker: what a model reads as a space
BREAK = re.compile(r"\n(?![ \t]*\n)[ \t]*(?:[-*+][ \t]+|\d{1,9}[.)][ \t]+|>[ \t]*)?")


def _split(text: str, found: set[tuple[str, int]]) -> list[Finding]:
    """Injections said over two lines or more of a paragraph ("ignore all\nprevious instructions", an
    attack run's): the rules read the text with each break as one space, and a match that spans a
    break (the others are the lines' own) names the line it starts on."""
    breaks: list[int] = []  # where each break's space is in the flat text
    lines: list[int] = []  # the line each break ends (1-based)
    pieces, at, size = [], 0, 0
    for m in BREAK.finditer(text):
        pieces.append(text[at:m.start()])
        size += m.start() - at
        breaks.append(size)
        size += 1
        lines.append((lines[-1] if lines else 0) + text.count("\n", at, m.start()) + 1)
        at = m.end()
    if not breaks:
        return []
    pieces.append(text[at:])
    flat = " ".join(pieces)
    out = []
    for rule, pattern in INJECTION_PATTERNS:
        for match in pattern.finditer(flat):
            k = bisect.bisect_left(breaks, match.start())  # the first break at or after the match's start
            if k == len(breaks) or breaks[k] >= match.end():
                continue
            line = lines[k]  # the match starts on the line this break ends
            last = lines[bisect.bisect_left(breaks, match.end()) - 1] + 1  # ... and ends after the last break in it
            if (rule, line) not in found:
                out.append(Finding("injection", rule, line, _clip(" ".join(match.group().split())), last))
                found.add((rule, line))
    return out


def injections(text: str) -> list[Finding]:
    """Every line that reads like an instruction to the model (the injection rules, over a line
    or a paragraph's lines), without the secret scan: for text already in the notebook that an
    agent is given (the context)."""
    lines = normalise(text).split("\n")
    found = [Finding("injection", rule, number, _clip(line)) for number, line in enumerate(lines, 1)
             for rule, pattern in INJECTION_PATTERNS if pattern.search(line)]
    split = _split("\n".join(lines), {(f.rule, f.line) for f in found})
    # an order said over several lines is left out whole: each line it spans is a finding of its own
    spans = [Finding(f.kind, f.rule, n, f.excerpt) for f in split for n in range(f.line, max(f.line, f.last) + 1)]
    return sorted(found + spans, key=lambda f: f.line)


def instructs(text: str) -> str | None:
    """The first injection rule a text meets (the guard's patterns, without its secret scan): for a
    text already in the notebook that reaches a model with no tool call around it (the prompt hook)."""
    plain = normalise(text)
    return next((rule for rule, pattern in INJECTION_PATTERNS if pattern.search(plain)), None)


# Unicode's format characters (category Cf: zero-width space and joiners, bidi
# controls, soft hyphen, tags...), listed so that no scan of the whole code space
# runs at import; tests/test_guard.py checks the list against unicodedata.
FORMAT_CHARS = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]")


def normalise(text: str) -> str:
    """The text as the rules read it: NFKC (fullwidth and other compatibility forms folded
    to plain letters) and no format characters (zero-width ones hide words from a regex
    but not from a model). Lines stay where they were; ASCII is returned as it is."""
    if text.isascii():
        return text
    folded = unicodedata.normalize("NFKC", FORMAT_CHARS.sub("", text))
    if folded.count("\n") == text.count("\n"):
        return folded
    return "\n".join(unicodedata.normalize("NFKC", FORMAT_CHARS.sub("", line)) for line in text.split("\n"))


def check(text: str, allow: bool = False, where: str = "", section: str | None = None) -> None:
    """Refused (naming what was found and where) unless `allow`. `where` is the page the
    text goes to: its name becomes the page's title, so it is checked too, and so is the
    section the text goes under. An agent's `allow` counts for nothing: `--no-guard` is a person's
    word (an attack run's agent, CLAUDECODE=1 at its shell, passed it)."""
    from .trailers import agent_writes

    if allow and not agent_writes():
        return
    findings = [(f, "") for f in scan(text)]
    names = [("the page name", f"{_name_words(where)}\n{where}" if where else ""),
             # and as the heading it becomes: "Instruction:" is written "## Instruction:" (an attack run's)
             ("the section name", f"{said}\n## {said}" if (said := " ".join((section or "").split())) else "")]
    for label, name in names:
        found = scan(name) if name else []
        findings += [(f, label) for f in found if f.rule not in {g.rule for g, _ in findings}]
    if findings:
        finding, label = findings[0]
        first = f"{finding.kind} ({finding.rule}) in {label}: {finding.excerpt}" if label else finding.describe()
        others = list(dict.fromkeys(f.rule for f, _ in findings[1:]))
        more = f" and {len(findings) - 1} more ({', '.join(others[:3])}{', …' if len(others) > 3 else ''})" \
            if len(findings) > 1 else ""
        target = f" in {where}" if where else ""
        raise Refused(f"refused to store it{target}: {first}{more}",
                      "remove it; a person who is sure can pass --no-guard")


def added(content: str, before: str | None) -> str:
    """The lines of a replacing text the page did not hold: what the guard checks of a replace (a
    newcomer's team could not save a conflict's resolution in the browser for a pulled line of the page
    they never touched; the line was named when it was pulled)."""
    had = set((before or "").split("\n"))
    return "\n".join(line for line in content.split("\n") if line not in had)


def _name_words(path: str) -> str:
    """A page path read as words, the way its title is made from it (knowledge/new-rules.md: knowledge new rules)."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return re.sub(r"[-_/]+", " ", stem).strip()


@dataclass
class FileScan:
    """What `git mem guard FILES` found."""

    files: int
    findings: list[dict[str, object]]

    def refusal(self, committing: bool = True) -> Refused | None:
        """The error to exit with, if anything was found; `committing`: a commit's hook runs it."""
        if not self.findings:
            return None
        files = len({f["path"] for f in self.findings})
        found = f"{len(self.findings)} finding(s) in {files} file(s)"
        if committing:
            return Refused(f"{found}; nothing was committed", "remove them, or commit with --no-verify if you are sure")
        first = self.findings[0]  # run by hand, on pages committed already (a newcomer's check)
        # the name came with a pull: escaped and quoted (a newline in it printed a forged line, a git user's run)
        where = shown(shlex.quote(f"{first['path']}:{first['line']}"))
        return Refused(found, f"remove them: git mem forget {where} takes a line out of the notebook and its index")


def check_files(paths: list[str]) -> FileScan:
    """The pre-commit guard over these files."""
    return FileScan(len(paths), [{"path": p, **vars(f)} for p, f in scan_files(paths)])


def scan_files(paths: list[str]) -> list[tuple[str, Finding]]:
    """Findings in files (what the pre-commit hook checks); unreadable and binary files are skipped."""
    found: list[tuple[str, Finding]] = []
    for path in paths:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if b"\0" in data[:8192]:
            continue
        found.extend((path, f) for f in scan(data.decode("utf-8", errors="replace")))
    return found


def redact(text: str) -> tuple[str, list[Finding]]:
    """The text with each secret value replaced by [redacted], and one finding per secret.

    For text that is kept as a record (session transcripts) rather than refused: the
    words around a secret stay ("my api key is [redacted], keep it"); a line that still
    looks secret after its secrets are scrubbed is replaced whole."""
    numbers = sorted({f.line for f in scan(text) if f.kind == "secret"})
    if not numbers:
        return text, []
    lines = text.split("\n")
    found: list[Finding] = []
    for number in numbers:
        line = lines[number - 1]
        spans = _secret_spans(line)
        if not spans:  # hidden by format characters or fullwidth letters: redact the line as read
            line = normalise(line)
            spans = _secret_spans(line)
        found.extend(Finding("secret", rule, number, _redact(line)) for _, _, rule in spans)
        clean = credentials.cut(line, spans)
        if not spans or _secret_rules(clean):
            found += [] if spans else [Finding("secret", "secret", number, _redact(line))]
            clean = f"{REDACTED} (a line holding a secret)"
        lines[number - 1] = clean
    return "\n".join(lines), found




def _secret_spans(line: str) -> list[tuple[int, int, str]]:
    """(start, end, rule) of each distinct secret value in the line: a value that two rules
    find (an OpenAI key that is also "api key is ...") is one secret, named by the rule
    that names a token type."""
    spans = credentials.spans(line)
    for rule, value in _detect_secrets({1: line}, values=True).get(1, []):
        # detect-secrets may report only part of a token (a prefix), so the whole word goes.
        for word in re.finditer(r"\S+", line) if value else ():
            if value in word.group(0):
                end = word.end()
                while end > word.start() + 1 and line[end - 1] in TRAILING:
                    end -= 1
                spans.append((word.start(), end, rule))
    return credentials.distinct(spans)


def _secret_rules(line: str) -> list[str]:
    rules = [rule for _, _, rule in credentials.spans(line)]
    return rules + _detect_secrets({1: line}).get(1, [])


# -- the prefilter ---------------------------------------------------------------
_PREFILTER: list[re.Pattern[str]] | None = None
_NEWLINE = re.compile("\n")
# Every keyword detect-secrets' KeywordDetector looks for contains one of these.
_KEYWORDS = re.compile(r"key|pass|pwd|secret|contrase", re.I)


def _prefilter() -> list[re.Pattern[str]]:
    """Patterns that every finding's line must match (multiline, over the whole text)."""
    global _PREFILTER
    if _PREFILTER is None:
        pats = [p for _, p in credentials.patterns() + INJECTION_PATTERNS]
        pats.append(_KEYWORDS)
        pats.extend(regex for plugin in _plugin_classes() for regex in getattr(plugin, "denylist", ()))
        _PREFILTER = [re.compile(p.pattern, p.flags | re.M) for p in pats]
    return _PREFILTER


def _candidate_lines(text: str) -> list[int]:
    """1-based numbers of lines that some rule could match.

    A per-line match is also a match in the whole text (anchors are multiline,
    and the line's neighbours are a newline, which lookarounds in these rules
    treat like the edge of the line), so this finds a superset of the lines."""
    starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
    found: set[int] = set()
    for pattern in _prefilter():
        for match in pattern.finditer(text):
            first = bisect.bisect_right(starts, match.start())
            last = bisect.bisect_right(starts, max(match.start(), match.end() - 1))
            found.update(range(first, last + 1))
    return sorted(found)


# -- detect-secrets ---------------------------------------------------------------
_CLASSES: list[type] | None = None


def _plugin_classes() -> list[type]:
    global _CLASSES
    if _CLASSES is None:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

        found: list[type] = list(get_mapping_from_secret_type_to_class().values())
        classes = {c.__name__: c for c in found}
        _CLASSES = [c for name, c in sorted(classes.items()) if name not in _SKIP_PLUGINS]
    return _CLASSES


def _detect_secrets(lines: dict[int, str], values: bool = False) -> dict[int, list[Any]]:
    """detect-secrets' findings for each line, by number: the secret types, or with
    `values` (type, secret) pairs."""
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import transient_settings

    plugins = [{"name": c.__name__} for c in _plugin_classes()]
    found: dict[int, list[Any]] = {}
    with transient_settings({"plugins_used": plugins}):  # entered once: it is the costly part
        for number, line in lines.items():
            types = [(secret.type, secret.secret_value or "") if values else secret.type for secret in scan_line(line)]
            if types:
                found[number] = types
    return found


def _redact(line: str) -> str:
    """Enough of the line to find it, none of the secret: every word that could
    hold one (six characters or more, or any with a digit or a symbol) is cut
    to its first three characters."""
    def cut(match: re.Match[str]) -> str:
        word = match.group(0)
        risky = len(word) >= 6 or any(not ch.isalpha() for ch in word)
        return word[:3] + "…" if risky and len(word) > 3 else word

    return re.sub(r"[^\s:=,;'\"()\[\]{}<>]+", cut, _clip(line))


def _clip(line: str, width: int = 80) -> str:
    flat = " ".join(line.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"
