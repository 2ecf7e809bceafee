#!/bin/sh
# build-base-kernel.sh [--image-only] NAME: build kernel variant NAME of
# harness/kernels.tsv from the base commit, without the series, into
# build/base/kernel/NAME, for comparisons with the series (the benchmark,
# the regression guard). Prints its Image.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

only=
[ "${1:-}" != --image-only ] || { only=$1; shift; }
name=${1:?usage: build-base-kernel.sh [--image-only] NAME}
[ -d "$BUILD/linux/.git" ] || die "no build/linux: run 'make tree' first"
# build/base/linux and build/base/kernel/NAME sit as build/linux and
# build/kernel/NAME do, so ccache reuses what the series' build compiled.
src=$BUILD/base/linux
worktree_at "$src" base
sh "$TOP/harness/build-kernel.sh" ${only:+"$only"} --out "$BUILD/base/kernel/$name" "$name" "$src"
