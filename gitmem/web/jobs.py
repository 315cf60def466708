"""The index rebuild as a background job whose progress a page or a client polls."""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..dates import iso
from ..errors import GitmemError


@dataclass
class Progress:
    state: str = "idle"  # idle | running | done | failed
    done: int = 0  # texts embedded so far
    total: int = 0  # texts to embed (0 until the index is rebuilt and embedding starts)
    started: str | None = None
    finished: str | None = None
    result: dict[str, Any] | None = None  # the IndexSummary, as `git mem rebuild --json` prints it
    error: str | None = None


class Rebuild:
    """At most one rebuild at a time; `start` while one runs returns the running one."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._progress = Progress()
        self._thread: threading.Thread | None = None

    def state(self) -> dict[str, Any]:
        with self._lock:
            return asdict(self._progress)

    def start(self) -> dict[str, Any]:
        with self._lock:
            if self._progress.state != "running":
                self._progress = Progress("running", started=iso(time.time()))
                self._thread = threading.Thread(target=self._run, name="gitmem-rebuild", daemon=True)
                self._thread.start()
        return self.state()

    def wait(self, timeout: float | None = None) -> dict[str, Any]:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return self.state()

    def _update(self, done: int, total: int) -> None:
        with self._lock:
            self._progress.done, self._progress.total = done, total

    def _run(self) -> None:
        from ..gitops.repo import open_notebook
        from ..index import maintenance
        from ..records import jsonable

        try:
            summary = maintenance.rebuild(open_notebook(self.root), progress=self._update)
            outcome: dict[str, Any] = {"state": "done", "result": jsonable(summary)}
        except GitmemError as exc:
            outcome = {"state": "failed", "error": exc.line()}
        except Exception as exc:  # a bug: say so on the page rather than dying silently in a thread
            outcome = {"state": "failed", "error": f"internal error: {type(exc).__name__}: {exc}"}
        with self._lock:
            for key, value in outcome.items():
                setattr(self._progress, key, value)
            self._progress.finished = iso(time.time())
