#!/bin/sh
# each-base.sh [-p] CMD [ARG...]: run CMD once for each base of
# harness/bases.tsv (or of BASES="mainline 6.12"), with BASE set; stop at
# the first failure. With -p, the bases run at the same time, each one's
# output held back and printed whole, in order, when all are done; it
# fails if any failed.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "${1:-}" != -p ]; then
	for b in ${ONLY_BASES:-$BASES}; do
		BASE=$b "$@" || die "base $b: '$*' failed"
	done
	exit 0
fi
shift
out=$BUILD_TOP/logs/each-base
mkdir -p "$out"
for b in ${ONLY_BASES:-$BASES}; do
	{
		rc=0
		BASE=$b "$@" >"$out/$b.out" 2>&1 || rc=$?
		echo "$rc" >"$out/$b.rc"
	} &
done
wait
failed=
for b in ${ONLY_BASES:-$BASES}; do
	cat "$out/$b.out"
	[ "$(cat "$out/$b.rc")" = 0 ] || failed="$failed $b"
done
[ -z "$failed" ] || die "base(s)$failed: '$*' failed"
