#!/bin/sh
# make-mail.sh: write build/mail/, the series ready for git send-email:
# the cover letter and the patches of patches/, with the subject prefix
# SUBJECT_PREFIX (default "PATCH"; for example "PATCH v2"), and To: (the
# maintainers) and Cc: (reviewers and lists) from get_maintainer.pl, plus
# linux-api@vger.kernel.org, which Documentation/process/submitting-patches.rst
# asks for on user-space ABI changes. build/mail/man-pages/ gets the
# man-pages patch of man-pages/ (MAN_PATCHES=<dir> for another), with the
# same prefix, to the man-pages maintainer, Cc linux-man and linux-api.
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
prefix=${SUBJECT_PREFIX:-PATCH}
out=$BUILD/mail
MAN_PATCHES=${MAN_PATCHES:-$TOP/man-pages}
api=linux-api@vger.kernel.org
man_to="Alejandro Colomar <alx@kernel.org>"
man_cc="linux-man@vger.kernel.org, $api"
[ -f "$TREE/scripts/get_maintainer.pl" ] || die "no build/linux: run 'make tree' first"
set -- "$SERIES"/[0-9][0-9][0-9][0-9]-*.patch
[ -e "$1" ] || die "patches/ is empty"
case $prefix in
*[]\[\\/]* | "") die "SUBJECT_PREFIX '$prefix' must be plain text, like 'PATCH v2'" ;;
esac
man_patches=$(ls "$MAN_PATCHES"/[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null || true)
[ -n "$man_patches" ] || die "no man-pages patch in ${MAN_PATCHES#"$TOP"/}"

stage "mail: build/mail, [$prefix]"
gm() {
	(cd "$TREE" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats "$@") | paste -sd, - | sed 's/,/, /g'
}
patches=$(ls "$SERIES"/[0-9][0-9][0-9][0-9]-*.patch | grep -v '/0000-cover-letter')
# shellcheck disable=SC2086
to=$(gm --m --no-r --no-l $patches)
# shellcheck disable=SC2086
cc=$(gm --no-m --r --l $patches)
[ -n "$to" ] || die "get_maintainer.pl names no maintainer for the series"
# The series adds prctl()s: a user-space ABI change.
case ", $to, $cc, " in
*", $api, "* | *"<$api>"*) ;;
*) cc=${cc:+$cc, }$api ;;
esac

# address PATCH DIR TO CC: write PATCH to DIR, with the prefix of its
# subject, and To:/Cc: before the subject, in the header only.
address() {
	awk -v pre="$prefix" -v to="$3" -v cc="$4" '
		hdr && /^Subject: \[PATCH/ {
			sub(/^Subject: \[PATCH/, "Subject: [" pre)
			print "To: " to
			if (cc != "") print "Cc: " cc
		}
		hdr && /^$/ { hdr = 0 }
		{ print }' hdr=1 "$1" >"$2/${1##*/}"
}

rm -rf "$out"
mkdir -p "$out/man-pages"
for p in "$@"; do
	address "$p" "$out" "$to" "$cc"
done
for p in $man_patches; do
	address "$p" "$out/man-pages" "$man_to" "$man_cc"
done
msg "    $(ls "$out"/*.patch | wc -l) files; To: $to"
msg "    Cc: $cc"
msg "    man-pages/: $(echo "$man_patches" | wc -l) file(s); To: $man_to; Cc: $man_cc"
msg "    send with: git send-email build/mail/*.patch"
msg "    then, in reply to the cover letter (man-pages' CONTRIBUTING.d/patches/sendmail):"
msg "      git send-email --in-reply-to='<Message-ID of the cover letter>' build/mail/man-pages/*.patch"
stage_end
