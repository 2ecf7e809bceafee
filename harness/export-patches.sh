#!/bin/sh
# Write the base's series (patches/ for mainline, BASE=<base> for another)
# back from its tree: git format-patch --cover-letter of base..HEAD, or of
# each part of a series in parts (lib.sh, series_parts); on
# the first base, then the KVM series, kvm/, from its tree: series..kvm,
# moved onto the series' new head first if the series was rewritten.
# Stable: run twice with no change, it leaves no diff.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted changes: commit them first"

# write_series TREE RANGE DIR PREFIX: DIR becomes git format-patch
# --cover-letter of RANGE in TREE, with fixed options, so that the output
# does not depend on the developer's git configuration or the size of the
# tree's object store (abbreviations): no hashes that change on every
# 'git am', no git version in the signature. The cover letter is the
# description of the branch the range ends at. A range above the base
# (a later part, the KVM series) lists the patches below it as
# prerequisite-patch-id lines (--base=base); no cover letter has a
# base-commit line, since the base is a commit of this repository alone
# (lib.sh, drop_base_commit): its text names the upstream release.
write_series() {
	_out=$BUILD/patches.new
	rm -rf "$_out"
	mkdir -p "$_out"
	_n=$(git -C "$1" rev-list --count "$2")
	if [ "$_n" -gt 0 ]; then
		# shellcheck disable=SC2046 # one option or none
		git -C "$1" -c diff.renames=true \
			format-patch -q --no-thread --cover-letter --cover-from-description=subject \
			--zero-commit --no-signature --abbrev=9 $(format_patch_base "$1" "$2") \
			--subject-prefix="$4" -o "$_out" "$2"
		# The cover letter's date would be the time of the export.
		sed -i -e '1,/^$/s/^Date: .*/Date: Thu, 1 Jan 2026 00:00:00 +0000/' \
			"$_out/0000-cover-letter.patch"
		drop_base_commit "$_out/0000-cover-letter.patch"
	fi
	rm -f "$3"/*.patch
	mkdir -p "$3"
	[ "$_n" = 0 ] || mv "$_out"/*.patch "$3/"
	rmdir "$_out"
	msg "${3#"$TOP"/}/: $_n patch(es) and $([ "$_n" -gt 0 ] && echo a || echo no) cover letter"
}

# The posting is [PATCH]; a backport says which tree it is for.
prefix=PATCH
[ "$BASE" = "$FIRST_BASE" ] || prefix="PATCH $BASE"
# Each part from the end of the one before (the base, for the first) to
# its branch; the last part ends at HEAD. Every branch must be on the
# series, and the parts must hold every commit, before anything is
# written. A later part lists the earlier parts' patches as its
# prerequisites (write_series).
from=base
total=0
ranges=
for part in $(series_parts); do
	branch=$(part_branch "$part")
	to=HEAD
	if [ "$branch" != series ]; then
		git -C "$TREE" rev-parse -q --verify "$branch" >/dev/null ||
			die "build/linux has no branch '$branch', where ${part#"$TOP"/}/ ends: run 'git -C build/linux branch $branch <its last commit>'"
		git -C "$TREE" merge-base --is-ancestor "$branch" HEAD ||
			die "branch '$branch' (the end of ${part#"$TOP"/}/) is not on the series: move it with 'git -C build/linux branch -f $branch <its last commit>'"
		to=$branch
	fi
	total=$((total + $(git -C "$TREE" rev-list --count "$from..$to")))
	ranges="$ranges $part:$from..$to"
	from=$to
done
[ "$total" = "$(git -C "$TREE" rev-list --count base..HEAD)" ] ||
	die "the parts of $SERIES_NAME/ would hold $total patches, but base..HEAD has $(git -C "$TREE" rev-list --count base..HEAD) commits"
# A series that was one directory and is now in parts keeps no patch of
# its own.
[ "$(series_parts)" = "$SERIES" ] || rm -f "$SERIES"/*.patch
for r in $ranges; do
	# The first base's parts, and only those, are posted upstream: some
	# as RFC (lib.sh, RFC_SERIES).
	p=${r%:*}
	p=${p##*/}
	p=${p#[0-9]-}
	pp=$prefix
	[ "$BASE" != "$FIRST_BASE" ] || pp=$(subject_prefix "$p" "$prefix")
	write_series "$TREE" "${r##*:}" "${r%:*}" "$pp"
done
# The tree now matches patches/.
record_tree_state

# The KVM series, stacked on this one.
[ "$BASE" = "$FIRST_BASE" ] || exit 0
[ -n "$(kvm_parts)" ] || exit 0
git -C "$KVM_TREE" rev-parse -q --verify HEAD >/dev/null 2>&1 || exit 0
[ -z "$(git -C "$KVM_TREE" status --porcelain --untracked-files=no)" ] ||
	die "build/kvm/linux has uncommitted changes: commit them first"
old=$(cut -d' ' -f2 "$BUILD_TOP/kvm/state" 2>/dev/null || true)
new=$(git -C "$TREE" rev-parse series)
if [ -n "$old" ] && [ "$old" != "$new" ]; then
	git -C "$KVM_TREE" rebase -q --onto "$new" "$old" ||
		die "the KVM series does not apply to the rewritten series: resolve the rebase in build/kvm/linux, then run 'make export' again"
fi
# Each part from the end of the one before (the series' head, for the
# first) to its branch; the last part ends at HEAD. A KVM series that was
# one directory and is now in parts keeps no patch of its own.
[ "$(kvm_parts)" = "$KVM_SERIES" ] || rm -f "$KVM_SERIES"/*.patch
from=series
for part in $(kvm_parts); do
	branch=$(kvm_part_branch "$part")
	to=HEAD
	if [ "$branch" != kvm ]; then
		git -C "$KVM_TREE" merge-base --is-ancestor "$branch" HEAD ||
			die "branch '$branch' (the end of ${part#"$TOP"/}/) is not on the KVM series: move it with 'git -C build/kvm/linux branch -f $branch <its last commit>'"
		to=$branch
	fi
	write_series "$KVM_TREE" "$from..$to" "$part" \
		"$(subject_prefix "$(kvm_part_name "$part")" PATCH)"
	from=$to
done
echo "$(kvm_patches_id) $new $(git -C "$KVM_TREE" rev-parse HEAD)" >"$BUILD_TOP/kvm/state"
