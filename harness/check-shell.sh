#!/bin/sh
# The harness' shell is POSIX sh, and shellcheck finds nothing in it:
# 'shellcheck -s sh -x' over harness/*.sh, from the top of the repository
# (the scripts name the files they source from there).
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$TOP"
stage "shellcheck -s sh: harness/"
shellcheck -s sh -x harness/*.sh
msg "    harness/: $(find harness -maxdepth 1 -name '*.sh' | wc -l) scripts, clean"
stage_end
