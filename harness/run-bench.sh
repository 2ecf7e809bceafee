#!/bin/sh
# run-bench.sh [OPTIONS]: the benchmark. Boot the base kernel, the series
# kernel and the reference design (tests/reference/) in every cell of
# tests/bench.txt under -icount shift=0,sleep=off, for each compiler
# level (the 'on' and 'os' variants, -O2 and -Os), run
# tests/guest/mem-model-bench.c, and print the table of base against
# series and series against the reference, with the targets of
# tests/bench-budgets.tsv; write it to build/results/bench.tsv. A report,
# not a test: it fails only if a run gives no figures, or with
# --gate-exits if a vCPU exit row misses its target.
# Options:
#   --bench FILE        the cells (tests/bench-vm.txt: KVM hosts, whose
#                       guest measures vCPU exits too)
#   --cells "A B"       those cells alone
#   --rounds N          ping-pong round trips (20000; the prctl loops make
#                       5 times as many calls)
#   --levels "on os"    the kernel variants compared, base and series
#   --no-reference      leave the reference design out
#   --base-image IMG --series-image IMG [--reference-image IMG]
#                       compare these arm64 images instead of the levels'
#   --cc-label L        the given images' compiler level in the table
#   --output FILE       the table (build/results/bench.tsv)
#   --gate-exits        fail if a vCPU exit row misses its target
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

bench=$TOP/tests/bench.txt only='' rounds=20000 levels="on os" reference=yes
base_image='' series_image='' reference_image='' cc_label=given
output=$RESULTS/bench.tsv gate=''
while [ $# -gt 0 ]; do
	case $1 in
	--bench) bench=$2; shift 2 ;;
	--cells) only=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--levels) levels=$2; shift 2 ;;
	--no-reference) reference=-; shift ;;
	--base-image) base_image=$2; shift 2 ;;
	--series-image) series_image=$2; shift 2 ;;
	--reference-image) reference_image=$2; shift 2 ;;
	--cc-label) cc_label=$2; shift 2 ;;
	--output) output=$2; shift 2 ;;
	--gate-exits) gate=1; shift ;;
	*) die "run-bench.sh: unknown option '$1'" ;;
	esac
done
initrd=$(guest_initramfs arm64)
if [ -n "$base_image$series_image" ]; then
	if [ -z "$base_image" ] || [ -z "$series_image" ]; then
		die "--base-image and --series-image go together"
	fi
	levels=given
	[ -n "$reference_image" ] || reference=-
fi
kinds="base series"
[ "$reference" = - ] || kinds="$kinds reference"

# image KIND LEVEL
image() {
	case $1/$2 in
	base/given) echo "$base_image" ;;
	series/given) echo "$series_image" ;;
	reference/given) echo "$reference_image" ;;
	base/*) echo "$BUILD/base/kernel/$2/arch/arm64/boot/Image" ;;
	series/*) echo "$BUILD/kernel/$2/arch/arm64/boot/Image" ;;
	reference/*) echo "$BUILD/reference/kernel/$2/arch/arm64/boot/Image" ;;
	esac
}

for l in $levels; do
	for k in $kinds; do
		f=$(image "$k" "$l")
		[ -f "$f" ] || die "no $f"
	done
done
[ -f "$initrd" ] || die "no $initrd"

stage "benchmark: $(echo "$kinds" | sed 's/ /, /g') kernels, $rounds round trips, variants: $levels"
raw=$RESULTS/bench-raw.tsv
: >"$raw"

# cells: the cells of $bench that run, in its order.
cells() {
	data_lines "$bench" | while read -r cell _; do
		case " ${only:-$cell} " in *" $cell "*) echo "$cell" ;; esac
	done
}

# boot CELL LEVEL KIND: boot the KIND kernel of LEVEL in CELL, its console
# to build/results/bench-CELL-LEVEL-KIND.log, and the seconds it took
# beside it (.secs).
boot() {
	data_lines "$bench" | awk -v c="$1" '$1 == c' | {
		read -r _ qemu params flags
		params=$(echo "$params" | sed 's/^-$//; s/+/ /g')
		case $qemu in
		*/*) qemu=$TOP/$qemu ;;
		esac
		log=$RESULTS/bench-$1-$2-$3.log
		qemu_boot "bench $1 $2 $3" "$log" 900 "$qemu" \
			"$flags -icount shift=0,sleep=off" "$(image "$3" "$2")" "$initrd" \
			"console=ttyAMA0 panic=-1 mm_bench=$rounds${params:+ $params}"
		echo "$qemu_secs" >"${log%.log}.secs"
	}
}

