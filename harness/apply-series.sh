#!/bin/sh
# apply-series.sh GITDIR SERIES: apply the patches of SERIES, a
# 'git format-patch --cover-letter' directory (patches/, or a revision of
# it taken from this repository's history), on the branch checked out in
# GITDIR, one commit each, as harness/make-tree.sh applies them to
# build/linux; of a series in parts (SERIES/N-NAME/), every part in turn.
set -eu
if [ $# != 2 ] || [ ! -d "$1" ] || [ ! -d "$2" ]; then
	echo "usage: $0 GITDIR SERIES-DIR" >&2
	exit 1
fi
n=0
for p in "$2"/[0-9][0-9][0-9][0-9]-*.patch "$2"/[0-9]-*/[0-9][0-9][0-9][0-9]-*.patch; do
	case $p in */0000-cover-letter.patch | *'*'*) continue ;; esac
	git -C "$1" am -q --keep-cr "$p" || {
		git -C "$1" am --abort 2>/dev/null || true
		echo "error: ${p##*/} does not apply" >&2
		exit 1
	}
	n=$((n + 1))
done
[ "$n" -gt 0 ] || {
	echo "error: no patch in $2" >&2
	exit 1
}
echo "$n"
