#!/bin/sh
# The tests must be able to fail. For each planted defect of
# tests/defects.txt, build the cell's kernel variant (debug, or kvm for
# a VM cell, from the KVM series' tree) of the mainline series with
# tests/defects/NAME.patch, boot
# it in the cell the list names, and require that the cell fails on the
# check it names. A cell "bench:CELL" is a cell of tests/bench-vm.txt:
# the KVM series' kernel with the defect is benchmarked there against the
# kernel without the KVM series (make check's smoke run), and the exit
# row the check names must miss its target. A cell "vmlinux" boots
# nothing: the debug kernel's vmlinux with the defect must fail the
# static check harness/check-CHECK.sh (what no boot under TCG can see).
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
# The worktree and the kernel build sit as build/linux and build/kernel/X
# do, one level down: the compiler sees the same relative paths, so ccache
# reuses the debug kernel's objects for every file the defect leaves alone.
src=$BUILD/defect/linux
[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"
head=$(git -C "$TREE" rev-parse HEAD)

stage "defect self-test: planted defects must fail their cells"
worktree_at "$src" "$head"
data_lines "$TOP/tests/defects.txt" |
while read -r name cell check; do
	d=$TOP/tests/defects/$name.patch
	[ -f "$d" ] || die "tests/defects.txt names $name, but there is no tests/defects/$name.patch"
	case $cell in
	vmlinux)
		line=- variant=debug
		[ -f "$TOP/harness/check-$check.sh" ] ||
			die "tests/defects.txt: $name: no harness/check-$check.sh"
		;;
	bench:*)
		line=- variant=kvm-on
		[ -n "$(opt_row "$TOP/tests/bench-vm.txt" "${cell#bench:}")" ] ||
			die "tests/defects.txt: no cell '${cell#bench:}' in tests/bench-vm.txt"
		;;
	*)
		line=$(cell_line "$cell")
		[ -n "$line" ] || die "tests/defects.txt: no cell '$cell' in ${MATRIX#"$TOP"/}"
		cell_load "$line"
		variant=$cell_kernel
		;;
	esac
	# A VM cell's kernel is built from the KVM series' tree.
	h=$head what=series
	if is_kvm_variant "$variant"; then
		h=$(git -C "$KVM_TREE" rev-parse HEAD) what="KVM series"
	fi
	git -C "$src" checkout -qf --detach "$h"
	git -C "$src" apply "$d" ||
		die "the planted defect tests/defects/$name.patch no longer applies to the $what"
	# Committed, so that the build has a key (build_key, lib.sh): the
	# cell boots only the image, which a build of the same defect on the
	# same tree may have left in the cache. -f: Debian's .gitignore
	# ignores every new file, and a new file is part of the defect.
	git -C "$src" add -A -f
	git -C "$src" -c user.name=harness -c user.email=harness@localhost \
		commit -q --no-verify -m "planted defect $name"
	# One build directory a variant: each defect rebuilds only what it
	# and the one before it changed, from ccache.
	kdir=$BUILD/defect/kernel/$variant
	# A static check reads vmlinux, which an image from the cache lacks.
	only=--image-only
	[ "$cell" != vmlinux ] || only=
	sh "$TOP/harness/build-kernel.sh" $only --out "$kdir" "$variant" "$src"

	out=$LOGS/defect-$name.log
	if [ "$cell" = vmlinux ]; then
		if sh "$TOP/harness/check-$check.sh" "$kdir/vmlinux" >"$out" 2>&1; then
			cat "$out"
			die "harness/check-$check.sh passed on a vmlinux with the planted defect '$name'"
		fi
		msg "    planted defect '$name': harness/check-$check.sh fails on its vmlinux, as it must ($(grep -v '^[=<]' "$out" | head -n 1 | sed 's/^ *//'))"
		continue
	fi
	if [ "$line" = - ]; then
		bt=$RESULTS/defect-$name-bench.tsv
		if sh "$TOP/harness/bench-exits.sh" --gate --cells "${cell#bench:}" \
			--series-image "$kdir/arch/arm64/boot/Image" --output "$bt" >"$out" 2>&1; then
			cat "$out"
			die "the vCPU exits of bench cell ${cell#bench:} met their targets with the planted defect '$name'"
		fi
		met=$(tsv_field "$bt" met workload="$check")
		[ "$met" = no ] || {
			cat "$out"
			die "with '$name', bench cell ${cell#bench:} missed a target, but not $check's"
		}
		msg "    planted defect '$name': bench cell ${cell#bench:} misses $check's target, as it must ($(tsv_field "$bt" base workload="$check") -> $(tsv_field "$bt" series workload="$check") instructions an exit, $(tsv_field "$bt" target workload="$check"))"
		continue
	fi

	# The cell, under another name, so that its results do not replace
	# the matrix's; its oracle stress shorter, and a VM cell's guest
	# without its kselftests: the VM defects must fail on the guest's
	# oracle.
	d=defect-$name
	if sh "$TOP/harness/run-cell.sh" --name "$d" --kernel "$kdir/arch/arm64/boot/Image" \
		--oracle-seconds 5 --no-guest-tests --counts-cell "$cell" "$cell" >"$out" 2>&1; then
		cat "$out"
		die "cell $cell passed on a kernel with the planted defect '$name'"
	fi
	why=$(tsv_field "$RESULTS/$d.row" failed)
	case " $why " in
	*" $check "*) ;;
	*)
		cat "$out"
		die "with '$name', cell $cell failed on '$why', but not on '$check'"
		;;
	esac
	gfig=
	[ ! -f "$RESULTS/$d.guest.row" ] ||
		gfig=", guest oracle c/m/d $(tsv_field "$RESULTS/$d.guest.row" oracle)"
	msg "    planted defect '$name': cell $cell fails on $why, as it must (cases p/f/s $(tsv_field "$RESULTS/$d.row" cases), oracle c/m/d $(tsv_field "$RESULTS/$d.row" oracle)$gfig)"
done
git -C "$src" checkout -qf --detach "$head"
stage_end
