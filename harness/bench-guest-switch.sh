#!/bin/sh
# bench-guest-switch.sh [--rounds N] [--cells "A B"] [--output FILE]: the
# per-vCPU guest's context switches between threads of the same and of
# different models (tests/bench-guest.txt), in instructions a switch, with
# the KVM series' guest switch (on the way back to EL0) against the
# reference that makes the hypercall in the context switch. A report, not
# a test: it fails only if a run gives no figures.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

rounds=2000 only='' output=$RESULTS/bench-guest.tsv
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--cells) only=$2; shift 2 ;;
	--output) output=$2; shift 2 ;;
	*) die "bench-guest-switch.sh: unknown option '$1'" ;;
	esac
done
initrd=$(guest_initramfs arm64)
series=$(variant_image kvm-on)
reference=$BUILD_TOP/reference-kvm/kernel/kvm-on/arch/arm64/boot/Image
for f in "$initrd" "$series" "$reference" "$BUILD/qemu/qemu-system-aarch64"; do
	[ -f "$f" ] || die "no ${f#"$TOP"/}: run 'make bench-guest-kernels guest qemu'"
done

vcpio=$(dirname "$initrd")/vm.cpio
[ -f "$vcpio" ] || die "no ${vcpio#"$TOP"/}: run 'make guest'"

# vm_initrd IMAGE OUT: the guest's initramfs with /vm/Image (IMAGE, which
# the host boots as its own guest) and /vm/initramfs.cpio, as
# harness/boot-cell.sh gives a VM cell's host.
vm_initrd() {
	_st=$OUT_DIR/stash
	rm -rf "$_st"
	mkdir -p "$_st/vm"
	cp "$1" "$_st/vm/Image"
	cp "$vcpio" "$_st/vm/initramfs.cpio"
	cpio_tree "$_st" vm >"$_st.cpio"
	cat "$initrd" "$_st.cpio" >"$2"
	rm -rf "$_st" "$_st.cpio"
}
OUT_DIR=$RESULTS/bench-guest
mkdir -p "$OUT_DIR"

stage "benchmark: a per-vCPU guest's switches, series and reference, $rounds round trips"
raw=$RESULTS/bench-guest-raw.tsv
: >"$raw"
# One boot at a time: 'make bench' alone runs it, not make check.
data_lines "$TOP/tests/bench-guest.txt" | while read -r cell midr params; do
	case " ${only:-$cell} " in *" $cell "*) ;; *) continue ;; esac
	params=$(echo "$params" | sed 's/^-$//')
	for k in series reference; do
		img=$series
		[ "$k" = series ] || img=$reference
		log=$RESULTS/bench-guest-$cell-$k.log
		vm_initrd "$img" "$OUT_DIR/$k.cpio"
		qemu_boot "guest bench $cell $k" "$log" 1800 "$BUILD/qemu/qemu-system-aarch64" \
			"-M virt,virtualization=on,gic-version=3 -smp 1 -cpu max,midr=$midr,x-apple-tso=on -icount shift=0,sleep=off" \
			"$img" "$OUT_DIR/$k.cpio" \
			"console=ttyAMA0 panic=-1 mm_vm=--mem-model+tso-per-vcpu+--cpus+1 mm_vm_bench=$rounds${params:+ $params}"
		grep -aq '^guest: mem-model-bench: done' "$log" || {
			tail -n 20 "$log" >&2
			die "guest bench $cell, $k kernel: no figures (${log#"$TOP"/})"
		}
		sed -n 's/^guest: mem-model-bench: \(switch-[a-z]*\) n=\([0-9]*\) instr=\([0-9.]*\) .* models=\([a-z]*\)$/\1 \2 \3 \4/p' "$log" |
			awk -v c="$cell" -v k="$k" -v OFS='\t' '{ print c, k, $1, $3, $4 }' >>"$raw"
		msg "    $cell, $k kernel: $(grep -c "^$cell	$k	" "$raw" || true) workloads"
	done
done

awk -F'\t' -v OFS='\t' '
	{ key = $1 "\t" $3; if (!(key in seen)) { order[++n] = key; seen[key] = 1 }
	  v[key, $2] = $4; m[key, $2] = $5 }
	END {
		print "cell", "workload", "series", "reference", "series-reference", "models"
		for (i = 1; i <= n; i++) {
			k = order[i]
			printf "%s\t%.1f\t%.1f\t%+.1f\t%s/%s\n", k, v[k, "series"],
				v[k, "reference"], v[k, "series"] - v[k, "reference"],
				m[k, "series"], m[k, "reference"]
		}
	}' "$raw" >"$output"
msg ""
awk -F'\t' '{ printf "%-9s %-16s %10s %10s %17s %s\n", $1, $2, $3, $4, $5, $6 }' "$output"
msg ""
msg "    written to ${output#"$TOP"/}"
rm -rf "$OUT_DIR"
stage_end
