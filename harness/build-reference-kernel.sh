#!/bin/sh
# build-reference-kernel.sh NAME: build kernel variant NAME of
# harness/kernels.tsv from the series with the reference design of
# tests/reference/read-and-write.patch applied (the context switch reads
# ACTLR_EL1 and writes it back with the incoming thread's bit, every time),
# into build/reference/kernel/NAME, for the benchmark's comparison.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

name=${1:?usage: build-reference-kernel.sh NAME}
TREE=$BUILD/linux
patch=$TOP/tests/reference/read-and-write.patch
# build/reference/linux and its kernels sit as build/linux and
# build/kernel/NAME do, so ccache reuses what the series' build compiled.
src=$BUILD/reference/linux
[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"
worktree_at "$src" "$(git -C "$TREE" rev-parse HEAD)"
git -C "$src" apply "$patch" ||
	die "the reference design ${patch#"$TOP"/} no longer applies to the series"
sh "$TOP/harness/build-kernel.sh" --out "$BUILD/reference/kernel/$name" "$name" "$src"
