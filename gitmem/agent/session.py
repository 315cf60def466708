"""Chat transcripts saved as session files: parse, save, remove.

A session file is `sessions/YYYY-MM-DD-HHMM-XXXXXXXX.md` (flat layout:
`memory/...`): the minute the chat started, then the first 8 hex digits of
the SHA-1 of the chat id. The chat id names exactly one file, so saving a chat
again rewrites its file (wherever its minute falls), `session rm CHAT_ID`
finds it without scanning, and two chats in the same minute never collide.
The file holds a YAML header (chat, agent, time, messages) and then one
`role: text` paragraph per user or assistant message; continuation lines of a
message are indented by two spaces, so a line inside a message can never pass
for the start of another.

Input formats: plain `role: text` lines; JSONL of {role, content} messages;
a Claude Code transcript (JSONL whose lines hold {type, message: {role,
content}}; text blocks are kept, tool calls, tool results and thinking are
skipped). Secrets in a transcript are redacted, not refused: a session is a
record, and refusing it would lose the whole conversation.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import EmptyText, GitmemError, UsageError
from ..notebook import Notebook
from ..notes import guard
from ..notes.change import committable, write_lock
from ..notes.removal import delete
from ..notes.written import commit_page
from ..text import TooDeep, clean_text, loads

FORMATS = ("auto", "text", "jsonl")
KEPT_ROLES = ("user", "assistant")
ROLE_LINE = re.compile(r"^(user|assistant|human|system|tool)[ \t]*:[ \t]?(.*)$", re.IGNORECASE)
ALIASES = {"human": "user"}
INDENT = "  "
# Claude Code wraps slash-command bookkeeping and harness reminders in these tags.
NOISE = re.compile(r"<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|"
                   r"system-reminder)>.*?</\1>", re.DOTALL)
FOLDERS = ("sessions", "memory")
MAX_TRANSCRIPT = 256 * 1024 * 1024  # bytes read from a transcript file; a longer one is refused


class BadTranscript(GitmemError):
    pass


class SessionNotFound(GitmemError):
    pass


@dataclass(frozen=True)
class Message:
    role: str
    text: str


@dataclass
class Transcript:
    messages: list[Message]
    skipped: int = 0  # entries dropped: tool calls and results, system lines, empty text
    chat: str | None = None
    agent: str | None = None
    time: datetime | None = None


@dataclass
class Saved:
    action: str  # "saved", "updated", "unchanged" or "private"
    path: str | None
    chat: str | None
    agent: str | None
    time: str | None
    messages: int
    skipped: int
    redacted: int
    commit: str | None
    hint: str | None = None
    notes: list[str] = field(default_factory=list)
    consolidation: Any = None  # session save --consolidate: the run (agent/consolidate.py)


@dataclass
class Removed:
    action: str
    chat: str
    path: str
    commit: str | None
    message: str


# -- parsing -------------------------------------------------------------

def parse(raw: str, fmt: str = "auto") -> Transcript:
    """The user and assistant messages of a transcript in any supported format."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown transcript format {fmt!r}", f"use one of {', '.join(FORMATS)}")
    raw = raw.replace("\r\n", "\n").lstrip("\ufeff")
    if fmt == "auto":
        first = next((ln.strip() for ln in raw.split("\n") if ln.strip()), "")
        fmt = "jsonl" if first.startswith("{") and _json_object(first) is not None else "text"
    transcript = parse_jsonl(raw) if fmt == "jsonl" else parse_text(raw)
    if not transcript.messages:
        raise BadTranscript("the transcript has no user or assistant messages",
                            "send 'user: ...' / 'assistant: ...' lines, JSONL of {role, content}, "
                            "or a Claude Code transcript (.jsonl)")
    return transcript


def parse_text(raw: str) -> Transcript:
    """`role: text` lines; lines that follow belong to the same message (a
    two-space indent, as session files write it, is taken off)."""
    messages: list[tuple[str, list[str]]] = []
    for line in raw.split("\n"):
        match = ROLE_LINE.match(line)
        if match:
            role = match.group(1).lower()
            messages.append((ALIASES.get(role, role), [match.group(2)]))
        elif messages:
            messages[-1][1].append(line[len(INDENT):] if line.startswith(INDENT) else line)
    return _keep([(role, "\n".join(lines)) for role, lines in messages])


def parse_jsonl(raw: str) -> Transcript:
    """One JSON object a line: {role, content} messages or Claude Code entries."""
    entries: list[tuple[str, str]] = []
    transcript = Transcript([])
    skipped = 0
    for number, line in enumerate(raw.split("\n"), start=1):
        if not line.strip():
            continue
        entry = _json_object(line, f"line {number} of the transcript")
        if entry is None:
            raise BadTranscript(f"line {number} of the transcript is not a JSON object",
                                "send one JSON object a line, or plain 'role: text' lines with --format text")
        found = _entry(entry)
        if found is None:
            skipped += 1
            continue
        role, text, meta = found
        entries.append((role, text))
        transcript.chat = transcript.chat or meta.get("chat")
        transcript.agent = transcript.agent or meta.get("agent")
        transcript.time = transcript.time or meta.get("time")
    kept = _keep(entries)
    kept.skipped += skipped
    kept.chat, kept.agent, kept.time = transcript.chat, transcript.agent, transcript.time
    return kept


