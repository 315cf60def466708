"""Who signs gitmem's commits: git's own identity, or gitmem's fallback where git has none."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import GitFailed

if TYPE_CHECKING:
    from .git import Git

FALLBACK_NAME = "gitmem"
FALLBACK_EMAIL = "gitmem@localhost"
FALLBACK_IDENTITY = f"{FALLBACK_NAME} <{FALLBACK_EMAIL}>"
FALLBACK_HINT = (f"no git identity is configured, so gitmem signed its commit '{FALLBACK_IDENTITY}'; "
                 "set yours with git config --global user.name/user.email")
ROLES = ("AUTHOR", "COMMITTER")


def identity(git: Git) -> tuple[str, str] | None:
    """The configured user.name and user.email, or None if either is missing."""
    name, email = git.config_get("user.name"), git.config_get("user.email")
    if name and email:
        return name, email
    return None


def identity_env(git: Git) -> tuple[dict[str, str] | None, bool]:
    """The environment for a commit, and whether gitmem's fallback identity is in it.

    git decides who signs (GIT_AUTHOR_* / GIT_COMMITTER_* in the environment, then
    user.name/user.email, then what it can guess); `git var` asks it. Only a role git
    cannot name gets the fallback, and only for the parts git lacks."""
    env: dict[str, str] | None = None
    for role in ROLES:
        try:
            git.run("var", f"GIT_{role}_IDENT")
            continue
        except GitFailed:
            pass
        env = env or dict(os.environ)
        for part, key, fallback in (("NAME", "name", FALLBACK_NAME), ("EMAIL", "email", FALLBACK_EMAIL)):
            if not env.get(f"GIT_{role}_{part}"):
                env[f"GIT_{role}_{part}"] = (git.config_get(f"{role.lower()}.{key}")
                                             or git.config_get(f"user.{key}") or fallback)
    return env, env is not None


def commit_env(git: Git) -> dict[str, str]:
    """The environment for a commit: git's own precedence; the fallback only where git has none."""
    env, _ = identity_env(git)
    return env or dict(os.environ)
