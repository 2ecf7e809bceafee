#!/bin/sh
# run-matrix.sh [--cells "A B"] [--bases "B"]: boot every cell of the
# matrix on every base (or those cells, on those bases), then print one
# summary table and write build/results/summary.tsv (rows.sh's fields,
# with 'base' first). A base boots the cells of its architectures
# (harness/bases.tsv). Exits non-zero if any cell failed.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

only_cells='' only_bases=''
while [ $# -gt 0 ]; do
	case $1 in
	--cells) only_cells=$2; shift 2 ;;
	--bases) only_bases=$2; shift 2 ;;
	*) die "run-matrix.sh: unknown option '$1'" ;;
	esac
done

sum=$BUILD_TOP/results/summary.tsv
mkdir -p "$BUILD_TOP/results"
failed=
rows=$BUILD_TOP/results/summary.rows
: >"$rows"
for b in ${only_bases:-$BASES}; do
	cells=$(base_cells "$b")
	if [ -n "$only_cells" ]; then
		cells=$(for c in $only_cells; do echo "$cells" | grep -x "$c" || true; done)
	fi
	[ -n "$cells" ] || continue
	used=$(cut -d' ' -f1,2 "$CACHE/base-$b.used" 2>/dev/null || echo "$b")
	res=$(base_build "$b")/results
	stage "matrix on $b ($used): $(echo "$cells" | wc -w) cell(s)"
	rm -f "$res"/*.row
	for c in $cells; do
		msg "    $b $c: booting"
		BASE=$b sh "$TOP/harness/run-cell.sh" "$c" || failed="$failed $b/$c"
	done
	# A VM cell's nested guest has a row of its own, CELL:guest, after
	# the cell's.
	for c in $cells; do
		[ -f "$res/$c.row" ] || row_write "$res/$c.row" cell="$c" result=FAIL failed=not-run
		for r in "$res/$c.row" "$res/$c.guest.row"; do
			[ ! -f "$r" ] || tail -n +2 "$r" | sed "s/^/$b	/"
		done
	done >>"$rows"
	stage_end
done

{
	printf 'base\t%s\n' "$(echo "$ROW_FIELDS" | tr ' ' '\t')"
	cat "$rows"
} >"$sum"
rm -f "$rows"
msg ""
for b in ${only_bases:-$BASES}; do
	msg "base $b: $(cut -d' ' -f1,2 "$CACHE/base-$b.used" 2>/dev/null || echo '?')"
done
# The table: the row's fields by name, with their headings.
awk -F'\t' '
	NR == 1 {
		for (i = 1; i <= NF; i++) col[$i] = i
		split("base cell kernel expect boot probe kernel-log tests cases oracle result time failed", f, " ")
		split("base|cell|kernel|expect|boot|probe fex/ros|kernel-log|tests p/f/s|cases p/f/s|oracle c/m/d|result|time|failed-checks", h, "|")
		split("8 21 6 17 7 13 30 11 12 14 6 5 0", w, " ")
	}
	{
		l = ""
		for (i = 1; i <= 13; i++) {
			v = NR == 1 ? h[i] : $col[f[i]]
			l = l sprintf(w[i] ? "%-" w[i] "s " : "%s", v)
		}
		sub(/ +$/, "", l)
		print l
	}' "$sum"
msg ""
total=$(tsv_field "$sum" cell host=- | wc -l)
nf=$(echo "$failed" | wc -w)
msg "matrix: $((total - nf)) passed, $nf failed"
if [ -n "$failed" ]; then
	msg "FAILED cells:$failed (see build/results/<cell>.log, build/<base>/results/<cell>.log)"
	exit 1
fi
