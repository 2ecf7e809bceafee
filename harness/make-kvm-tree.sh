#!/bin/sh
# Make the KVM series' tree, build/kvm/linux: a worktree of build/linux
# on branch 'kvm', the series' head with one commit per patch of kvm/.
# Called by harness/make-tree.sh for the first base. An existing tree is
# reused while kvm/ and the series' head are unchanged; it is made again
# when they changed and it holds no work that was not exported.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

[ "$BASE" = "$FIRST_BASE" ] || exit 0
[ -n "$(kvm_parts)" ] || exit 0
TREE=$BUILD/linux
STATE=$BUILD_TOP/kvm/state
series=$(git -C "$TREE" rev-parse series)

if git -C "$KVM_TREE" rev-parse -q --verify HEAD >/dev/null 2>&1 &&
	[ "${FORCE:-0}" != 1 ]; then
	want="$(kvm_patches_id) $series"
	state=$(cat "$STATE" 2>/dev/null || echo none none none)
	# shellcheck disable=SC2086 # three words
	set -- $state
	head=$(git -C "$KVM_TREE" rev-parse HEAD)
	if [ "$1 $2" = "$want" ] && [ "$3" = "$head" ]; then
		msg "==> tree: ${KVM_TREE#"$TOP"/} is up to date with kvm/"
		exit 0
	fi
	if [ "$3" != "$head" ] ||
	   [ -n "$(git -C "$KVM_TREE" status --porcelain --untracked-files=no)" ]; then
		die "kvm/ or the series changed, and ${KVM_TREE#"$TOP"/} holds work that is not in kvm/. Run 'make export' to keep it, or 'make tree FORCE=1' to drop it."
	fi
fi

stage "tree: ${KVM_TREE#"$TOP"/} = the series + kvm/"
if [ -e "$KVM_TREE" ]; then
	git -C "$TREE" worktree remove --force "$KVM_TREE" 2>/dev/null || rm -rf "$KVM_TREE"
fi
git -C "$TREE" worktree prune
mkdir -p "$(dirname "$KVM_TREE")"
git -C "$TREE" worktree add -q -f -B kvm "$KVM_TREE" series
sed -i -e '/^\/\*$/d' -e '/^!\/debian\/$/d' "$KVM_TREE/.gitignore"
git -C "$KVM_TREE" update-index --skip-worktree .gitignore
# Each part in turn; a part that is not the last ends at a branch of its
# own. Each branch's description is its part's cover letter.
n=0
for part in $(kvm_parts); do
	branch=$(kvm_part_branch "$part")
	cover=$part/0000-cover-letter.patch
	if [ -f "$cover" ]; then
		git -C "$TREE" config "branch.$branch.description" \
			"$(sh "$TOP/harness/cover-description.sh" "$cover")"
	fi
	k=$(sh "$TOP/harness/apply-series.sh" "$KVM_TREE" "$part") ||
		die "${part#"$TOP"/}/ does not apply (see 'git -C ${KVM_TREE#"$TOP"/} am --show-current-patch')"
	n=$((n + k))
	[ "$branch" = kvm ] || git -C "$KVM_TREE" branch -f "$branch" HEAD
done
msg "    $n patch(es) on the series' head $(git -C "$TREE" rev-parse --short series)"
echo "$(kvm_patches_id) $series $(git -C "$KVM_TREE" rev-parse HEAD)" >"$STATE"
stage_end
