#!/bin/sh
# The tests must be able to fail. For each planted defect of
# tests/defects.txt, build the cell's kernel variant (debug, or kvm for
# a VM cell, from the KVM series' tree) of the mainline series with
# tests/defects/NAME.patch, boot
# it in the cell the list names, and require that the cell fails on the
# check it names. A cell "bench:CELL" is a cell of tests/bench-vm.txt:
# the KVM series' kernel with the defect is benchmarked there against the
# kernel without the KVM series (make check's smoke run), and the exit
# row the check names must miss its target.
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
sed -e 's/#.*//' "$TOP/tests/defects.txt" | awk 'NF' |
while read -r name cell check; do
	d=$TOP/tests/defects/$name.patch
	[ -f "$d" ] || die "tests/defects.txt names $name, but there is no tests/defects/$name.patch"
	case $cell in
	bench:*)
		line=- variant=kvm-on
		grep -q "^${cell#bench:}[	 ]" "$TOP/tests/bench-vm.txt" ||
			die "tests/defects.txt: no cell '${cell#bench:}' in tests/bench-vm.txt"
		;;
	*)
		line=$(matrix_lines | awk -v c="$cell" '$1 == c')
		[ -n "$line" ] || die "tests/defects.txt: no cell '$cell' in ${MATRIX#"$TOP"/}"
		variant=$(echo "$line" | awk '{ print $3 }')
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
	sh "$TOP/harness/build-kernel.sh" --image-only --out "$kdir" "$variant" "$src"

	if [ "$line" = - ]; then
		out=$LOGS/defect-$name.log
		bt=$RESULTS/defect-$name-bench.tsv
		if VM_SMOKE_CELLS=${cell#bench:} sh "$TOP/harness/bench-exits-smoke.sh" \
			"$kdir/arch/arm64/boot/Image" "$bt" >"$out" 2>&1; then
			cat "$out"
			die "the vCPU exits of bench cell ${cell#bench:} met their targets with the planted defect '$name'"
		fi
		row=$(awk -F'\t' -v w="$check" '$3 == w && $4 == "exit"' "$bt")
		[ "$(echo "$row" | cut -f16)" = no ] || {
			cat "$out"
			die "with '$name', bench cell ${cell#bench:} missed a target, but not $check's"
		}
		msg "    planted defect '$name': bench cell ${cell#bench:} misses $check's target, as it must ($(echo "$row" | cut -f5) -> $(echo "$row" | cut -f6) instructions an exit, $(echo "$row" | cut -f15))"
		continue
	fi

	# The cell, renamed, so that its results do not replace the matrix's;
	# its oracle stress shorter, and a VM cell's guest without its
	# kselftests: the VM defects must fail on the guest's oracle.
	m=$BUILD/defect-$name-matrix.txt
	echo "$line" | awk -v n="defect-$name" '{ $1 = n; print }' >"$m"
	out=$LOGS/defect-$name.log
	if MATRIX=$m KERNEL=$kdir/arch/arm64/boot/Image COUNTS_CELL=$cell \
		ORACLE_SECONDS=${ORACLE_SECONDS:-5} VM_TESTS=- \
		sh "$TOP/harness/run-cell.sh" "defect-$name" >"$out" 2>&1; then
		cat "$out"
		die "cell $cell passed on a kernel with the planted defect '$name'"
	fi
	rm -f "$m"
	why=$(cut -f12 "$RESULTS/defect-$name.row")
	case " $why " in
	*" $check "*) ;;
	*)
		cat "$out"
		die "with '$name', cell $cell failed on '$why', but not on '$check'"
		;;
	esac
	fig=$(cut -f9 "$RESULTS/defect-$name.row")
	gfig=
	[ ! -f "$RESULTS/defect-$name.guest.row" ] ||
		gfig=", guest oracle c/m/d $(cut -f9 "$RESULTS/defect-$name.guest.row")"
	msg "    planted defect '$name': cell $cell fails on $why, as it must (cases p/f/s $(cut -f8 "$RESULTS/defect-$name.row"), oracle c/m/d $fig$gfig)"
done
git -C "$src" checkout -qf --detach "$head"
stage_end