def _json_object(line: str, what: str = "the transcript's first line") -> dict[str, Any] | None:
    """A JSON object, or None; BadTranscript for one nested too deep to read safely."""
    try:
        value = loads(line)
    except TooDeep as exc:
        raise BadTranscript(f"{what} is JSON {exc}", "send a transcript of messages, not deeply nested data") from exc
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _entry(entry: dict[str, Any]) -> tuple[str, str, dict[str, Any]] | None:
    """(role, text, metadata) of one JSONL line, None for lines that hold no message."""
    message = entry.get("message")
    if isinstance(message, dict):  # Claude Code: {type, message: {role, content}, sessionId, timestamp}
        if entry.get("isMeta") or entry.get("isSidechain"):
            return None
        role, content = message.get("role") or entry.get("type"), message.get("content")
        chat = entry.get("sessionId")
        meta = {"chat": chat if isinstance(chat, str) else None, "agent": "claude-code",
                "time": _time(entry.get("timestamp"))}
    elif "role" in entry:
        role, content = entry.get("role"), entry.get("content")
        meta = {"time": _time(entry.get("timestamp"))}
    else:
        return None
    if not isinstance(role, str):
        return None
    return role.lower(), _content_text(content), {k: v for k, v in meta.items() if v}


def _content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text blocks of a block list."""
    if isinstance(content, str):
        return NOISE.sub("", content)
    if not isinstance(content, list):
        return ""
    texts = [b.get("text") for b in content
             if isinstance(b, dict) and b.get("type") in ("text", "input_text", "output_text")]
    return "\n\n".join(NOISE.sub("", t) for t in texts if isinstance(t, str))


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        return moment.astimezone()  # a naive time is taken as local
    except (ValueError, OverflowError):  # 0001-01-01T00:00:00+14:00 has no local time: no time at all
        return None


def _keep(entries: list[tuple[str, str]]) -> Transcript:
    messages, skipped = [], 0
    for role, text in entries:
        text = clean_text(text).strip()  # a NUL would make the session file binary
        role = ALIASES.get(role, role)
        if role in KEPT_ROLES and text:
            messages.append(Message(role, text))
        else:
            skipped += 1
    return Transcript(messages, skipped)


def from_hook(payload: str) -> tuple[str, str | None]:
    """(transcript text, chat id) from an agent hook's JSON payload on stdin
    (Claude Code sends {session_id, transcript_path, hook_event_name, ...})."""
    data = _json_object(payload.strip(), "the hook's input")
    if data is None or not isinstance(data.get("transcript_path"), str):
        raise BadTranscript("--hook expects the hook's JSON on stdin, with a transcript_path",
                            "use --hook only as an agent hook command; otherwise pass the transcript file")
    raw = read_file(Path(data["transcript_path"]).expanduser(), "check the hook's transcript_path")
    chat = data.get("session_id")
    return raw, chat if isinstance(chat, str) and chat else None


def read_file(path: Path, hint: str = "pass the transcript's file") -> str:
    """A transcript file's text (bytes that are not UTF-8 replaced): only a regular file, read
    up to MAX_TRANSCRIPT bytes. Opened without blocking, so a FIFO swapped in is refused, not waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "the path holds a NUL"
        raise BadTranscript(f"cannot read the transcript {path}: {why}", hint) from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise BadTranscript(f"the transcript {path} is not a regular file", hint)
    with os.fdopen(fd, "rb") as file:
        data = file.read(MAX_TRANSCRIPT + 1)
    if len(data) > MAX_TRANSCRIPT:
        raise BadTranscript(f"the transcript {path} is larger than {MAX_TRANSCRIPT // (1024 * 1024)} MB", hint)
    return data.decode("utf-8", errors="replace")


# -- the session file ------------------------------------------------------

def render(messages: list[Message], chat: str, agent: str, when: datetime) -> str:
    """A session file: YAML header, title, one `role: text` paragraph per message."""
    header = ["---", f"chat: {json.dumps(chat, ensure_ascii=False)}", f"agent: {json.dumps(agent, ensure_ascii=False)}",
              f"time: {when.isoformat(timespec='seconds')}", f"messages: {len(messages)}", "---",
              f"# Session {when:%Y-%m-%d %H:%M}"]
    return "\n".join(header) + "\n\n" + render_messages(messages)


