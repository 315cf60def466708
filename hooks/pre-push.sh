#!/bin/sh
# gitmem-hook v1: written by 'git mem hooks install'; 'git mem hooks uninstall' puts back what was here.
# Refuses a push that would carry a notebook page marked private (frontmatter `private: true`) to
# the remote, then runs the pre-push hook that was here before gitmem, if any, with git's
# arguments and the same input, and exits with its status.
# Python runs isolated (-I) with gitmem's own folder named, as in post-hook.sh (gitmem/launch.py).
GITMEM_PYTHON=@PYTHON@
GITMEM_HOME=@HOME@
refs=$(cat)
if [ -x "$GITMEM_PYTHON" ]; then
  printf '%s\n' "$refs" | "$GITMEM_PYTHON" -I -c @BOOT@ "$GITMEM_HOME" gitmem hooks pre-push "$@" || exit 1
elif command -v git-mem >/dev/null 2>&1; then
  printf '%s\n' "$refs" | git-mem hooks pre-push "$@" || exit 1
fi
if [ -x "$0.gitmem-chained" ]; then
  printf '%s\n' "$refs" | "$0.gitmem-chained" "$@"
  exit $?
fi
exit 0