# The boots, two at a time: each runs -smp 1 under -icount
# shift=0,sleep=off, one host thread, and its guest's clock counts its own
# instructions, so a kernel gives the same figures beside another boot as
# alone (as the regression guard's cells do). The longest first, by the
# seconds each took last time (those never timed first, in the list's
# order), so that the last one does not run alone for long.
order=$(for cell in $(cells); do
	for l in $levels; do
		for k in $kinds; do
			secs=$(cat "$RESULTS/bench-$cell-$l-$k.secs" 2>/dev/null || echo 999999)
			echo "$secs $cell $l $k"
		done
	done
done | awk '{ print $1, NR, $2, $3, $4 }' | sort -k1,1nr -k2,2n | cut -d' ' -f3-)
msg "    $(printf '%s' "$order" | grep -c .) boots, two at a time"
pids=''
while read -r cell l k; do
	[ -n "$cell" ] || continue
	# Two boots at most: wait until one of those running ends.
	while [ "$(for p in $pids; do ! kill -0 "$p" 2>/dev/null || echo "$p"; done | wc -l)" -ge 2 ]; do
		sleep 1
	done
	rm -f "$RESULTS/bench-$cell-$l-$k.log" "$RESULTS/bench-$cell-$l-$k.secs"
	boot "$cell" "$l" "$k" &
	pids="$pids $!"
done <<EOF
$order
EOF
failed=0
for p in $pids; do
	wait "$p" || failed=$((failed + 1))
done
[ "$failed" = 0 ] || die "$failed benchmark boot(s) failed"

# Their figures, in the list's order, each cell and level base first.
for cell in $(cells); do
	for l in $levels; do
		nb=
		for k in $kinds; do
			log=$RESULTS/bench-$cell-$l-$k.log
			grep -aq '^mem-model-bench: done' "$log" || {
				tail -n 20 "$log" >&2
				die "bench cell $cell, $l $k kernel: no figures (${log#"$TOP"/})"
			}
			# cell level kernel workload n instr reads writes models
			sed -n 's/^mem-model-bench: \([a-z-]*\) n=\([0-9]*\) instr=\([0-9.]*\) actlr-reads=\([-0-9.]*\) actlr-writes=\([-0-9.]*\) models=\([a-z]*\)$/\1 \2 \3 \4 \5 \6/p' "$log" |
				awk -v c="$cell" -v l="$l" -v k="$k" -v OFS='\t' \
					'{ print c, l, k, $1, $2, $3, $4, $5, $6 }' >>"$raw"
			nw=$(grep -c "^$cell	$l	$k	" "$raw" || true)
			msg "    $cell, $l, $k kernel: $nw workloads ($(cat "${log%.log}.secs")s)"
			if [ "$nw" -eq 0 ] || [ "$nw" != "${nb:-$nw}" ]; then
				die "bench cell $cell, $l: the $k kernel gave $nw workloads, the base ${nb:-0}"
			fi
			nb=$nw
		done
	done
done

