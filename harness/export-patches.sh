#!/bin/sh
# Write the base's series (patches/ for mainline, BASE=<base> for another)
# back from its tree: git format-patch --cover-letter of base..HEAD.
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
