#!/bin/sh
# build-reference-kernel.sh NAME [kvm]: build kernel variant NAME of
# harness/kernels.tsv with a reference design applied, for the
# benchmark's comparisons:
# - by default, tests/reference/read-and-write.patch on the series (the
#   context switch reads ACTLR_EL1 and writes it back with the incoming
#   thread's bit, every time), into build/reference/kernel/NAME;
# - with 'kvm', tests/reference/kvm-switch-in-context-switch.patch on the
#   KVM series (a per-vCPU guest makes KVM's SET hypercall in the context
#   switch, not on the way back to EL0), into
#   build/reference-kvm/kernel/NAME.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

name=${1:?usage: build-reference-kernel.sh NAME [kvm]}
TREE=$BUILD/linux
[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"
if [ "${2:-}" = kvm ]; then
	patch=$TOP/tests/reference/kvm-switch-in-context-switch.patch
	head=$(git -C "$KVM_TREE" rev-parse HEAD) ||
		die "no build/kvm/linux: run 'make tree' first"
	top=$BUILD_TOP/reference-kvm
else
	patch=$TOP/tests/reference/read-and-write.patch
	head=$(git -C "$TREE" rev-parse HEAD)
	top=$BUILD/reference
fi
# The reference's tree and its kernels sit as build/linux and
# build/kernel/NAME do (build/kvm/linux and build/kvm/kernel/NAME for the
# KVM series), so ccache reuses what the series' build compiled.
src=$top/linux
worktree_at "$src" "$head"
git -C "$src" apply "$patch" ||
	die "the reference design ${patch#"$TOP"/} no longer applies"
sh "$TOP/harness/build-kernel.sh" --out "$top/kernel/$name" "$name" "$src"
