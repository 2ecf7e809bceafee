#!/bin/sh
# build-base-kernel.sh [--image-only] NAME: build kernel variant NAME of
# harness/kernels.tsv from the base commit, without the series, into
# build/base/kernel/NAME, for comparisons with the series (the benchmark,
# the regression guard, sparse/W=1). Prints its Image. With --image-only
# (a caller that boots only the image), the image of a build with the
# same inputs comes from the cache (build-kernel.sh --image-only), looked
# up by the base commit's key (lib.sh, build_key_at) before the base is
# checked out: a warm run makes no worktree.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

only=
[ "${1:-}" != --image-only ] || { only=$1; shift; }
name=${1:?usage: build-base-kernel.sh [--image-only] NAME}
[ -d "$BUILD/linux/.git" ] || die "no build/linux: run 'make tree' first"
out=$BUILD/base/kernel/$name
key=$(build_key_at "$BUILD/linux" base "$name")
if [ -n "$only" ] && [ -n "$key" ] && [ -f "$IMAGES/$key" ]; then
	# As build-kernel.sh --image-only does on a hit.
	frags=$(data_lines "$TOP/harness/kernels.tsv" |
		awk -v n="$name" '$1 == n { for (i = 5; i <= NF; i++) printf "%s%s", s, $i; s = " " }')
	stage "kernel $name ($frags)"
	image=$(arch_image "$(variant_arch "$name")")
	mkdir -p "$(dirname "$out/$image")"
	cp "$IMAGES/$key" "$out/$image"
	touch "$IMAGES/$key"
	rm -f "$out/.build-inputs"
	echo cached >"$out/.build-result"
	msg "    the image of a build with the same inputs: $(cat "$BUILT_STAMPS/$key" 2>/dev/null || echo "$key")"
	stage_end
	exit 0
fi
# build/base/linux and build/base/kernel/NAME sit as build/linux and
# build/kernel/NAME do, so ccache reuses what the series' build compiled.
src=$BUILD/base/linux
worktree_at "$src" base
sh "$TOP/harness/build-kernel.sh" ${only:+"$only"} --out "$out" "$name" "$src"
