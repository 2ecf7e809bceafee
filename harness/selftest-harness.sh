#!/bin/sh
# The harness must be able to fail. Judge a booted cell's saved console
# again (harness/judge-cell.sh, no QEMU) with a planted wrong expectation,
# then with planted wrong counts, and require that each fails, naming its
# check; the same console judged as it was must pass. The cell is the
# matrix's first, as the matrix left it in build/results/ (booted here if
# it is not there). And the console's kernel records must come out of the
# programs' lines (harness/untangle-console.sh).
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

stage "harness self-test: wrong expectations must fail a saved cell; the console is untangled"
cell=$(matrix_lines | awk 'NR == 1 { print $1 }')
if [ ! -f "$RESULTS/$cell.row" ] || [ ! -f "$RESULTS/$cell.boot" ]; then
	msg "    no saved boot of cell $cell: booting it"
	sh "$TOP/harness/run-cell.sh" "$cell" >/dev/null ||
		die "cell $cell fails: run 'make matrix CELLS=$cell'"
fi
out=$LOGS/selftest-harness.log
p=planted-$cell

# plant: a copy of the saved cell, as $p.
plant() {
	cp "$RESULTS/$cell.log" "$RESULTS/$p.log"
	cp "$RESULTS/$cell.boot" "$RESULTS/$p.boot"
}

# The saved console, judged again, passes, with the same row.
plant
sh "$TOP/harness/judge-cell.sh" "$p" >"$out" 2>&1 ||
	{ cat "$out"; die "the saved console of cell $cell fails when judged again"; }
row=$(tail -n 1 "$RESULTS/$cell.row" | cut -f2-)
[ "$(tail -n 1 "$RESULTS/$p.row" | cut -f2-)" = "$row" ] ||
	{ cat "$RESULTS/$cell.row" "$RESULTS/$p.row"; die "judged again, cell $cell gives another row"; }
msg "    cell $cell's saved console judged again: the same row"

# Any other row of tests/expect.tsv whose values differ.
expect=$(cell_line "$cell" | awk '{ print $4 }')
wrong=$(data_lines "$TOP/tests/expect.tsv" | awk -v r="$expect" '
	$1 == r { v = $2 $3 $4 $5 }
	{ n[$1] = $2 $3 $4 $5 }
	END { for (k in n) if (n[k] != v) { print k; exit } }')
if sh "$TOP/harness/judge-cell.sh" --expect "$wrong" "$p" >"$out" 2>&1; then
	cat "$out"
	die "cell $cell passed with the wrong expectation '$wrong' (it is '$expect')"
fi
grep -q "$p: FAIL (.*probe" "$out" ||
	{ cat "$out"; die "the planted cell failed, but not on its probe"; }
grep -q "last lines of .*results/$p.log" "$out" ||
	{ cat "$out"; die "the failing cell did not show its console tail"; }
msg "    cell $cell with expectation '$wrong' instead of '$expect': fails, as it must"

# The right expectation, but the expected counts moved by one case from
# pass to skip: a case that quietly stopped testing.
counts=$BUILD/selftest-counts.tsv
data_lines "$TOP/tests/counts.tsv" | awk -v c="$cell" -v b="$BASE" '
	$2 == c && ($1 == b || $1 == "*") {
		split($4, k, "/"); $4 = (k[1] - 1) "/" k[2] "/" (k[3] + 1)
		print; exit }' >"$counts"
[ -s "$counts" ] || die "tests/counts.tsv has no counts for cell $cell"
if sh "$TOP/harness/judge-cell.sh" --counts "$counts" "$p" >"$out" 2>&1; then
	cat "$out"
	die "cell $cell passed with wrong expected counts ($(cut -d' ' -f3,4 "$counts"))"
fi
grep -q "$p: FAIL (counts)" "$out" ||
	{ cat "$out"; die "the cell with wrong expected counts failed, but not on its counts alone"; }
msg "    cell $cell with one case moved from pass to skip in its expected counts: fails, as it must"

# A console cut short: the boot's record says it timed out.
plant
sed -i 's/^rc=.*/rc=124/' "$RESULTS/$p.boot"
sed -i '/^mem-model-harness: done/,$d' "$RESULTS/$p.log"
if sh "$TOP/harness/judge-cell.sh" "$p" >"$out" 2>&1; then
	cat "$out"
	die "cell $cell passed with a console cut before its end"
fi
[ "$(tsv_field "$RESULTS/$p.row" boot)" = timeout ] ||
	{ cat "$out"; die "a console cut short at the boot's timeout is not judged 'timeout'"; }
msg "    cell $cell's console cut short at a timeout: fails, boot 'timeout', as it must"
rm -f "$RESULTS/$p".* "$counts"

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
