"""Write guardrails: refuse secrets and instruction-like injections.

Memory flows back into an agent's prompt, so a note that says "ignore previous
instructions" or carries an API key must not land silently. Secrets are found
by detect-secrets' token plugins (cloud keys, tokens, private keys, keyword
assignments) plus assignment patterns it misses in prose; injections by
patterns for text that addresses the model instead of recording a fact.

Every rule is a necessary-condition regex first: one pass of each over the
whole text finds the few lines worth a closer look, and only those lines go
through the exact per-line checks (detect-secrets costs ~0.3 ms a line, so a
10 MB page scanned line by line would take a minute).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from ..errors import Refused

# detect-secrets plugins that name a token format. The entropy plugins flag
# ordinary words in prose, and a public IP is not a secret in a notebook.
_SKIP_PLUGINS = {"Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector"}

# A value that looks like a credential: no spaces, and a digit or a symbol in it
# ("hunter2", "Tr0ub4dor&3"), so "the password is required" stays ordinary.
_VALUE = r"['\"]?(?!(?:none|null|true|false|required|optional|expired|changed)\b)(?=[^\s'\"]*[\d!@#$%^&*+?~])" \
         r"[^\s'\"<>]{6,}"
SECRET_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("password assignment", re.compile(
        r"\b(pass(word|wd|phrase|code)?|pwd|pin|secret|api[_ -]?key|access[_ -]?key|auth[_ -]?token|token)"
        r"\s*(:|=|\bis\b|\bwas\b)\s*" + _VALUE, re.I)),
    ("secret in an environment variable", re.compile(
        r"\b[A-Z][A-Z0-9_]*(KEY|TOKEN|SECRET|PASSWORD|PASSWD)\s*=\s*['\"]?[^\s'\"]{8,}")),
    ("credentials in a URL", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]{3,}@[^\s/]+", re.I)),
    ("OpenAI key", re.compile(r"\bsk-(proj-)?[A-Za-z0-9_-]{20,}")),
    ("Anthropic key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    ("AWS secret key", re.compile(r"\baws_secret_access_key\s*[:=]\s*['\"]?[A-Za-z0-9/+]{40}", re.I)),
    ("private key block", re.compile(r"-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----")),
]

# Rules that name no token type; reported after those that do.
GENERIC = {"password assignment", "secret in an environment variable", "Secret Keyword"}

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
        r"<\|?(im_start|im_end|system|endoftext)\|?>|\[/?INST\]|<</?SYS>>|^\s*#{2,3}\s*(instruction|system)\s*:?\s*$",
        re.I | re.M)),
    ("instruction to the assistant", re.compile(
        r"\b(attention|note to|message to|instructions? (for|to)) (the |all )?(ai|assistant|agent|model|llm|chatbot)s?"
        r"\b.{0,3}[:,-]|\b(ai|assistant|agent|model|llm)s?,? (must|shall|should) (now )?(ignore|disregard|reveal|obey|"
        r"not tell)\b|\bdo not (tell|inform|alert|mention (this|it) to) the user\b", re.I)),
    ("tool-call smuggling", re.compile(
        r"\b(curl|wget) [^ ]+ *\| *(sudo )?(ba|z)?sh\b|\brm -rf (/|~|\$HOME|\*)"
        r"|\b(send|post|upload|exfiltrate|forward|email)\b.{0,40}\b(api keys?|passwords?|credentials|secrets|"
        r"ssh keys?|tokens|the (system )?prompt|conversation history)\b.{0,20}\bto\b.{0,10}(https?://|\S+@)", re.I)),
]


@dataclass(frozen=True)
class Finding:
    kind: str  # "secret" or "injection"
    rule: str
    line: int
    excerpt: str

    def describe(self, where: str = "") -> str:
        place = f"{where}:{self.line}" if where else f"line {self.line}"
        return f"{self.kind} ({self.rule}) at {place}: {self.excerpt}"


def scan(text: str) -> list[Finding]:
    """Every secret and injection in the text, in line order (lines split at \\n)."""
    lines = text.split("\n")
    candidates = _candidate_lines(text)
    if not candidates:
        return []
    flagged = _detect_secrets({n: lines[n - 1] for n in candidates})
    findings: list[Finding] = []
    for number in candidates:
        line = lines[number - 1]
        rules = [rule for rule, pattern in SECRET_PATTERNS if pattern.search(line)]
        rules.extend(flagged.get(number, []))
        rules = sorted(dict.fromkeys(rules), key=lambda r: r in GENERIC)  # a named token type says more
        findings.extend(Finding("secret", rule, number, _redact(line)) for rule in rules)
        findings.extend(Finding("injection", rule, number, _clip(line))
                        for rule, pattern in INJECTION_PATTERNS if pattern.search(line))
    return findings


def check(text: str, allow: bool = False, where: str = "") -> None:
    """Refused (naming what was found and where) unless `allow`."""
    if allow:
        return
    findings = scan(text)
    if findings:
        first = findings[0].describe()
        others = list(dict.fromkeys(f.rule for f in findings[1:]))
        more = f" and {len(findings) - 1} more ({', '.join(others[:3])}{', …' if len(others) > 3 else ''})" \
            if len(findings) > 1 else ""
        target = f" in {where}" if where else ""
        raise Refused(f"refused to store it{target}: {first}{more}",
                      "remove it; a person who is sure can pass --no-guard")


@dataclass
class FileScan:
    """What `git mem guard FILES` found."""

    files: int
    findings: list[dict[str, object]]

    def refusal(self) -> Refused | None:
        """The error to exit with, if anything was found."""
        if not self.findings:
            return None
        files = len({f["path"] for f in self.findings})
        return Refused(f"{len(self.findings)} finding(s) in {files} file(s); nothing was committed",
                       "remove them, or commit with --no-verify if you are sure")


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
    """The text with each secret replaced by [redacted], and the secrets found.

    For text that is kept as a record (session transcripts) rather than refused:
    a line that still looks secret after its secrets are scrubbed is replaced whole."""
    found = [f for f in scan(text) if f.kind == "secret"]
    if not found:
        return text, []
    lines = text.split("\n")
    for number in sorted({f.line for f in found}):
        clean = _scrub(lines[number - 1])
        lines[number - 1] = clean if not _secret_rules(clean) else f"{REDACTED} (a line holding a secret)"
    return "\n".join(lines), found


REDACTED = "[redacted]"


def _scrub(line: str) -> str:
    for _, pattern in SECRET_PATTERNS:
        line = pattern.sub(REDACTED, line)
    # detect-secrets may report only part of a token (a prefix), so the whole word goes.
    values = [v for v in _detect_secrets({1: line}, values=True).get(1, []) if v]
    return re.sub(r"\S+", lambda m: REDACTED if any(v in m.group(0) for v in values) else m.group(0), line)


def _secret_rules(line: str) -> list[str]:
    rules = [rule for rule, pattern in SECRET_PATTERNS if pattern.search(line)]
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
        pats = [p for _, p in SECRET_PATTERNS + INJECTION_PATTERNS]
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

        classes: dict[str, type] = {c.__name__: c for c in get_mapping_from_secret_type_to_class().values()}
        _CLASSES = [c for name, c in sorted(classes.items()) if name not in _SKIP_PLUGINS]
    return _CLASSES


def _detect_secrets(lines: dict[int, str], values: bool = False) -> dict[int, list[str]]:
    """detect-secrets' findings (secret types, or with `values` the secrets) for each line, by number."""
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import transient_settings

    plugins = [{"name": c.__name__} for c in _plugin_classes()]
    found: dict[int, list[str]] = {}
    with transient_settings({"plugins_used": plugins}):  # entered once: it is the costly part
        for number, line in lines.items():
            types = [(secret.secret_value or "") if values else secret.type for secret in scan_line(line)]
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
