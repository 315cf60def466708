"""Write guardrails: refuse secrets and instruction-like injections.

Memory flows back into an agent's prompt, so a note that says "ignore previous
instructions" or carries an API key must not land silently. Secrets are found
by detect-secrets' token plugins (cloud keys, tokens, private keys, keyword
assignments) plus a few assignment patterns it misses in prose; injections by
patterns for text that addresses the model instead of recording a fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import Refused

# detect-secrets plugins that name a token format. The entropy plugins flag
# ordinary words in prose, and a public IP is not a secret in a notebook.
_SKIP_PLUGINS = {"Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector"}

SECRET_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("password assignment", re.compile(
        r"\b(pass(word|wd|phrase)?|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|token)\s*[:=]\s*"
        r"['\"]?(?!none\b|null\b|true\b|false\b|<)[^\s'\"]{6,}", re.I)),
    ("secret in an environment variable", re.compile(
        r"\b[A-Z][A-Z0-9_]*(KEY|TOKEN|SECRET|PASSWORD)\s*=\s*['\"]?[^\s'\"]{8,}")),
    ("OpenAI key", re.compile(r"\bsk-(proj-)?[A-Za-z0-9_-]{20,}")),
    ("Anthropic key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
]

INJECTION_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("ignore previous instructions", re.compile(
        r"\b(ignore|disregard|forget|override)\b.{0,30}\b(previous|prior|above|earlier|all|your|the system)\b"
        r".{0,20}\b(instructions?|prompts?|rules|directions|guidelines)\b", re.I)),
    ("you must always/never", re.compile(r"\byou (must|should|shall|will) (always|never|now|only)\b", re.I)),
    ("new instructions", re.compile(r"\b(new|updated|real|actual) (system )?(instructions?|prompt)\s*:", re.I)),
    ("system prompt", re.compile(r"\b(system prompt|developer message)\b.{0,40}\b(is|are|says?|reveal|print|show)\b"
                                 r"|\b(reveal|print|show|repeat|leak)\b.{0,30}\bsystem prompt\b", re.I)),
    ("role override", re.compile(r"\b(you are now|from now on,? you are|act as if you have no|pretend (that )?you)\b",
                                 re.I)),
    ("chat-format marker", re.compile(r"<\|?(im_start|system|endoftext)\|?>|^\s*(system|assistant)\s*:\s*\S", re.I | re.M)),
    ("tool-call smuggling", re.compile(r"\b(run|execute|call)\b.{0,20}\b(rm -rf|curl [^ ]+ *\| *(ba)?sh|sudo )", re.I)),
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
    """Every secret and injection in the text, in line order."""
    findings: list[Finding] = []
    for number, line in enumerate(text.splitlines() or [text], start=1):
        findings.extend(Finding("secret", rule, number, _redact(line)) for rule in _secrets(line))
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
        more = f" and {len(findings) - 1} more" if len(findings) > 1 else ""
        target = f" in {where}" if where else ""
        raise Refused(f"refused to store it{target}: {first}{more}",
                      "remove it; a person who is sure can pass --no-guard")


def scan_files(paths: list[str]) -> list[tuple[str, Finding]]:
    """Findings in files (what the pre-commit hook checks); unreadable files are skipped."""
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
    lines = text.split("\n")
    found: list[Finding] = []
    for i, line in enumerate(lines):
        rules = _secrets(line)
        if not rules:
            continue
        found.extend(Finding("secret", rule, i + 1, _redact(line)) for rule in rules)
        clean = _scrub(line)
        lines[i] = clean if not _secrets(clean) else f"{REDACTED} (a line holding a secret)"
    return "\n".join(lines), found


REDACTED = "[redacted]"


def _scrub(line: str) -> str:
    for _, pattern in SECRET_PATTERNS:
        line = pattern.sub(REDACTED, line)
    # detect-secrets may report only part of a token (a prefix), so the whole word goes.
    values = [v for v in _detect_secrets(line, values=True) if v]
    return re.sub(r"\S+", lambda m: REDACTED if any(v in m.group(0) for v in values) else m.group(0), line)


def _secrets(line: str) -> list[str]:
    rules = [rule for rule, pattern in SECRET_PATTERNS if pattern.search(line)]
    rules.extend(_detect_secrets(line))
    return list(dict.fromkeys(rules))


_PLUGINS: list[dict[str, str]] | None = None


def _detect_secrets(line: str, values: bool = False) -> list[str]:
    """The kinds of secret detect-secrets finds in the line (or the secret values)."""
    global _PLUGINS
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import transient_settings

    if _PLUGINS is None:
        names = {c.__name__ for c in get_mapping_from_secret_type_to_class().values()}
        _PLUGINS = [{"name": n} for n in sorted(names - _SKIP_PLUGINS)]
    with transient_settings({"plugins_used": _PLUGINS}):
        return [(found.secret_value or "") if values else found.type for found in scan_line(line)]


def _redact(line: str) -> str:
    """Enough of the line to find it, none of the secret."""
    clipped = _clip(line)
    return re.sub(r"[A-Za-z0-9_+/=-]{6,}", lambda m: m.group(0)[:3] + "…", clipped)


def _clip(line: str, width: int = 80) -> str:
    flat = " ".join(line.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"
