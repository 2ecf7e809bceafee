#!/bin/sh
# Build every commit of the series, base..HEAD of build/linux, for each
# kernel variant named (default: "on off x86": arm64 with the option on
# and off, and x86_64), incrementally and with ccache, in a worktree of its
# own. A failure names the commit and the variant.
. "$(dirname "$0")/lib.sh"

variants=${*:-on off x86}
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
for c in $commits; do
	git -C "$src" checkout -q --detach "$c"
	subject=$(git -C "$src" log -1 --format='%h %s')
	for v in $variants; do
		msg "    $subject: $v"
		OUT=$BUILD/bisect/kernel/$v \
			sh "$TOP/harness/build-kernel.sh" "$v" "$src" ||
			die "commit '$subject' does not build with kernel variant '$v' (build/logs/bisect-kernel-$v.log)"
	done
done
msg "    all commits build"
stage_end
