#!/bin/sh
# Make build/linux: the base commit, tagged 'base', and one commit per
# patch of patches/ on branch 'series'. An existing tree is reused while
# patches/ is unchanged; it is rebuilt when patches/ changed and the tree
# holds no work that was not exported. FORCE=1 rebuilds it regardless.
. "$(dirname "$0")/lib.sh"

sh "$TOP/harness/make-base.sh"
BASE_GIT=$(ls -d "$CACHE"/base-"$LINUX_VERSION"-r*.git | tail -n 1)
TREE=$BUILD/linux
STATE=$TREE/.git/mem-model-state

if [ -d "$TREE/.git" ] && [ "${FORCE:-0}" != 1 ]; then
	want=$(patches_id)
	set -- $(cat "$STATE" 2>/dev/null || echo none none)
	if [ "$1" = "$want" ]; then
		msg "==> tree: build/linux is up to date with patches/"
		exit 0
	fi
	head=$(git -C "$TREE" rev-parse HEAD)
	if [ "$2" != "$head" ] ||
	   [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
		die "patches/ changed, and build/linux holds work that is not in patches/. Run 'make export' to keep it, or 'make tree FORCE=1' to drop it."
	fi
fi

stage "tree: build/linux = base + patches/"
rm -rf "$TREE"
git clone -q --no-checkout "$BASE_GIT" "$TREE"
run_logged "$LOGS/tree-checkout.log" git -C "$TREE" checkout -q -b series base
# Debian's top-level .gitignore ignores everything ('/*'), so new files
# would never show up in 'git status' or 'git add'. Drop those two lines
# from the working copy only, and tell git not to look at that change.
sed -i -e '/^\/\*$/d' -e '/^!\/debian\/$/d' "$TREE/.gitignore"
git -C "$TREE" update-index --skip-worktree .gitignore
git -C "$TREE" config user.name \
	"$(git -C "$TOP" config user.name || echo 'mem-model harness')"
git -C "$TREE" config user.email \
	"$(git -C "$TOP" config user.email || echo 'harness@localhost')"

# The cover letter's subject and blurb live on as the branch description,
# which 'make export' turns back into the cover letter.
cover=$TOP/patches/0000-cover-letter.patch
if [ -f "$cover" ]; then
	awk '
	/^Subject: / && !subj {
		sub(/^Subject: (\[[^]]*\] *)?/, ""); subj = 1; s = $0; next
	}
	subj == 1 && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
	subj == 1 && /^$/ { print s; print ""; subj = 2; next }
	subj == 2 && /^[^ ].* \([0-9]+\):$/ { exit }
	subj == 2 { print }
	' "$cover" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$TREE/.git/cover-description"
	git -C "$TREE" config branch.series.description \
		"$(cat "$TREE/.git/cover-description")"
fi

set -- "$TOP"/patches/[0-9][0-9][0-9][0-9]-*.patch
n=0
for p; do
	case $p in */0000-cover-letter.patch | *'*'*) continue ;; esac
	git -C "$TREE" am -q --keep-cr "$p" ||
		die "patch ${p#"$TOP"/} does not apply to base (see 'git -C build/linux am --show-current-patch')"
	n=$((n + 1))
done
msg "    $n patch(es) on base $(git -C "$TREE" rev-parse --short base)"
record_tree_state
stage_end
