#!/bin/sh
# mail-man-pages.sh PREFIX: write build/mail/man-pages/, the man-pages
# patch of man-pages/ (MAN_PATCHES=<dir> for another) with the subject
# prefix [PREFIX] (for example "PATCH v2", that of the kernel series), To:
# the man-pages maintainer, Cc: linux-man and linux-api. It is sent in
# reply to the kernel series' cover letter (man-pages' CONTRIBUTING.d/
# patches/sendmail), whose Message-Id is known once that is sent: b4
# prep, which addresses the kernel series, works on a kernel tree only.
# The patch is the sender's, as the kernel series: git's user.name and
# user.email in From: and Signed-off-by: (sender_identity, as_sender in
# lib.sh).
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: $0 PREFIX"
prefix=$1
case $prefix in
PATCH | "PATCH "*) ;;
*) die "prefix '$prefix' must start with PATCH" ;;
esac
case $prefix in
*[]\[\\/]*) die "prefix '$prefix' must be plain text, like 'PATCH v2'" ;;
esac
MAN_PATCHES=${MAN_PATCHES:-$TOP/man-pages}
out=$BUILD/mail/man-pages
api=linux-api@vger.kernel.org
to="Alejandro Colomar <alx@kernel.org>"
cc="linux-man@vger.kernel.org, $api"
sender_identity
man_patches=$(ls "$MAN_PATCHES"/[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null || true)
[ -n "$man_patches" ] || die "no man-pages patch in ${MAN_PATCHES#"$TOP"/}"

rm -rf "$out"
mkdir -p "$out"
# Each patch, the sender's, with the prefix in its subject and To:/Cc:
# before it, in the header only.
for p in $man_patches; do
	as_sender "$p" | awk -v pre="$prefix" -v to="$to" -v cc="$cc" '
		hdr && /^Subject: \[PATCH/ {
			sub(/^Subject: \[PATCH/, "Subject: [" pre)
			print "To: " to
			print "Cc: " cc
		}
		hdr && /^$/ { hdr = 0 }
		{ print }' hdr=1 >"$out/${p##*/}"
done
msg "    man-pages/: $(echo "$man_patches" | wc -l) file(s), [$prefix]; To: $to; Cc: $cc"
