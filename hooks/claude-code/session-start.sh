#!/usr/bin/env bash
# Claude Code SessionStart (startup, resume, clear, and after a compaction): print the memory
# context; Claude Code adds a SessionStart hook's output to the model's context.
# stdin: {"session_id", "transcript_path", "cwd", "hook_event_name": "SessionStart", "source"}
set -u
notebook="${GITMEM_NOTEBOOK:-$HOME/notes}"
[ -d "$notebook" ] || { echo "gitmem: no notebook at $notebook (set GITMEM_NOTEBOOK)" >&2; exit 1; }
cat > /dev/null  # the payload: the context is the same whatever started the session
git -C "$notebook" mem context || exit 1  # 1, never 2: a failing hook must not block the session
