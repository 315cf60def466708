#!/usr/bin/env bash
# Claude Code SessionEnd: save the transcript as the session's file (one commit), then
# consolidate it: facts, preferences and a summary proposed for review (git mem review).
# Consolidation needs an LLM endpoint (GITMEM_LLM_URL and GITMEM_LLM_MODEL, or git config
# mem.llm.url / mem.llm.model); without one the transcript is still saved and the missing
# setting is named on stderr.
# stdin: {"session_id", "transcript_path", "cwd", "hook_event_name": "SessionEnd", "reason"}
set -u
notebook="${GITMEM_NOTEBOOK:-$HOME/notes}"
[ -d "$notebook" ] || { echo "gitmem: no notebook at $notebook (set GITMEM_NOTEBOOK)" >&2; exit 1; }
git -C "$notebook" mem session save --hook --consolidate || exit 1
