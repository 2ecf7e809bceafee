#!/bin/sh
# each-base.sh CMD [ARG...]: run CMD once for each base of
# harness/bases.tsv (or of BASES="mainline 6.12"), with BASE set; stop at
# the first failure.
. "$(dirname "$0")/lib.sh"

for b in ${ONLY_BASES:-$BASES}; do
	BASE=$b "$@" || die "base $b: '$*' failed"
done
