#!/bin/sh
# Before make check writes anything big: is there room for it? A full run
# from cold leaves about 18 GiB in build/ (three kernel trees, their
# builds, the defects' and the bisection's worktrees; 14 GiB warm) and
# adds about 2 GiB to the cache, which is on the same disk as a rule:
# NEED_GIB, 20 by default. What build/ already holds counts towards it.
# Stops with the figures rather than failing later, part way through a
# checkout, on a full disk.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

need=${NEED_GIB:-20}
mkdir -p "$BUILD_TOP" "$CACHE"
have_kib=$(du -sk "$BUILD_TOP" | cut -f1)
free_kib=$(df -Pk "$BUILD_TOP" | awk 'NR == 2 { print $4 }')
want_kib=$((need * 1024 * 1024 - have_kib))
[ "$want_kib" -gt 0 ] || exit 0
[ "$free_kib" -lt "$want_kib" ] || exit 0
die "make check needs about $need GiB for build/ and the cache: build/ holds $((have_kib / 1024 / 1024)) GiB, and its disk has $((free_kib / 1024 / 1024)) GiB free, $(((want_kib - free_kib) / 1024 / 1024 + 1)) GiB short. Free that much on $(df -P "$BUILD_TOP" | awk 'NR == 2 { print $6 }') (NEED_GIB=N sets the estimate)."
