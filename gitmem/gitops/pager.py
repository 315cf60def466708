"""Which pager git would use: `git var GIT_PAGER` (GIT_PAGER, core.pager, PAGER, then
git's built-in default), so `git mem log` pages exactly as `git log` does."""

from __future__ import annotations

import subprocess


def git_pager(cwd: str = ".") -> str | None:
    """git's pager for this folder, or None when git cannot say (git missing or broken)."""
    try:
        out = subprocess.run(["git", "var", "GIT_PAGER"], cwd=cwd, capture_output=True, timeout=10,
                             check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.decode("utf-8", "replace").strip()
