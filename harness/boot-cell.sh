#!/bin/sh
# boot-cell.sh [OPTIONS] CELL: boot one cell of the matrix under QEMU and
# record what ran, for judge-cell.sh. Writes, in build/results/:
#   NAME.log          the console, one line a line (untangle-console.sh)
#   NAME.boot         the record: KEY=VALUE lines (below)
#   NAME.monitor.log  a singlestep cell's QEMU monitor
# Exits non-zero only if the cell cannot be booted; how the boot went is
# the judge's to say.
# Options:
#   --matrix FILE        the cell's matrix (default tests/matrix.txt)
#   --name NAME          the results' name (default CELL)
#   --kernel IMAGE       boot IMAGE instead of the cell's kernel variant
#   --tests TESTS        the cell's tests column replaced by TESTS
#   --oracle-seconds N   the oracle stress's seconds, whatever the cell says
#   --no-guest-tests     a VM cell's nested guest runs no kselftest
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

name='' image='' tests='' osecs='' guest_tests=yes
while [ $# -gt 1 ]; do
	case $1 in
	--matrix) MATRIX=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--kernel) image=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--oracle-seconds) osecs=$2; shift 2 ;;
	--no-guest-tests) guest_tests=; shift ;;
	*) die "boot-cell.sh: unknown option '$1'" ;;
	esac
done
cell=${1:?usage: boot-cell.sh [OPTIONS] CELL}
case $cell in -*) die "boot-cell.sh: no cell given" ;; esac
name=${name:-$cell}
line=$(cell_line "$cell")
[ -n "$line" ] || die "no cell '$cell' in ${MATRIX#"$TOP"/}"
if [ -n "$tests" ]; then
	line=$(echo "$line" | awk -v t="$tests" '{ $6 = t; print }')
fi
cell_load "$line"
[ -z "$osecs" ] || [ -z "$t_oracle_secs" ] || t_oracle_secs=$osecs

