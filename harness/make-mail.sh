#!/bin/sh
# make-mail.sh: write build/mail/, the series ready for git send-email:
# the cover letter and the patches of patches/, with the subject prefix
# SUBJECT_PREFIX (default "PATCH"; for example "PATCH v2"), and To: (the
# maintainers) and Cc: (reviewers and lists) from get_maintainer.pl.
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
prefix=${SUBJECT_PREFIX:-PATCH}
out=$BUILD/mail
[ -f "$TREE/scripts/get_maintainer.pl" ] || die "no build/linux: run 'make tree' first"
set -- "$TOP"/patches/[0-9][0-9][0-9][0-9]-*.patch
[ -e "$1" ] || die "patches/ is empty"
case $prefix in
*[]\[\\/]* | "") die "SUBJECT_PREFIX '$prefix' must be plain text, like 'PATCH v2'" ;;
esac

stage "mail: build/mail, [$prefix]"
gm() {
	(cd "$TREE" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats "$@") | paste -sd, - | sed 's/,/, /g'
}
patches=$(ls "$TOP"/patches/[0-9][0-9][0-9][0-9]-*.patch | grep -v '/0000-cover-letter')
# shellcheck disable=SC2086
to=$(gm --m --no-r --no-l $patches)
# shellcheck disable=SC2086
cc=$(gm --no-m --r --l $patches)
[ -n "$to" ] || die "get_maintainer.pl names no maintainer for the series"

rm -rf "$out"
mkdir -p "$out"
for p in "$@"; do
	# In the header only: the prefix of the subject, and To:/Cc: before it.
	awk -v pre="$prefix" -v to="$to" -v cc="$cc" '
		hdr && /^Subject: \[PATCH/ {
			sub(/^Subject: \[PATCH/, "Subject: [" pre)
			print "To: " to
			if (cc != "") print "Cc: " cc
		}
		hdr && /^$/ { hdr = 0 }
		{ print }' hdr=1 "$p" >"$out/${p##*/}"
done
msg "    $(ls "$out" | wc -l) files; To: $to"
msg "    Cc: $cc"
msg "    send with: git send-email build/mail/*.patch"
stage_end