# One row a cell, compiler level and workload: base against series, the
# reference design, and the target of tests/bench-budgets.tsv where there
# is one (its comments say how each kind is judged).
data_lines "$TOP/tests/bench-budgets.tsv" >"$raw.budgets"
awk -F'\t' -v OFS='\t' -v cclabel="$cc_label" '
	FILENAME == ARGV[1] {
		split($0, t, /[ \t]+/)
		nc = split(t[1], cs, ",")
		for (i = 1; i <= nc; i++) {
			bk = cs[i] SUBSEP t[2]
			badd[bk] = t[3]; brd[bk] = t[4]; bwr[bk] = t[5]; bref[bk] = t[6]
		}
		next
	}
	{ key = $1 "\t" $2 "\t" $4
	  if (!(key in seen)) { order[++n] = key; seen[key] = 1 }
	  v[key, $3] = $6; r[key, $3] = $7; w[key, $3] = $8; m[key, $3] = $9 }
	function lv(l) { return l == "on" ? "O2" : l == "os" ? "Os" : l == "given" ? cclabel : l }
	# count(SPEC, X, WHAT): the target text of an access count SPEC, and
	# whether X meets it (ok).
	function count(spec, x, what,    lim) {
		if (spec == "-") return ""
		lim = spec; sub(/^<=/, "", lim)
		ok = ok && (spec ~ /^<=/ ? x + 0 <= lim + 0 : x + 0 == lim + 0)
		return (spec ~ /^<=/ ? "<= " : "") lim " " what (lim == 1 ? "" : "s")
	}
	function add(s, t) { return s == "" ? t : t == "" ? s : s ", " t }
	END {
		# "=": the mean added over the cell'"'"'s switch-default and
		# switch-tso, whose counts repeat to 0.1 between runs.
		for (i = 1; i <= n; i++) {
			split(order[i], a, "\t")
			if (a[3] !~ /^switch-(default|tso)$/ || !((a[1], a[3]) in badd) ||
			    badd[a[1], a[3]] != "=")
				continue
			sum[a[1], a[2]] += v[order[i], "series"] - v[order[i], "base"]
			cnt[a[1], a[2]]++
		}
		print "cell", "cc", "workload", "unit", "base", "series", "added",
		      "added%", "r&w", "vs r&w", "actlr-r/w base", "actlr-r/w series",
		      "actlr-r/w r&w", "models base/series", "target", "met"
		for (i = 1; i <= n; i++) {
			k = order[i]; split(k, a, "\t"); cell = a[1]; l = a[2]; wl = a[3]
			b = v[k, "base"]; s = v[k, "series"]
			hasref = (k SUBSEP "reference") in v
			ref = hasref ? sprintf("%.1f", v[k, "reference"]) : "-"
			vsref = hasref ? sprintf("%+.1f", s - v[k, "reference"]) : "-"
			rwref = hasref ? r[k, "reference"] "/" w[k, "reference"] : "-"
			unit = wl ~ /^switch/ ? "switch" : wl == "sleep-wake" ? "sleep" : \
			       wl == "tso-kworker" ? "kwork" : wl ~ /^vcpu-exit/ ? "exit" : \
			       wl == "exec" ? "exec" : "call"
			target = "-"; met = "-"
			bk = cell SUBSEP wl
			if (bk in badd) {
				ok = 1; target = ""
				if (badd[bk] == "=") {
					d = sum[cell, l] / cnt[cell, l]
					ok = d < 0.5 && d > -0.5
					target = "= base"
				} else if (badd[bk] != "-") {
					ok = s - b < badd[bk] + 0.5
					target = "<= +" badd[bk] " instr"
				}
				target = add(target, count(brd[bk], r[k, "series"], "read"))
				target = add(target, count(bwr[bk], w[k, "series"], "write"))
				if (hasref && (bref[bk] == "all" || (bref[bk] == "O2" && l == "on"))) {
					target = add(target, "<= r&w")
					if (s - v[k, "reference"] >= 0.5)
						ok = 0
				}
				met = ok ? "yes" : "no"
			}
			printf "%s\t%s\t%s\t%s\t%.1f\t%.1f\t%+.1f\t%+.2f%%\t%s\t%s\t%s/%s\t%s/%s\t%s\t%s/%s\t%s\t%s\n",
				cell, lv(l), wl, unit, b, s, s - b, b ? 100 * (s - b) / b : 0,
				ref, vsref, r[k, "base"], w[k, "base"], r[k, "series"], w[k, "series"],
				rwref, m[k, "base"], m[k, "series"], target, met
		}
	}' "$raw.budgets" "$raw" >"$output"
rm -f "$raw.budgets"


msg ""
awk -F'\t' '{ printf "%-11s %-5s %-18s %-6s %9s %9s %7s %8s %9s %7s %-14s %-14s %-14s %-15s %-27s %s\n",
	$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16 }' "$output"
msg ""
msg "    written to ${output#"$TOP"/}"
# --gate-exits (make check's smoke run, and the planted defect that adds
# an out-of-line call to every vCPU load): the exit rows must meet their
# targets, which are instruction and register-access counts, not times.
if [ -n "$gate" ]; then
	missed=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["unit"] == "exit" && $c["met"] == "no" { print $c["cell"] "/" $c["workload"] }' "$output" |
		paste -sd' ' -)
	[ -z "$missed" ] || die "vCPU exits over their budget: $missed"
	msg "    every vCPU exit row meets its target"
fi
stage_end
