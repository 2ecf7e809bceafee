#!/bin/sh
# MAINTAINERS: scripts/get_maintainer.pl on the patches of patches/ must
# name the entry the series adds, and every file pattern of that entry
# must match a file of the tree.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
[ -f "$TREE/MAINTAINERS" ] || die "no build/linux: run 'make tree' first"

stage "MAINTAINERS: get_maintainer.pl names the series' entry"
# The entry's title: the first added line that is not a tag line.
title=$(git -C "$TREE" diff base..HEAD -- MAINTAINERS |
	sed -n 's/^+\([A-Z0-9][^:]\{3,\}\)$/\1/p' | head -n 1)
[ -n "$title" ] || die "the series adds no MAINTAINERS entry"
msg "    entry: $title"

# get_maintainer.pl shortens long titles to their first 30 characters.
short=$(printf '%s' "$title" | cut -c1-30)
out=$LOGS/get_maintainer.log
# shellcheck disable=SC2119 # no argument: every part
patches=$(series_patches)
[ -n "$patches" ] || die "no patch in $SERIES_NAME/"
# shellcheck disable=SC2086 # one word a patch
(cd "$TREE" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
	$patches) >"$out" 2>&1 ||
	{ cat "$out"; die "get_maintainer.pl failed"; }
sed 's/^/      /' "$out"
grep -qF "$short" "$out" ||
	die "get_maintainer.pl on patches/ does not name the entry '$title'"

# The entry's lines in MAINTAINERS: from its title to the blank line after.
# Each of its F: and X: patterns must match a file of the tree: what
# get_maintainer.pl --self-test=patterns checks, for this entry alone
# (the whole self-test takes minutes, and the base's own stale patterns
# elsewhere are not the series').
first=$(grep -nxF "$title" "$TREE/MAINTAINERS" | head -n 1 | cut -d: -f1)
bad=$(awk -v f="$first" 'NR > f && /^$/ { exit } NR > f' "$TREE/MAINTAINERS" |
	sed -n 's/^[FX]:[[:space:]]*//p' | while read -r pat; do
		[ -n "$(git -C "$TREE" ls-files -- "$pat" | head -n 1)" ] ||
			echo "no file matches '$pat'"
	done)
if [ -n "$bad" ]; then
	echo "$bad" | sed 's/^/      MAINTAINERS: /'
	die "MAINTAINERS: patterns of the series' entry that match no file"
fi
msg "    every F:/X: pattern of the entry matches a file of the tree"
stage_end
