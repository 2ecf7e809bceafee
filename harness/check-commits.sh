#!/bin/sh
# Build every commit of the base's series, base..HEAD of its tree, for each
# kernel variant named (default: the base's 'commits' of harness/bases.tsv:
# mainline "debug off x86", 6.12 "debug off"), incrementally and with
# ccache, in a worktree of its own. A failure names the commit and the
# variant. On the first base, then every commit of the KVM series
# (series..kvm of build/kvm/linux) with the variant of KVM_COMMIT_VARIANTS.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

variants=${*:-$BASE_COMMITS}
TREE=$BUILD/linux
# build/bisect/linux and build/bisect/kernel/VARIANT sit as build/linux
# and build/kernel/VARIANT do, so ccache reuses the objects of the series'
# and the base's builds.
src=$BUILD/bisect/linux
[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"

# build_commits TREE RANGE VARIANTS...: build each commit of RANGE.
build_commits() {
	_tree=$1 _range=$2
	shift 2
	for c in $(git -C "$_tree" rev-list --reverse "$_range"); do
		subject=$(git -C "$_tree" log -1 --format='%h %s' "$c")
		git -C "$src" checkout -q --detach "$c"
		for v; do
			msg "    $subject: $v"
			sh "$TOP/harness/build-kernel.sh" --skip-built \
				--out "$BUILD/bisect/kernel/$v" "$v" "$src" ||
				die "commit '$subject' does not build with kernel variant '$v' (build/logs/bisect-kernel-$v.log)"
			case $(cat "$BUILD/bisect/kernel/$v/.build-result") in
			reused) reused=$((reused + 1)) ;;
			*) built=$((built + 1)) ;;
			esac
		done
	done
}

kvm=
if [ "$BASE" = "$FIRST_BASE" ] && [ -z "$*" ] &&
	git -C "$KVM_TREE" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	kvm=$(git -C "$KVM_TREE" rev-list --count series..HEAD)
fi
commits=$(git -C "$TREE" rev-list --count base..HEAD)
kvm_what=''
[ -z "$kvm" ] || kvm_what=", the KVM series' $kvm x ($KVM_COMMIT_VARIANTS)"
stage "every commit builds: $commits commit(s) x ($variants)$kvm_what"
worktree_at "$src" base
# A commit and variant whose kernel inputs were built before (lib.sh's
# build_key: the tree without documentation, selftests and other
# architectures, the config fragments, the build script, the compiler)
# are not built again: the series' head comes from the matrix's kernels,
# a selftest-only commit from the commit before it, and an arm64-only
# commit's x86_64 build from the commit before it.
built=0 reused=0
# shellcheck disable=SC2086
build_commits "$TREE" base..HEAD $variants
# shellcheck disable=SC2086
[ -z "$kvm" ] || build_commits "$KVM_TREE" series..HEAD $KVM_COMMIT_VARIANTS
msg "    all commits build ($built built now, $reused recorded from earlier builds)"
stage_end
