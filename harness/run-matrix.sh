#!/bin/sh
# Boot every cell of the matrix (or those in CELLS), then print the
# summary table and write build/results/summary.tsv. Exits non-zero if any
# cell failed. "oracle c/m/d" is the oracle test's stress: checks,
# mismatches, GET disagreements.
. "$(dirname "$0")/lib.sh"

cells=${CELLS:-$(matrix_lines | awk '{ print $1 }')}

stage "matrix: $(echo $cells | wc -w) cell(s)"
failed=
rm -f "$RESULTS"/*.row
for c in $cells; do
	msg "    $c: booting"
	sh "$TOP/harness/run-cell.sh" "$c" || failed="$failed $c"
done

sum=$RESULTS/summary.tsv
{
	printf 'cell\tkernel\texpect\tboot\tprobe\tkernel-log\ttests p/f/s\tcases p/f/s\toracle c/m/d\tresult\ttime\tfailed-checks\n'
	for c in $cells; do
		cat "$RESULTS/$c.row" 2>/dev/null ||
			printf '%s\t-\t-\t-\t-\t-\t-\t-\t-\tFAIL\t-\tnot-run\n' "$c"
	done
} >"$sum"
msg ""
awk -F'\t' '{ printf "%-17s %-6s %-17s %-6s %-6s %-24s %-11s %-12s %-14s %-6s %s\n",
	$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$sum"
msg ""
stage_end
nf=$(echo $failed | wc -w)
msg "matrix: $(($(echo $cells | wc -w) - nf)) passed, $nf failed"
if [ -n "$failed" ]; then
	msg "FAILED cells:$failed (see build/results/<cell>.log)"
	exit 1
fi
