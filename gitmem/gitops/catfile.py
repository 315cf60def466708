"""git's object reader: one long-lived `git cat-file --batch` per repository, for git.Git. A
read of many blobs asks for them in groups rather than one at a time; a git that died is started
again once."""

from __future__ import annotations

import os
import subprocess
import threading
import weakref
from collections.abc import Sequence
from typing import IO, Any

from ..errors import GitFailed

C_LOCALE = {"LANGUAGE": "C", "LC_ALL": "C"}


class CatFile:
    """One long-lived `git cat-file --batch` (or --batch-check) for a repository, started on first
    use, asked under a lock (a server's threads share it), ended with the Git that owns it
    (`where`: its work tree, or its git dir)."""

    def __init__(self, where: str, mode: str) -> None:
        self._where = where
        self._mode = mode
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._finalizer: Any = None

    def ask(self, oid: str, body: bool) -> tuple[int, bytes]:
        """(size, bytes) of a blob (bytes empty for --batch-check); ValueError if it is missing."""
        if not oid or any(c not in "0123456789abcdef" for c in oid.lower()):
            raise ValueError(f"not an object id: {oid!r}")
        with self._lock:
            for attempt in (0, 1):
                proc = self._start()
                try:
                    assert proc.stdin is not None and proc.stdout is not None
                    proc.stdin.write(oid.encode() + b"\n")
                    proc.stdin.flush()
                    return self._read(proc.stdout, oid, body)
                except (BrokenPipeError, EOFError):
                    self._stop()  # git died (killed, or the repository moved): start again once
                    if attempt:
                        raise GitFailed(f"git cat-file failed on {oid}") from None
        raise AssertionError("unreachable")

    AHEAD = 64  # ids written before their answers are read: 2.6 KB, far under a pipe's buffer, so no deadlock

    def ask_many(self, oids: Sequence[str], largest: int) -> dict[str, bytes]:
        """{oid: bytes} of the blobs git has among `oids`, up to `largest` bytes each (see Git.read_blobs)."""
        wanted = [o for o in dict.fromkeys(oids) if o and all(c in "0123456789abcdef" for c in o.lower())]
        found: dict[str, bytes] = {}
        with self._lock:
            try:
                for start in range(0, len(wanted), self.AHEAD):
                    group = wanted[start:start + self.AHEAD]
                    proc = self._start()
                    assert proc.stdin is not None and proc.stdout is not None
                    proc.stdin.write(b"".join(o.encode() + b"\n" for o in group))
                    proc.stdin.flush()
                    for oid in group:
                        data = self._read_or_skip(proc.stdout, largest)
                        if data is not None:
                            found[oid] = data
            except (BrokenPipeError, EOFError, ValueError):
                self._stop()  # answers may be out of step now: the rest is read one at a time
        return found

    def _read_or_skip(self, out: IO[bytes], largest: int) -> bytes | None:
        header = out.readline()
        if not header:
            raise EOFError
        parts = header.split()
        if len(parts) < 2 or parts[-1] == b"missing":
            return None
        if len(parts) != 3 or not parts[2].isdigit():
            raise ValueError(f"unexpected answer from git cat-file: {header[:80]!r}")
        size, left = int(parts[2]), int(parts[2]) + 1  # the content and its newline
        if size > largest:
            while left:  # read past it: read_blob asks for it alone when it is wanted
                got = len(out.read(min(left, 1 << 20)))
                if not got:
                    raise EOFError
                left -= got
            return None
        data = out.read(left)
        if len(data) < left:
            raise EOFError
        return data[:size]

    def _read(self, out: IO[bytes], oid: str, body: bool) -> tuple[int, bytes]:
        header = out.readline()
        if not header:
            raise EOFError
        parts = header.split()
        if len(parts) < 2 or parts[1] == b"missing":
            raise ValueError(f"object {oid} is missing")
        size = int(parts[2])
        if not body:
            return size, b""
        data = out.read(size + 1)  # the content and its newline
        if len(data) < size + 1:
            raise EOFError
        return size, data[:size]

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(["git", "cat-file", self._mode], cwd=self._where,
                                          env={**os.environ, **C_LOCALE}, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            self._finalizer = weakref.finalize(self, _end, self._proc)
        return self._proc

    def _stop(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
        self._proc = None


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Close git's input: it exits on its own (no signal, nothing to wait for long)."""
    try:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=5)
    except Exception:  # noqa: BLE001 - at exit or after git died: nothing more to do
        try:
            proc.kill()
        except OSError:
            pass
