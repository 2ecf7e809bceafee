#!/bin/sh
# build-kernels.sh: build the kernel variants that the base's matrix cells
# boot (harness/build-kernel.sh each), from its tree. The cells boot only
# the images, which a build with the same inputs may have left in the
# cache (--image-only); the first base's 'debug' is built whatever the
# cache holds, because sparse/W=1 (harness/check-warnings.sh) compiles
# again in its build directory.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

for c in $(base_cells "$BASE"); do
	matrix_lines | awk -v c="$c" '$1 == c { print $3 }'
done | sort -u | while read -r k; do
	only=--image-only
	[ "$k:$BASE" != "debug:$FIRST_BASE" ] || only=
	# The first part of the series: its worktree at the head of 'core'.
	! is_part1_variant "$k" || sync_part1_tree
	sh "$TOP/harness/build-kernel.sh" ${only:+"$only"} "$k" || exit 1
done
