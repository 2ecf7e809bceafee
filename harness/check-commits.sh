#!/bin/sh
# Build every commit of the base's series, base..HEAD of its tree, for each
# kernel variant named (default: the base's 'commits' of harness/bases.tsv:
# mainline "on off x86", 6.12 "debug off"), incrementally and with ccache,
# in a worktree of its own. A failure names the commit and the variant. A
# commit and variant that built before with the same inputs are not built
# again.
. "$(dirname "$0")/lib.sh"

variants=${*:-$BASE_COMMITS}
TREE=$BUILD/linux
# build/bisect/linux and build/bisect/kernel/VARIANT sit as build/linux
# and build/kernel/VARIANT do, so ccache reuses the objects of the series'
# and the base's builds.
src=$BUILD/bisect/linux
[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"

commits=$(git -C "$TREE" rev-list --reverse base..HEAD)
stage "every commit builds: $(echo $commits | wc -w) commit(s) x ($variants)"
# A worktree of an earlier build/linux is gone with it: make a new one.
if ! git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$src"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$src" base
fi
# Whether a commit builds depends only on its source tree, the variant's
# config fragments, the build script and the compiler: a build that
# passed with the same inputs is recorded in the cache, keyed by them, and
# not repeated.
stamps=$CACHE/commit-builds
mkdir -p "$stamps"
build_key() {
	_cc=gcc
	[ "$(variant_arch "$2")" != arm64 ] || _cc=${CROSS_COMPILE}gcc
	{
		git -C "$TREE" rev-parse "$1^{tree}"
		sed -e 's/#.*//' "$TOP/harness/kernels.tsv" | awk -v n="$2" '$1 == n'
		for f in $(sed -e 's/#.*//' "$TOP/harness/kernels.tsv" |
			awk -v n="$2" '$1 == n { for (i = 3; i <= NF; i++) print $i }'); do
			cat "$TOP/harness/configs/$f.config"
		done
		cat "$TOP/harness/build-kernel.sh"
		"$_cc" --version | head -n 1
	} | sha256sum | cut -c1-32
}
built=0 reused=0
for c in $commits; do
	subject=$(git -C "$TREE" log -1 --format='%h %s' "$c")
	for v in $variants; do
		key=$(build_key "$c" "$v")
		if [ -f "$stamps/$key" ]; then
			msg "    $subject: $v: built before with the same inputs"
			reused=$((reused + 1))
			continue
		fi
		git -C "$src" checkout -q --detach "$c"
		msg "    $subject: $v"
		OUT=$BUILD/bisect/kernel/$v \
			sh "$TOP/harness/build-kernel.sh" "$v" "$src" ||
			die "commit '$subject' does not build with kernel variant '$v' (build/logs/bisect-kernel-$v.log)"
		echo "$subject $v" >"$stamps/$key"
		built=$((built + 1))
	done
done
msg "    all commits build ($built built now, $reused recorded from earlier builds)"
stage_end
