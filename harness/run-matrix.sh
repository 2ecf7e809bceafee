#!/bin/sh
# Boot every cell of the matrix on every base (or the cells in CELLS, on
# the bases in ONLY_BASES), then print one summary table and write
# build/results/summary.tsv. A base boots the cells of its architectures
# (harness/bases.tsv). Exits non-zero if any cell failed. "probe fex/ros"
# is the probe's verdict, then the conclusions of the client protocols,
# fex's/rosetta's (tso, fb for fallback, mix for mixed, - for none);
# "oracle c/m/d" is the oracle test's stress: checks, mismatches, GET
# disagreements; the last column, the checks a failed cell failed.
. "$(dirname "$0")/lib.sh"

sum=$BUILD_TOP/results/summary.tsv
mkdir -p "$BUILD_TOP/results"
failed=
rows=$BUILD_TOP/results/summary.rows
: >"$rows"
for b in ${ONLY_BASES:-$BASES}; do
	cells=$(base_cells "$b")
	if [ -n "${CELLS:-}" ]; then
		cells=$(for c in $CELLS; do echo "$cells" | grep -x "$c" || true; done)
	fi
	[ -n "$cells" ] || continue
	used=$(cut -d' ' -f1,2 "$CACHE/base-$b.used" 2>/dev/null || echo "$b")
	res=$(base_build "$b")/results
	stage "matrix on $b ($used): $(echo $cells | wc -w) cell(s)"
	rm -f "$res"/*.row
	# A VM cell's nested guest has a row of its own, CELL:guest, after
	# the cell's.
	for c in $cells; do
		msg "    $b $c: booting"
		BASE=$b sh "$TOP/harness/run-cell.sh" "$c" || failed="$failed $b/$c"
	done
	for c in $cells; do
		printf '%s\t' "$b"
		cat "$res/$c.row" 2>/dev/null ||
			printf '%s\t-\t-\t-\t-\t-\t-\t-\t-\tFAIL\t-\tnot-run\n' "$c"
		[ ! -f "$res/$c.guest.row" ] || { printf '%s\t' "$b"; cat "$res/$c.guest.row"; }
	done >>"$rows"
	stage_end
done

{
	printf 'base\tcell\tkernel\texpect\tboot\tprobe fex/ros\tkernel-log\ttests p/f/s\tcases p/f/s\toracle c/m/d\tresult\ttime\tfailed-checks\n'
	cat "$rows"
} >"$sum"
rm -f "$rows"
msg ""
for b in ${ONLY_BASES:-$BASES}; do
	msg "base $b: $(cut -d' ' -f1,2 "$CACHE/base-$b.used" 2>/dev/null || echo '?')"
done
awk -F'\t' '{ l = sprintf("%-8s %-21s %-6s %-17s %-7s %-13s %-30s %-11s %-12s %-14s %-6s %-5s %s",
	$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13); sub(/ +$/, "", l); print l }' "$sum"
msg ""
total=$(awk -F'\t' 'NR > 1 && $2 !~ /:/' "$sum" | wc -l)
nf=$(echo $failed | wc -w)
msg "matrix: $((total - nf)) passed, $nf failed"
if [ -n "$failed" ]; then
	msg "FAILED cells:$failed (see build/results/<cell>.log, build/<base>/results/<cell>.log)"
	exit 1
fi