def render_messages(messages: list[Message]) -> str:
    blocks = []
    for m in messages:
        first, *rest = m.text.split("\n")
        blocks.append("\n".join([f"{m.role}: {first}"] + [INDENT + ln if ln else "" for ln in rest]))
    return "\n\n".join(blocks) + "\n"


def file_name(chat: str, when: datetime) -> str:
    return f"{when:%Y-%m-%d-%H%M}-{chat_key(chat)}.md"


def chat_key(chat: str) -> str:
    return hashlib.sha1(chat.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def find(nb: Notebook, chat: str) -> str | None:
    """The session file of a chat, in either layout's folder, or None."""
    key = chat_key(chat)
    for folder in FOLDERS:
        base = nb.root / folder
        if base.is_symlink() or not base.is_dir():
            continue
        for path in sorted(base.glob(f"????-??-??-????-{key}.md")):
            rel = f"{folder}/{path.name}"
            if not path.is_symlink() and header(nb.read(rel)).get("chat") == chat:
                return rel
    return None


def header(text: str) -> dict[str, str]:
    """The fields of a session file's YAML header (chat and agent decoded)."""
    match = re.match(r"---\n(.*?)^---$", text, re.DOTALL | re.MULTILINE)
    fields: dict[str, str] = {}
    for line in (match.group(1).split("\n") if match else []):
        key, sep, value = line.partition(": ")
        if sep and key in ("chat", "agent", "time"):
            fields[key] = _json_string(value.strip())
    return fields


def _json_string(value: str) -> str:
    try:
        decoded = json.loads(value)
    except ValueError:
        return value
    return decoded if isinstance(decoded, str) else value


def save(nb: Notebook, raw: str, chat: str | None = None, agent: str | None = None, fmt: str = "auto",
         private: bool = False, allow: bool = False, now: datetime | None = None) -> Saved:
    """Save a transcript as its chat's session file (one commit); nothing at all if private."""
    if private:
        return Saved("private", None, chat, agent, None, 0, 0, 0, None,
                     hint="a private session: nothing was written or committed")
    if not raw.strip():
        raise EmptyText("empty transcript", "pipe the transcript on stdin, or pass its file")
    transcript = parse(raw, fmt)
    chat = clean_text(chat or transcript.chat or _content_chat(transcript.messages)).strip()
    agent = clean_text(agent or transcript.agent or "unknown").strip()
    if not chat or "\n" in chat or "\n" in agent:
        raise UsageError("a chat or agent id must be one non-empty line", "pass --chat ID / --agent ID")
    with write_lock(nb):
        rel = find(nb, chat)
        before = nb.read(rel) if rel else ""
        # A transcript without timestamps keeps the start time its file already has.
        when = transcript.time or _time(header(before).get("time")) or now or datetime.now().astimezone()
        rel = rel or f"{_folder(nb)}/{file_name(chat, when)}"
        body = render(transcript.messages, chat, agent, when)
        found: list[guard.Finding] = []
        if not allow:
            body, found = guard.redact(body)
        saved = Saved("updated" if before else "saved", rel, chat, agent, when.isoformat(timespec="seconds"),
                      len(transcript.messages), transcript.skipped, len(found), None)
        if before == body:
            saved.action = "unchanged"
            return saved
        written = commit_page(nb, rel, body, f"mem: session {_short(chat)} ({len(transcript.messages)} messages)",
                              "session")
    saved.commit, saved.hint = written.commit, written.hint
    if found:
        saved.notes.append(f"redacted {len(found)} secret(s): " + "; ".join(f.describe() for f in found[:3]))
    if nb.settings.group_of(rel) != "sessions":
        saved.notes.append(f"{rel} is not in the sessions group of .gitmem.toml, so recall will show it")
    return saved


def _folder(nb: Notebook) -> str:
    return "sessions" if nb.settings.layout == "folders" else "memory"


def _content_chat(messages: list[Message]) -> str:
    """A chat id for a transcript that names none: its content's hash, so saving
    the same transcript twice changes nothing."""
    digest = hashlib.sha256(render_messages(messages).encode("utf-8", "surrogatepass")).hexdigest()
    return f"auto-{digest[:12]}"


def _short(chat: str, width: int = 40) -> str:
    return chat if len(chat) <= width else chat[:width - 1] + "…"


def remove(nb: Notebook, chat: str) -> Removed:
    """Delete a chat's session file, as one commit (git history still holds it)."""
    chat = chat.strip()
    if not chat:
        raise UsageError("empty chat id", "give the chat id that the session file's header names")
    with write_lock(nb):
        committable(nb)
        rel = find(nb, chat)
        if rel is None:
            raise SessionNotFound(f"no session file for chat {chat!r}",
                                  "check the id (the 'chat:' line of the session file's header); "
                                  "find sessions with: git mem search --in sessions WORDS")
        message = f"mem: session rm {_short(chat)}"
        commit = delete(nb, rel, message, "session rm")
    return Removed("session rm", chat, rel, commit, message)
