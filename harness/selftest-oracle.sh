#!/bin/sh
# The oracle test must be able to fail. For each planted defect of
# tests/defects/, build the debug kernel of the series with it and require
# that the oracle test fails on it with mismatches or GET disagreements.
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
# The worktree and the kernel build sit as build/linux and build/kernel/X
# do, one level down: the compiler sees the same relative paths, so ccache
# reuses the debug kernel's objects for every file the defect leaves alone.
src=$BUILD/defect/linux
[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"
head=$(git -C "$TREE" rev-parse HEAD)

stage "oracle self-test: planted defects must fail the oracle test"
if ! git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$src"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$src" "$head"
fi
for d in "$TOP"/tests/defects/*.patch; do
	name=$(basename "$d" .patch)
	git -C "$src" checkout -qf --detach "$head"
	git -C "$src" apply "$d" ||
		die "the planted defect tests/defects/$name.patch no longer applies to the series"
	kdir=$BUILD/defect/kernel/$name
	OUT=$kdir sh "$TOP/harness/build-kernel.sh" debug "$src"
	out=$LOGS/oracle-defect-$name.log
	if ORACLE_SECONDS=${ORACLE_SECONDS:-5} NAME=defect-$name \
		sh "$TOP/harness/oracle-test.sh" \
		"$kdir/arch/arm64/boot/Image" >"$out" 2>&1; then
		cat "$out"
		die "the oracle test passed on a kernel with the planted defect '$name'"
	fi
	fig=$(sed -n 's/.*mem-model-oracle: result FAIL //p' "$out" | tail -n 1)
	case $fig in
	*" mismatches=0 get-disagreements=0" | "")
		cat "$out"
		die "the kernel with '$name' failed its cell, but not on the oracle's figures"
		;;
	esac
	msg "    planted defect '$name': the oracle test fails, as it must ($fig)"
done
git -C "$src" checkout -qf --detach "$head"
stage_end
