#!/usr/bin/env bash
# Claude Code PreCompact (manual or auto): the flush. The transcript so far is saved as the
# session's file (nothing said before the compaction is lost), then the reminder to write down
# durable memories is printed (Claude Code shows it to the user; a harness that can, gives it to
# the model before compacting).
# stdin: {"session_id", "transcript_path", "cwd", "hook_event_name": "PreCompact", "trigger", "custom_instructions"}
set -u
notebook="${GITMEM_NOTEBOOK:-$HOME/notes}"
[ -d "$notebook" ] || { echo "gitmem: no notebook at $notebook (set GITMEM_NOTEBOOK)" >&2; exit 1; }
payload=$(cat)
printf '%s' "$payload" | git -C "$notebook" mem session save --hook >&2 || exit 1
git -C "$notebook" mem context --flush || exit 1
