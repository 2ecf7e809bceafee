#!/bin/sh
# MAINTAINERS: scripts/get_maintainer.pl on the patches of patches/ must
# name the entry the series adds, and get_maintainer.pl
# --self-test=patterns must report nothing in that entry (the base tree's
# own stale patterns elsewhere are not the series').
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
(cd "$TREE" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
	"$TOP"/patches/[0-9][0-9][0-9][0-9]-*.patch) >"$out" 2>&1 ||
	{ cat "$out"; die "get_maintainer.pl failed"; }
sed 's/^/      /' "$out"
grep -qF "$short" "$out" ||
	die "get_maintainer.pl on patches/ does not name the entry '$title'"

# The entry's lines in MAINTAINERS: from its title to the blank line after.
first=$(grep -nxF "$title" "$TREE/MAINTAINERS" | head -n 1 | cut -d: -f1)
last=$(awk -v f="$first" 'NR > f && /^$/ { print NR; exit }' "$TREE/MAINTAINERS")
st=$LOGS/get_maintainer-self-test.log
(cd "$TREE" && perl scripts/get_maintainer.pl --self-test=patterns) >"$st" 2>&1 || true
bad=$(sed -n 's/^\.\/MAINTAINERS:\([0-9]*\): \(.*\)/\1 \2/p' "$st" |
	awk -v f="$first" -v l="$last" '$1 >= f && $1 <= l')
if [ -n "$bad" ]; then
	echo "$bad" | sed 's/^/      MAINTAINERS:/'
	die "get_maintainer.pl --self-test=patterns: warnings in the series' entry"
fi
msg "    --self-test=patterns: nothing in lines $first-$last ($(grep -c warning "$st" || true) warnings elsewhere)"
stage_end
