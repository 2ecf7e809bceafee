#!/bin/sh
# Write the base's series (patches/ for mainline, BASE=<base> for another)
# back from its tree: git format-patch --cover-letter of base..HEAD; on
# the first base, then the KVM series, kvm/, from its tree: series..kvm,
# moved onto the series' new head first if the series was rewritten.
# Stable: run twice with no change, it leaves no diff.
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted changes: commit them first"

out=$BUILD/patches.new
rm -rf "$out"
mkdir -p "$out"
n=$(git -C "$TREE" rev-list --count base..HEAD)
# The posting is [PATCH]; a backport says which tree it is for.
prefix=PATCH
[ "$BASE" = "$FIRST_BASE" ] || prefix="PATCH $BASE"
if [ "$n" -gt 0 ]; then
	# Fixed options, so that the output does not depend on the
	# developer's git configuration or the size of the tree's object
	# store (abbreviations): no hashes that change on every
	# 'git am', no git version in the signature.
	git -C "$TREE" -c diff.renames=true \
		format-patch -q --no-thread --cover-letter --cover-from-description=subject \
		--zero-commit --no-signature --abbrev=9 --base=base --subject-prefix="$prefix" \
		-o "$out" base..HEAD
	# The cover letter's date would be the time of the export.
	sed -i -e '1,/^$/s/^Date: .*/Date: Thu, 1 Jan 2026 00:00:00 +0000/' \
		"$out/0000-cover-letter.patch"
fi
rm -f "$SERIES"/*.patch
mkdir -p "$SERIES"
if [ "$n" -gt 0 ]; then
	mv "$out"/*.patch "$SERIES/"
fi
rmdir "$out"
# The tree now matches patches/.
record_tree_state
msg "$SERIES_NAME/: $n patch(es) and $([ "$n" -gt 0 ] && echo a || echo no) cover letter"

# The KVM series, stacked on this one.
[ "$BASE" = "$FIRST_BASE" ] || exit 0
git -C "$KVM_TREE" rev-parse -q --verify HEAD >/dev/null 2>&1 || exit 0
[ -z "$(git -C "$KVM_TREE" status --porcelain --untracked-files=no)" ] ||
	die "build/kvm/linux has uncommitted changes: commit them first"
old=$(cut -d' ' -f2 "$BUILD_TOP/kvm/state" 2>/dev/null || true)
new=$(git -C "$TREE" rev-parse series)
if [ -n "$old" ] && [ "$old" != "$new" ]; then
	git -C "$KVM_TREE" rebase -q --onto "$new" "$old" ||
		die "the KVM series does not apply to the rewritten series: resolve the rebase in build/kvm/linux, then run 'make export' again"
fi
out=$BUILD/kvm-patches.new
rm -rf "$out"
mkdir -p "$out"
n=$(git -C "$KVM_TREE" rev-list --count series..HEAD)
if [ "$n" -gt 0 ]; then
	# --base=base: the series' patches are listed as prerequisites.
	git -C "$KVM_TREE" -c diff.renames=true \
		format-patch -q --no-thread --cover-letter --cover-from-description=subject \
		--zero-commit --no-signature --abbrev=9 --base=base --subject-prefix=PATCH \
		-o "$out" series..HEAD
	sed -i -e '1,/^$/s/^Date: .*/Date: Thu, 1 Jan 2026 00:00:00 +0000/' \
		"$out/0000-cover-letter.patch"
fi
rm -f "$KVM_SERIES"/*.patch
mkdir -p "$KVM_SERIES"
[ "$n" = 0 ] || mv "$out"/*.patch "$KVM_SERIES/"
rmdir "$out"
echo "$(kvm_patches_id) $new $(git -C "$KVM_TREE" rev-parse HEAD)" >"$BUILD_TOP/kvm/state"
msg "kvm/: $n patch(es) and $([ "$n" -gt 0 ] && echo a || echo no) cover letter"
