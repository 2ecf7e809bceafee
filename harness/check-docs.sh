#!/bin/sh
# The documentation the series touches builds with Debian's python3-sphinx
# (make htmldocs over the touched SPHINXDIRS), and Sphinx reports nothing
# in the files the series touches. Warnings elsewhere in those
# directories are the base's.
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"
files=$(git -C "$TREE" diff --name-only base..HEAD -- 'Documentation/*.rst')
stage "documentation: htmldocs over the touched SPHINXDIRS"
[ -n "$files" ] || { msg "    the series touches no documentation"; stage_end; exit 0; }
# Documentation/arch/arm64/x.rst is in SPHINXDIRS "arch/arm64".
dirs=$(echo "$files" | sed 's,^Documentation/,,; s,/[^/]*$,,' | sort -u | paste -sd' ' -)
msg "    SPHINXDIRS: $dirs"
log=$LOGS/htmldocs.log
run_logged "$log" make -C "$TREE" O="$BUILD/docs" SPHINXDIRS="$dirs" htmldocs ||
	die "make htmldocs failed"
bad=$(for f in $files; do
	grep -a "/$f:[0-9]*: \(WARNING\|ERROR\|CRITICAL\)\|/$f: \(WARNING\|ERROR\)" "$log" || true
done)
if [ -n "$bad" ]; then
	echo "$bad" | sed 's/^/      /'
	die "Sphinx reports problems in the files the series touches"
fi
msg "    $(echo $files | wc -w) touched file(s): no warning ($(grep -c WARNING "$log" || true) elsewhere)"
stage_end