qemu=$cell_qemu
# A QEMU given as a path is the harness' own build (qemu/).
case $qemu in
*/*)
	qemu=$TOP/$qemu
	[ -x "$qemu" ] || die "cell $cell: no $qemu: run harness/build-qemu.sh"
	;;
esac

# A kernel 'base/NAME' is the variant NAME built from the base commit
# (harness/build-base-kernel.sh).
variant=${cell_kernel#base/}
arch=$(variant_arch "$variant")
if [ -n "$image" ]; then
	:
elif [ "$variant" != "$cell_kernel" ]; then
	image=$BUILD/base/kernel/$variant/$(arch_image "$arch")
else
	image=$(variant_image "$variant")
fi
initrd=$(guest_initramfs "$arch")
case $arch in
arm64) console=ttyAMA0 ;;
x86_64) console=ttyS0 ;;
esac
[ -f "$image" ] || die "cell $cell: no kernel image $image"
[ -f "$initrd" ] || die "cell $cell: no initramfs: run harness/build-guest.sh"
guest_dir=$(dirname "$initrd")
work=$RESULTS/$name.initrd
rm -f "$work"

# add_cpio CPIO...: the initrd becomes the current one with CPIO... after
# it (the kernel unpacks them in turn, a later file over an earlier one).
add_cpio() {
	cat "$initrd" "$@" >"$work.tmp"
	mv "$work.tmp" "$work"
	initrd=$work
}

# add_kernel DIR IMAGE INITRD: the initrd gets /DIR/Image and
# /DIR/initramfs.cpio (a kernel for the guest to start, and its initramfs).
add_kernel() {
	a_stash=$RESULTS/$name.$1
	rm -rf "$a_stash"
	mkdir -p "$a_stash/$1"
	cp "$2" "$a_stash/$1/Image"
	cp "$3" "$a_stash/$1/initramfs.cpio"
	cpio_tree "$a_stash" "$1" >"$a_stash.cpio"
	add_cpio "$a_stash.cpio"
	rm -rf "$a_stash" "$a_stash.cpio"
}

# The first part of the series alone boots with that part's own mem_model
# kselftest (harness/build-guest.sh), unpacked over the series' one.
if is_part1_variant "$variant"; then
	[ -f "$guest_dir/core-kselftest.cpio" ] ||
		die "cell $cell: no $guest_dir/core-kselftest.cpio: run harness/build-guest.sh"
	add_cpio "$guest_dir/core-kselftest.cpio"
fi

cmdline="console=$console panic=-1"
for p in $t_params; do
	cmdline="$cmdline $p"
done
[ -z "$t_collections" ] || cmdline="$cmdline mm_tests=$t_collections"
[ -z "$t_oracle_min" ] ||
	cmdline="$cmdline mm_oracle=$t_oracle_secs mm_oracle_min=$t_oracle_min"

# The kexec test (tests/guest/mem-model-kexec.c): the small guest with
# the kernel variant to kexec into; the guest kexecs from a TSO thread.
if [ -n "$t_kexec" ]; then
	target=$(variant_image "$t_kexec")
	small=$guest_dir/kexec.cpio
	[ -f "$target" ] || die "cell $cell: no kernel image $target"
	[ -f "$small" ] || die "cell $cell: no $small: run harness/build-guest.sh"
	initrd=$small
	add_kernel kexec "$target" "$small"
	cmdline="$cmdline mm_kexec=go"
fi

# A KVM host that boots the same kernel as a nested guest
# (tests/guest/mem-model-vmm.c), as tests/vm.tsv's row for the opt-in
# says: the VMM's flags, the guest's expectation row, its oracle mode and
# fewest checks, its kselftests, and the VMM's runs before it.
vm_flags='' vm_expect='' vm_tests='' vm_oracle='' vm_before=''
if [ -n "$t_vm" ]; then
	vline=$(opt_row "$TOP/tests/vm.tsv" "$t_vm")
	[ -n "$vline" ] || die "cell $cell: no opt-in '$t_vm' in tests/vm.tsv"
	# shellcheck disable=SC2086
	set -- $vline
	vm_flags=$2 vm_expect=$3 vmode=$4 vchecks=$5 vm_tests=${6:--} vm_before=${7:--}
	[ -n "$guest_tests" ] || vm_tests=-
	[ "$vm_tests" != - ] || vm_tests=
	[ "$vm_before" != - ] || vm_before=
	[ "$vm_flags" != none ] || vm_expect=
	vcpio=$guest_dir/vm.cpio
	[ -f "$vcpio" ] || die "cell $cell: no $vcpio: run harness/build-guest.sh"
	add_kernel vm "$image" "$vcpio"
	cmdline="$cmdline mm_vm=$vm_flags${vm_tests:+ mm_vm_tests=$vm_tests}"
	# The VMM's runs before the guest, without their ok:/refused:.
	if [ -n "$vm_before" ]; then
		runs=$(echo "$vm_before" | tr , '\n' | sed 's/^[a-z]*://' | paste -sd, -)
		cmdline="$cmdline mm_vm_before=$runs"
	fi
	# The nested guest's stress: its row's fewest checks, in 5 s and on
	# until it has them. A row without ('-') runs none: its host's CPU
	# has no oracle (vm-no-tso).
	if [ -n "$vm_expect" ] && [ "$vchecks" != - ]; then
		vm_oracle=5:$vchecks
		cmdline="$cmdline mm_vm_oracle=5 mm_vm_oracle_min=$vchecks"
		[ "$vmode" = - ] || cmdline="$cmdline mm_vm_oracle_mode=$vmode"
	fi
fi

# "singlestep": once the guest's init starts, QEMU runs one instruction a
# translation block (the monitor's "singlestep on", through a pipe), so
# that an interrupt can land between any two instructions of what runs
# next. The guest waits 3 s (mm_settle) before its tests.
mon=
flags=$cell_flags
if [ -n "$t_singlestep" ]; then
	mon=$RESULTS/$name.monitor
	rm -f "$mon.in" "$mon.out" "$mon.log"
	mkfifo "$mon.in" "$mon.out"
	cmdline="$cmdline mm_settle=3"
	flags="$flags -monitor pipe:$mon"
fi

log=$RESULTS/$name.log
rec=$RESULTS/$name.boot
rm -f "$rec"
stepped=
# step SECONDS: switch to single steps once the guest's init has started.
step() {
	if [ -z "$stepped" ] && grep -aq '^mem-model-harness: start' "$log"; then
		printf 'singlestep on\r\ninfo status\r\n' >&3
		stepped=$1
	fi
}
if [ -n "$mon" ]; then
	cat "$mon.out" >"$mon.log" &
	mpid=$!
	# Read-write: the open does not wait for QEMU.
	exec 3<>"$mon.in"
fi
qemu_boot "$name" "$log" "$cell_timeout" "$qemu" "$flags" "$image" "$initrd" \
	"$cmdline" ${mon:+step}
rm -f "$work"
if [ -n "$mon" ]; then
	exec 3>&-
	kill "$mpid" 2>/dev/null || true
	rm -f "$mon.in" "$mon.out"
fi

# The record: the cell's line as booted, and what the boot asked of the
# guest, for judge-cell.sh.
{
	echo "cell=$cell"
	printf 'line=%s\n' "$line"
	echo "rc=$qemu_rc"
	echo "secs=$qemu_secs"
	echo "oracle=${t_oracle_min:+$t_oracle_min:$t_oracle_secs}"
	echo "vm_expect=$vm_expect"
	echo "vm_tests=$vm_tests"
	echo "vm_oracle=$vm_oracle"
	echo "vm_before=$vm_before"
	echo "guest_tests=$guest_tests"
	echo "singlestep=$t_singlestep"
	echo "stepped=$stepped"
} >"$rec.tmp"
mv "$rec.tmp" "$rec"
