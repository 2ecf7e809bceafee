#!/bin/sh
# run-bench.sh: the benchmark. Boot the base kernel and the series kernel
# (BASE_IMAGE=<Image>, SERIES_IMAGE=<Image>; default the 'on' variant of each) in every
# cell of tests/bench.txt under -icount shift=0,sleep=off, run
# tests/guest/mem-model-bench.c, and print the table of base against
# series; write it to build/results/bench.tsv (or OUTPUT). ROUNDS sets the
# ping-pong round trips (default 20000; the prctl loops make 5 times as
# many calls). A report, not a test: it fails only if a run gives no
# figures.
. "$(dirname "$0")/lib.sh"

rounds=${ROUNDS:-20000}
base=${BASE_IMAGE:-$BUILD/base/kernel/on/arch/arm64/boot/Image}
series=${SERIES_IMAGE:-$BUILD/kernel/on/arch/arm64/boot/Image}
output=${OUTPUT:-$RESULTS/bench.tsv}
initrd=$(guest_initramfs arm64)
for f in "$base" "$series" "$initrd"; do
	[ -f "$f" ] || die "no $f"
done

stage "benchmark: base against series, $rounds round trips"
raw=$RESULTS/bench-raw.tsv
: >"$raw"
sed -e 's/#.*//' "$TOP/tests/bench.txt" | awk 'NF' | while read -r cell qemu flags; do
	case $qemu in
	*/*) qemu=$TOP/$qemu ;;
	esac
	for k in base series; do
		[ $k = base ] && image=$base || image=$series
		log=$RESULTS/bench-$cell-$k.log
		# shellcheck disable=SC2086
		timeout --foreground -k 5 600 "$qemu" $flags \
			-icount shift=0,sleep=off -m 1024 -nographic -nic none \
			-no-reboot -kernel "$image" -initrd "$initrd" \
			-append "console=ttyAMA0 panic=-1 mm_bench=$rounds" \
			</dev/null >"$log" 2>&1 || true
		tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"
		grep -aq '^mem-model-bench: done' "$log" || {
			tail -n 20 "$log" >&2
			die "bench cell $cell, $k kernel: no figures (build/results/bench-$cell-$k.log)"
		}
		# cell kernel workload n instr reads writes models
		sed -n 's/^mem-model-bench: \([a-z-]*\) n=\([0-9]*\) instr=\([0-9.]*\) actlr-reads=\([-0-9.]*\) actlr-writes=\([-0-9.]*\) models=\([a-z]*\)$/\1 \2 \3 \4 \5 \6/p' "$log" |
			awk -v c="$cell" -v k="$k" '{ print c "\t" k "\t" $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 }' >>"$raw"
		nw=$(grep -c "^$cell	$k	" "$raw" || true)
		msg "    $cell, $k kernel: $nw workloads"
		[ "$nw" -gt 0 ] && [ "$nw" = "${nb:-$nw}" ] ||
			die "bench cell $cell: the $k kernel gave $nw workloads, the base ${nb:-0}"
		nb=$nw
	done
	nb=
done

# One row a cell and workload: base against series, and the target of
# SPEC section 9 where there is one. Without Apple TSO the three switch
# workloads of one kernel run the same code, and their counts spread by up
# to about 1.5 instructions per switch; "+0 instr" is judged on their mean,
# and met below 2 (the nop that the patched-out check leaves in
# __switch_to is one). The ACTLR_EL1 targets are exact counts.
awk -F'\t' -v OFS='\t' '
	{ key = $1 "\t" $3; if (!(key in seen)) { order[++n] = key; seen[key] = 1 }
	  v[key, $2] = $5; r[key, $2] = $6; w[key, $2] = $7; m[key, $2] = $8 }
	END {
		# The mean added per switch of each cell without Apple TSO.
		for (i = 1; i <= n; i++) {
			split(order[i], a, "\t")
			if (a[2] !~ /^switch/ || a[1] == "apple")
				continue
			sum[a[1]] += v[order[i], "series"] - v[order[i], "base"]
			cnt[a[1]]++
		}
		print "cell", "workload", "unit", "base", "series", "added", "added%",
		      "actlr-r/w base", "actlr-r/w series", "models base/series", "target", "met"
		for (i = 1; i <= n; i++) {
			k = order[i]; split(k, a, "\t"); cell = a[1]; wl = a[2]
			b = v[k, "base"]; s = v[k, "series"]
			unit = wl ~ /^switch/ ? "switch" : "call"
			target = "-"; met = "-"
			if (wl ~ /^switch/ && cell != "apple") {
				target = "+0 instr"
				met = (sum[cell] / cnt[cell] < 2) ? "yes" : "no"
			} else if (wl ~ /^switch/) {
				want = wl == "switch-mixed" ? 1 : 0
				target = "0 reads, " want " write" (want ? "" : "s")
				met = (r[k, "series"] + 0 == 0 && w[k, "series"] + 0 == want) ? "yes" : "no"
			}
			printf "%s\t%s\t%s\t%.1f\t%.1f\t%+.1f\t%+.2f%%\t%s/%s\t%s/%s\t%s/%s\t%s\t%s\n",
				cell, wl, unit, b, s, s - b, b ? 100 * (s - b) / b : 0,
				r[k, "base"], w[k, "base"], r[k, "series"], w[k, "series"],
				m[k, "base"], m[k, "series"], target, met
		}
	}' "$raw" >"$output"

msg ""
awk -F'\t' '{ printf "%-8s %-15s %-7s %9s %9s %7s %8s %-15s %-15s %-17s %-16s %s\n",
	$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }' "$output"
msg ""
msg "    written to ${output#"$TOP"/}"
stage_end
