#!/usr/bin/env bash
# Claude Code UserPromptSubmit: the facts that bear on the prompt, as the hook's additional context,
# within GITMEM_PROMPT_BUDGET seconds (0.3 by default): hybrid through the warm daemon when it runs,
# else keyword in this process, else nothing. It never blocks a prompt: `hooks prompt` exits 0.
# stdin: {"session_id", "transcript_path", "cwd", "hook_event_name": "UserPromptSubmit", "prompt"}
set -u
notebook="${GITMEM_NOTEBOOK:-$HOME/notes}"
[ -d "$notebook" ] || { echo "gitmem: no notebook at $notebook (set GITMEM_NOTEBOOK)" >&2; exit 1; }
exec git -C "$notebook" mem hooks prompt
