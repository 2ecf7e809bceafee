#!/bin/sh
# The matrix must be able to fail. Boot the first cell once more with a
# planted wrong expectation and require that the cell fails, naming the
# cell and its probe mismatch; then with planted wrong counts. And the
# console's kernel records must come out of the programs' lines.
. "$(dirname "$0")/lib.sh"

stage "harness self-test: wrong expectations must fail their cell; the console is untangled"
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
if MATRIX=$m COUNTS_CELL=$cell sh "$TOP/harness/run-cell.sh" "planted-$cell" >"$out" 2>&1; then
	cat "$out"
	die "cell $cell passed with the wrong expectation '$wrong' (it is '$row')"
fi
grep -q "planted-$cell: FAIL (.*probe" "$out" ||
	{ cat "$out"; die "the planted cell failed, but not on its probe"; }
grep -q 'last lines of build/results/planted-' "$out" ||
	{ cat "$out"; die "the failing cell did not show its console tail"; }
msg "    cell $cell with expectation '$wrong' instead of '$row': fails, as it must"

# The same cell, right expectation, but its expected counts moved by one
# case from pass to skip: a case that quietly stopped testing.
counts=$BUILD/selftest-counts.tsv
echo "$line" | awk '{ $1 = "planted-" $1; print }' >"$m"
sed -e 's/#.*//' "$TOP/tests/counts.tsv" | awk -v c="$cell" -v b="$BASE" '
	NF && $2 == c && ($1 == b || $1 == "*") {
		split($4, k, "/"); $4 = (k[1] - 1) "/" k[2] "/" (k[3] + 1)
		$2 = "planted-" c; print; exit }' >"$counts"
[ -s "$counts" ] || die "tests/counts.tsv has no counts for cell $cell"
if MATRIX=$m COUNTS=$counts sh "$TOP/harness/run-cell.sh" "planted-$cell" >"$out" 2>&1; then
	cat "$out"
	die "cell $cell passed with wrong expected counts ($(cut -d' ' -f3,4 "$counts"))"
fi
grep -q "planted-$cell: FAIL (counts)" "$out" ||
	{ cat "$out"; die "the cell with wrong expected counts failed, but not on its counts alone"; }
msg "    cell $cell with one case moved from pass to skip in its expected counts: fails, as it must"
rm -f "$RESULTS/planted-$cell".* "$m" "$counts"

# The host's kernel records land inside the programs' lines on the one
# UART they share (harness/untangle-console.sh): its lines must come out
# whole, the records on lines of their own, a relayed guest's kernel
# line left as it is (also when a record cut its "guest: "), and a line
# that never ended not joined to the next harness line.
t=$BUILD/selftest-console.log
printf '%s\r\n' 'mem-model-harness: vmm ex[   22.100000] psci: CPU3 killed' 'it 0' \
	'guest: [   11.200000] guest line[   17.100000] host line' '' \
	'mem-model-oracle: result PASS checks=1[    3.000000] one' '[    3.100000] two' \
	' mismatches=0[    3.200000] three' ' get-disagreements=0' \
	'gue[   23.000000] four' 'st: [   12.000000] guest line two' \
	'cut[   24.000000] five' 'mem-model-harness: done' >"$t"
sh "$TOP/harness/untangle-console.sh" "$t"
printf '%s\n' '[   22.100000] psci: CPU3 killed' 'mem-model-harness: vmm exit 0' \
	'[   17.100000] host line' 'guest: [   11.200000] guest line' \
	'[    3.000000] one' '[    3.100000] two' '[    3.200000] three' \
	'mem-model-oracle: result PASS checks=1 mismatches=0 get-disagreements=0' \
	'[   23.000000] four' 'guest: [   12.000000] guest line two' \
	'[   24.000000] five' 'cut' 'mem-model-harness: done' |
	diff -u - "$t" || die "untangle-console.sh did not give the programs' lines back whole"
msg "    kernel records inside the programs' lines: taken out, the lines joined again"
rm -f "$t"
stage_end
