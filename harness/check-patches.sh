#!/bin/sh
# checkpatch.pl --strict on every patch of patches/ (not the cover
# letters; each part of a series in parts), and on the first base each
# part of kvm/ too, with the series' own
# scripts/checkpatch.pl. Fails if any patch has an error or a warning,
# and names it. PATCHES=<dir> checks another directory of patches alone.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
[ -f "$TREE/scripts/checkpatch.pl" ] || die "no build/linux: run 'make tree' first"
dirs=${PATCHES:-$(series_parts)}
if [ -z "${PATCHES:-}" ] && [ "$BASE" = "$FIRST_BASE" ]; then
	dirs="$dirs $(kvm_parts)"
fi

for PATCHES in $dirs; do
stage "checkpatch --strict on ${PATCHES#"$TOP"/}/"
bad=
# A directory with no patch (the parent of a series in parts, given as
# PATCHES) would pass without a check.
ls "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch >/dev/null 2>&1 ||
	die "no patch in ${PATCHES#"$TOP"/}/ (a series in parts: name a part, patches/1-core)"
for p in "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch; do
	[ -e "$p" ] || continue
	name=${p##*/}
	[ "$name" != 0000-cover-letter.patch ] || continue
	out=$LOGS/checkpatch-${name%.patch}.log
	(cd "$TREE" && perl scripts/checkpatch.pl --strict "$p") >"$out" 2>&1 || true
	total=$(grep '^total: ' "$out" | tail -n 1)
	[ -n "$total" ] || { cat "$out"; die "checkpatch did not run on $name"; }
	# shellcheck disable=SC2046
	set -- $(echo "$total" | sed 's/total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/')
	msg "    $name: $1 errors, $2 warnings, $3 checks"
	if [ "$1" != 0 ] || [ "$2" != 0 ]; then
		grep -A4 '^\(ERROR\|WARNING\):' "$out" | sed 's/^/      /'
		bad="$bad $name"
	fi
done
[ -z "$bad" ] || die "checkpatch --strict: errors or warnings in$bad"
stage_end
done
