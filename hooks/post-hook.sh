#!/bin/sh
# gitmem-hook v1: written by 'git mem hooks install'; 'git mem hooks uninstall' puts back what was here.
# Starts the index catch-up in the background (no input or output, terminal signals ignored) so
# that git does not wait for it, then runs the hook that was here before gitmem, if any, with
# git's arguments and input, and exits with its status; gitmem's own part never fails.
# Mid-rebase it starts nothing for the picks (each fires post-commit): the worker started by the
# rebase's post-checkout waits for its end, and its post-rewrite catches up too.
# Python runs isolated (-I) with gitmem's own folder named: a gitmem/ committed in this work tree
# is never imported (gitmem/launch.py says why).
GITMEM_PYTHON=@PYTHON@
GITMEM_HOME=@HOME@
hook=${0##*/}
hook=${hook%%.*}
gitdir=.git
[ -f .git ] && read -r _ gitdir < .git
# After a merge or a rebase (a plain `git pull`), in the foreground, on stderr: the lines it brought
# that the write guard would refuse (a secret, an instruction to the model, a line replacing one of
# yours), as `git mem sync` names them. It never fails the hook.
# A merge that stopped on a conflict fires no post-merge: the commit that concludes it fires
# post-commit, with a second parent (one rev-parse a commit; a rebase's picks are left alone).
pulled=
if [ "$hook" = post-merge ] || [ "$hook $1" = "post-rewrite rebase" ]; then
  pulled=ORIG_HEAD
elif [ "$hook" = post-commit ] && ! { [ -d "$gitdir/rebase-merge" ] || [ -d "$gitdir/rebase-apply" ]; } &&
     git rev-parse -q --verify 'HEAD^2' >/dev/null 2>&1; then
  pulled='HEAD^1'
fi
if [ -n "$pulled" ]; then
  if [ -x "$GITMEM_PYTHON" ]; then
    "$GITMEM_PYTHON" -I -c @BOOT@ "$GITMEM_HOME" gitmem hooks pulled "$pulled" </dev/null 1>&2
  elif command -v git-mem >/dev/null 2>&1; then
    git-mem hooks pulled "$pulled" </dev/null 1>&2
  fi
fi
if [ "$hook" = post-checkout ] || [ "$hook $1" = "post-rewrite rebase" ] ||
   ! { [ -d "$gitdir/rebase-merge" ] || [ -d "$gitdir/rebase-apply" ]; }; then
  (
    trap '' HUP INT QUIT
    if [ -x "$GITMEM_PYTHON" ]; then
      exec "$GITMEM_PYTHON" -I -c @BOOT@ "$GITMEM_HOME" gitmem hooks run "$hook" "$@"
    fi
    exec git-mem hooks run "$hook" "$@"
  ) </dev/null >/dev/null 2>&1 &
fi
if [ -x "$0.gitmem-chained" ]; then
  exec "$0.gitmem-chained" "$@"
fi
exit 0
