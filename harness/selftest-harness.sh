#!/bin/sh
# The matrix must be able to fail. Boot the first cell once more with a
# planted wrong expectation and require that the cell fails, naming the
# cell and its probe mismatch.
. "$(dirname "$0")/lib.sh"

stage "harness self-test: a wrong expectation must fail its cell"
m=$BUILD/selftest-matrix.txt
line=$(matrix_lines | head -n 1)
# shellcheck disable=SC2086
set -- $line
cell=$1 row=$4
# Any other row of tests/expect.tsv whose values differ.
wrong=$(sed -e 's/#.*//' "$TOP/tests/expect.tsv" | awk -v r="$row" '
	NF && $1 == r { v = $2 $3 $4 $5 }
	NF { n[$1] = $2 $3 $4 $5 }
	END { for (k in n) if (n[k] != v) { print k; exit } }')
echo "$line" | awk -v w="$wrong" '{ $1 = "planted-" $1; $4 = w; print }' >"$m"
out=$BUILD/logs/selftest-harness.log
if MATRIX=$m sh "$TOP/harness/run-cell.sh" "planted-$cell" >"$out" 2>&1; then
	cat "$out"
	die "cell $cell passed with the wrong expectation '$wrong' (it is '$row')"
fi
grep -q "planted-$cell: FAIL (.*probe" "$out" ||
	{ cat "$out"; die "the planted cell failed, but not on its probe"; }
grep -q 'last lines of build/results/planted-' "$out" ||
	{ cat "$out"; die "the failing cell did not show its console tail"; }
msg "    cell $cell with expectation '$wrong' instead of '$row': fails, as it must"
rm -f "$RESULTS/planted-$cell".* "$m"
stage_end
