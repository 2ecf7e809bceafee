#!/bin/sh
# The documentation the series touches builds with Debian's python3-sphinx
# (make htmldocs over the touched SPHINXDIRS), and Sphinx reports nothing
# in the files the series touches. Warnings elsewhere in those
# directories are the base's. The same for the KVM series, in its tree,
# over the files it touches; the two builds run side by side.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
[ -d "$TREE/.git" ] || die "no build/linux: run 'make tree' first"

# touched TREE FROM: the .rst files that FROM..HEAD changes.
touched() {
	git -C "$1" diff --name-only "$2"..HEAD -- 'Documentation/*.rst'
}

# htmldocs TREE FROM NAME: build the SPHINXDIRS of what FROM..HEAD
# touches into build/NAME, logged to build/logs/NAME.log.
htmldocs() {
	# Documentation/arch/arm64/x.rst is in SPHINXDIRS "arch/arm64".
	dirs=$(touched "$1" "$2" | sed 's,^Documentation/,,; s,/[^/]*$,,' |
		sort -u | paste -sd' ' -)
	msg "    $3: SPHINXDIRS $dirs"
	run_logged "$LOGS/$3.log" make -C "$1" O="$BUILD/$3" SPHINXDIRS="$dirs" htmldocs
}

# judge TREE FROM NAME: no warning in a touched file.
judge() {
	files=$(touched "$1" "$2")
	bad=$(for f in $files; do
		grep -a "/$f:[0-9]*: \(WARNING\|ERROR\|CRITICAL\)\|/$f: \(WARNING\|ERROR\)" "$LOGS/$3.log" || true
	done)
	if [ -n "$bad" ]; then
		echo "$bad" | sed 's/^/      /'
		die "Sphinx reports problems in the files that $2..HEAD of ${1#"$TOP"/} touches"
	fi
	msg "    $3: $(echo "$files" | wc -w) touched file(s): no warning ($(grep -c WARNING "$LOGS/$3.log" || true) elsewhere)"
}

stage "documentation: htmldocs over the touched SPHINXDIRS"
set -- "$TREE base htmldocs"
[ -z "$(touched "$KVM_TREE" series 2>/dev/null)" ] ||
	set -- "$@" "$KVM_TREE series htmldocs-kvm"
[ -n "$(touched "$TREE" base)" ] || shift
[ $# -gt 0 ] || { msg "    the series touch no documentation"; stage_end; exit 0; }
for t; do
	# shellcheck disable=SC2086
	{ htmldocs $t; echo $? >"$LOGS/${t##* }.rc"; } &
done
wait
for t; do
	[ "$(cat "$LOGS/${t##* }.rc")" = 0 ] || die "make htmldocs failed (build/logs/${t##* }.log)"
	# shellcheck disable=SC2086
	judge $t
done
stage_end
