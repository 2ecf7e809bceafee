#!/bin/sh
# build-base-kernel.sh NAME: build kernel variant NAME of harness/kernels.tsv
# from the base commit, without the series, into build/base/kernel/NAME,
# for comparisons with the series (the benchmark). Prints its Image.
. "$(dirname "$0")/lib.sh"

name=${1:?usage: build-base-kernel.sh NAME}
TREE=$BUILD/linux
# build/base/linux and build/base/kernel/NAME sit as build/linux and
# build/kernel/NAME do, so ccache reuses what the series' build compiled.
src=$BUILD/base/linux
[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"
if ! git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$src"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$src" base
fi
git -C "$src" checkout -qf --detach base
OUT=$BUILD/base/kernel/$name sh "$TOP/harness/build-kernel.sh" "$name" "$src"
