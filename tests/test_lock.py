"""gitops/lock.py: atomic writes when the file being replaced goes away meanwhile."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.tally("bad-input/fault matrix")
def test_a_file_removed_while_its_replacement_is_staged_is_still_written(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The mode was read with exists() then stat(): a page removed between the two (a person's
    checkout) was an internal error. One stat now; a file gone takes the default mode."""
    from gitmem.gitops.lock import atomic_write

    target = tmp_path / "facts.md"
    target.write_text("old")
    target.chmod(0o600)
    looks: list[int] = []
    real_stat = Path.stat

    def stat(path: Path, **kwargs: bool) -> object:
        if path == target:
            looks.append(1)
            if len(looks) == 2:
                target.unlink()  # gone right after the first look
        return real_stat(path, **kwargs)

    monkeypatch.setattr(Path, "stat", stat)
    atomic_write(target, b"new")
    monkeypatch.setattr(Path, "stat", real_stat)
    assert target.read_bytes() == b"new" and target.stat().st_mode & 0o777 in (0o600, 0o644)
