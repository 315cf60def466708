#!/bin/sh
# gitmem-hook v1: written by 'git mem hooks install'; 'git mem hooks uninstall' puts back what was here.
# Starts the index catch-up in the background (no input, no output, signals from the terminal
# ignored) so that git does not wait for it, then runs the hook that was here before gitmem, if
# any, with git's arguments and input, and exits with its status. gitmem's part never fails.
GITMEM_PYTHON=@PYTHON@
(
  trap '' HUP INT QUIT
  if [ -x "$GITMEM_PYTHON" ]; then
    exec "$GITMEM_PYTHON" -P -m gitmem hooks run "${0##*/}" "$@"
  fi
  exec git-mem hooks run "${0##*/}" "$@"
) </dev/null >/dev/null 2>&1 &
if [ -x "$0.gitmem-chained" ]; then
  exec "$0.gitmem-chained" "$@"
fi
exit 0
