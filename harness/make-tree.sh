#!/bin/sh
# Make build/linux (build/<base>/linux for BASE=<base>): the base commit,
# tagged 'base', and one commit per patch of the base's series (patches/
# for mainline) on branch 'series', where the first part of a series in
# parts ends at branch 'core'; on the first base, then the KVM
# series' tree on top of it (harness/make-kvm-tree.sh). An existing tree is reused while the
# series is unchanged; it is rebuilt when the series changed and the tree
# holds no work that was not exported. FORCE=1 rebuilds it regardless.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

sh "$TOP/harness/make-base.sh"
BASE_GIT=$(cut -d' ' -f3 "$CACHE/base-$BASE.used")
[ -d "$BASE_GIT" ] || die "no base repository $BASE_GIT"
TREE=$BUILD/linux
STATE=$TREE/.git/mem-model-state

if [ -d "$TREE/.git" ] && [ "${FORCE:-0}" != 1 ]; then
	want=$(patches_id)
	state=$(cat "$STATE" 2>/dev/null || echo none none)
	# shellcheck disable=SC2086 # two words
	set -- $state
	head=$(git -C "$TREE" rev-parse HEAD)
	if [ "$1" = "$want" ] && [ "$2" = "$head" ]; then
		msg "==> tree: ${TREE#"$TOP"/} is up to date with $SERIES_NAME/"
		exec sh "$TOP/harness/make-kvm-tree.sh"
	fi
	if [ "$1" = "$want" ] && [ "$2" != "$head" ]; then
		die "${TREE#"$TOP"/} is at $(git -C "$TREE" rev-parse --short HEAD), not at the tip of its series, so what is built would not be the series. Run 'git -C ${TREE#"$TOP"/} checkout series' to go back, 'make export BASE=$BASE' if the new commits are the series now, or 'make tree BASE=$BASE FORCE=1' to start again."
	fi
	if [ "$2" != "$head" ] ||
	   [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
		die "$SERIES_NAME/ changed, and ${TREE#"$TOP"/} holds work that is not in it. Run 'make export BASE=$BASE' to keep it, or 'make tree BASE=$BASE FORCE=1' to drop it."
	fi
fi

stage "tree: ${TREE#"$TOP"/} = base $BASE + $SERIES_NAME/"
rm -rf "$TREE"
git clone -q --no-checkout "$BASE_GIT" "$TREE"
run_logged "$LOGS/tree-checkout.log" git -C "$TREE" checkout -q -b series base
# Debian's top-level .gitignore ignores everything ('/*'), so new files
# would never show up in 'git status' or 'git add'. Drop those two lines
# from the working copy only, and tell git not to look at that change.
sed -i -e '/^\/\*$/d' -e '/^!\/debian\/$/d' "$TREE/.gitignore"
git -C "$TREE" update-index --skip-worktree .gitignore
# No automatic repacking in the background, competing with the builds.
git -C "$TREE" config gc.auto 0
git -C "$TREE" config user.name \
	"$(git -C "$TOP" config user.name || echo 'mem-model harness')"
git -C "$TREE" config user.email \
	"$(git -C "$TOP" config user.email || echo 'harness@localhost')"

# A fixup folded into the first part of a series posted in parts moves
# that part's branch ('core') with it.
git -C "$TREE" config rebase.updateRefs true

# Each part's patches, one commit each; every part but the last ends at a
# branch of its name (lib.sh, series_parts). The cover letter's subject
# and blurb live on as the part's branch description, which 'make
# export' turns back into the cover letter.
n=0
for part in $(series_parts); do
	branch=$(part_branch "$part")
	cover=$part/0000-cover-letter.patch
	if [ -f "$cover" ]; then
		sh "$TOP/harness/cover-description.sh" "$cover" >"$TREE/.git/cover-description"
		git -C "$TREE" config "branch.$branch.description" \
			"$(cat "$TREE/.git/cover-description")"
	fi
	for p in $(series_patches "$part"); do
		git -C "$TREE" am -q --keep-cr "$p" ||
			die "patch ${p#"$TOP"/} does not apply to base $BASE (see 'git -C ${TREE#"$TOP"/} am --show-current-patch')"
		n=$((n + 1))
	done
	[ "$branch" = series ] || git -C "$TREE" branch -f "$branch"
done
msg "    $n patch(es) on base $(git -C "$TREE" rev-parse --short base)"
record_tree_state
stage_end
exec sh "$TOP/harness/make-kvm-tree.sh"
