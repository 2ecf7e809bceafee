#!/bin/sh
# The regression guard: boot the cells of tests/regressions.txt (upstream's
# kselftests on the base kernel and on the series; upstream's KVM
# selftests on a KVM host without and with the KVM series). Each cell
# must boot, probe and keep a clean kernel log; its only failing tests
# and cases may be those tests/regressions-known.txt lists, which the
# guest cannot pass; and every test and case must give the same result
# in all cells.
# Results per cell: build/results/CELL.results, one line a test or case:
# "TEST<tab>CASE<tab>RESULT" (CASE '-' for the test itself; RESULT ok,
# fail or skip).
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

MATRIX=$TOP/tests/regressions.txt
cells=$(matrix_lines | awk '{ print $1 }')

known=$TOP/tests/regressions-known.txt

stage "regression guard: $(echo "$cells" | paste -sd' ' -) must give the same results"
# Two cells at a time: under -icount each keeps one host thread busy, and
# the guest's clock counts its own instructions, so a cell gives the same
# results beside another as alone.
n=0
for c in $cells; do
	msg "    $c: booting"
	rm -f "$LOGS/$c.rc"
	{
		rc=0
		# The guard's judge is base against series, not expected counts.
		sh "$TOP/harness/run-cell.sh" --matrix "$MATRIX" --counts none "$c" \
			>"$LOGS/$c.out" 2>&1 || rc=$?
		echo "$rc" >"$LOGS/$c.rc"
	} &
	n=$((n + 1))
	[ $((n % 2)) -ne 0 ] || wait
done
wait
# A cell fails the guard for anything but its test results (boot, probe,
# kernel log, plan); those are judged below, against the known failures.
failed=
for c in $cells; do
	[ "$(cat "$LOGS/$c.rc" 2>/dev/null)" != 0 ] || continue
	why=$(tsv_field "$RESULTS/$c.row" failed 2>/dev/null || echo not-run)
	for w in $why; do
		case $w in
		tests | cases) ;;
		*)
			cat "$LOGS/$c.out"
			failed="$failed $c"
			break
			;;
		esac
	done
done

# The results of each cell's KTAP (rows.sh's ktap_results).
for c in $cells; do
	[ -f "$RESULTS/$c.ktap" ] || continue
	ktap_results "$RESULTS/$c.ktap" | sort >"$RESULTS/$c.results"
	msg "    $c: $(cut -f3 "$RESULTS/$c.results" | sort | uniq -c | awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }') (tests and cases)"
done

# Every failure must be a known one of the guest (tests/regressions-known.txt:
# TEST<tab>CASE<tab>why).
unknown=
for c in $cells; do
	[ -f "$RESULTS/$c.results" ] || continue
	awk -F'\t' 'FILENAME == ARGV[1] { if ($0 !~ /^#/ && NF) k[$1 FS $2] = 1; next }
		$3 == "fail" && !(($1 FS $2) in k)' "$known" "$RESULTS/$c.results" \
		>"$RESULTS/$c.unknown"
	if [ -s "$RESULTS/$c.unknown" ]; then
		unknown="$unknown $c"
		msg "    $c: failures that tests/regressions-known.txt does not list:"
		head -n 40 "$RESULTS/$c.unknown" | sed 's/^/      /'
	fi
done

# Cells that run the same tests (the same 'tests' column) are compared with
# the first of them: the base kernel with the series.
differ=
summary=
for c in $cells; do
	tests=$(cell_line "$c" | awk '{ print $6 }')
	first=$(matrix_lines | awk -v t="$tests" '$6 == t { print $1; exit }')
	if [ "$c" = "$first" ]; then
		n=0
		[ ! -f "$RESULTS/$c.results" ] || n=$(wc -l <"$RESULTS/$c.results")
		summary="$summary; $n tests and cases on $c"
		continue
	fi
	summary="$summary, $c"
	if [ ! -s "$RESULTS/$first.results" ] || [ ! -s "$RESULTS/$c.results" ]; then
		differ="$differ $c"
		continue
	fi
	if ! diff -U0 "$RESULTS/$first.results" "$RESULTS/$c.results" \
		>"$RESULTS/$c.results.diff"; then
		differ="$differ $c"
		msg "    $c differs from $first (- $first, + $c):"
		grep '^[-+][^-+]' "$RESULTS/$c.results.diff" | head -n 40 |
			sed 's/^/      /'
	fi
done
stage_end
problems=
[ -z "$failed" ] || problems="$problems; cell(s)$failed failed (build/results/<cell>.log)"
[ -z "$unknown" ] || problems="$problems; unknown failures in$unknown"
[ -z "$differ" ] || problems="$problems; results of$differ differ from the base kernel's"
[ -z "$problems" ] || die "regression guard: ${problems#; }"
msg "regression guard: the same results:${summary#;}"
