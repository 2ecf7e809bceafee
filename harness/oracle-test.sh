#!/bin/sh
# oracle-test.sh [IMAGE]: boot an arm64 kernel image (default: the debug
# kernel of the matrix) in the apple-tso cell, with the oracle test alone,
# and print its figures. Exits non-zero if the cell fails. ORACLE_SECONDS
# and ORACLE_MIN_CHECKS set the stress (run-cell.sh); NAME names the
# result files (build/results/NAME.*, default oracle-test).
. "$(dirname "$0")/lib.sh"

image=${1:-$BUILD/kernel/debug/arch/arm64/boot/Image}
[ -f "$image" ] || die "no kernel image '$image'"
image=$(cd "$(dirname "$image")" && pwd)/$(basename "$image")
name=${NAME:-oracle-test}

# The apple-tso cell of the matrix, renamed, with the oracle test alone.
m=$BUILD/$name-matrix.txt
line=$(matrix_lines | awk '$1 == "apple-tso"')
[ -n "$line" ] || die "no cell apple-tso in ${MATRIX#"$TOP"/}"
echo "$line" | awk -v n="$name" '{ $1 = n; $6 = "oracle"; print }' >"$m"

msg "    $name: ${image#"$TOP"/} in the apple-tso cell, oracle test only"
rc=0
MATRIX=$m KERNEL=$image sh "$TOP/harness/run-cell.sh" "$name" || rc=$?
rm -f "$m"
grep -a '^mem-model-oracle: ' "$RESULTS/$name.log" | sed 's/^/    /'
exit "$rc"
