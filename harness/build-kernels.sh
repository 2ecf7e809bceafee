#!/bin/sh
# build-kernels.sh: build the kernel variants that the base's matrix cells
# boot (harness/build-kernel.sh each), from its tree.
. "$(dirname "$0")/lib.sh"

for c in $(base_cells); do
	matrix_lines | awk -v c="$c" '$1 == c { print $3 }'
done | sort -u | while read -r k; do
	sh "$TOP/harness/build-kernel.sh" "$k" || exit 1
done
