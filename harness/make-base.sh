#!/bin/sh
# Turn Debian's linux-source tarball into a git repository with one
# deterministic commit, tagged 'base', kept in the cache. Its hash is the
# same on every machine, so the cover letter's base-commit can be checked.
. "$(dirname "$0")/lib.sh"

# Bump when the recipe below changes: it is part of the cache key.
RECIPE=1
BASE_GIT=$CACHE/base-$LINUX_VERSION-r$RECIPE.git
TARBALL=/usr/src/linux-source-6.12.tar.xz

if [ -f "$BASE_GIT/mem-model-complete" ]; then
	msg "==> base tree: cached, base-commit $(git --git-dir="$BASE_GIT" rev-parse base)"
	exit 0
fi

stage "base tree: linux-source-6.12 $LINUX_VERSION (cold: extract and commit)"
have=$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null || true)
[ "$have" = "$LINUX_VERSION" ] ||
	die "linux-source-6.12 $LINUX_VERSION is pinned, but '$have' is installed; run harness/install-deps.sh"

tmp=$CACHE/base.tmp.$$
rm -rf "$tmp" "$BASE_GIT"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
run_logged "$LOGS/base-extract.log" tar -C "$tmp" -xf "$TARBALL"
wt=$tmp/linux-source-6.12

git init -q --bare "$BASE_GIT"
# The commit leaves some 90,000 loose objects; an automatic 'git gc' would
# then repack them in the background, competing with the kernel builds.
# Clones of the cache hardlink the objects as they are.
git --git-dir="$BASE_GIT" config gc.auto 0
g() {
	git -c core.autocrlf=false -c core.fileMode=true \
		-c core.bigFileThreshold=512m \
		--git-dir="$BASE_GIT" --work-tree="$wt" "$@"
}
# Debian's top-level .gitignore ignores everything ('/*'): add by force.
run_logged "$LOGS/base-add.log" g add -f -A .
GIT_AUTHOR_NAME='Debian linux-source' \
GIT_AUTHOR_EMAIL='linux-source@packages.debian.org' \
GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' \
GIT_COMMITTER_NAME='Debian linux-source' \
GIT_COMMITTER_EMAIL='linux-source@packages.debian.org' \
GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
	g commit -q --no-verify --no-gpg-sign \
	-m "Debian linux-source-6.12 $LINUX_VERSION"
g tag base
msg "    base-commit: $(g rev-parse base)"
touch "$BASE_GIT/mem-model-complete"
stage_end
