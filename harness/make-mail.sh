#!/bin/sh
# make-mail.sh: write build/mail/, the posting of patches/ as b4 would
# mail it, without sending anything. A series in parts is posted part by
# part: the first (patches/1-core/) alone can be merged, and b4 mails it;
# each later part, and the KVM series, follows as a series of its own,
# stacked on the parts before it (harness/mail-part.sh).
# b4 (prep, then send -o) works in a clone of build/linux, build/mail-work,
# where it makes the cover letter from the first part's cover letter, the
# subjects of the revision that harness/postings.tsv names
# ([PATCH vN ...]), To: and Cc: from get_maintainer.pl, with
# linux-api@vger.kernel.org copied on the new user-space ABI, and, from
# revision 2 on, the range-diff against the revision before, rebuilt from
# the commit of this repository that postings.tsv records for it.
# PREFIXES="RFC" adds prefixes. Then build/mail/man-pages/ gets the
# man-pages patch (harness/mail-man-pages.sh), build/mail/apple/ the
# second part and build/mail/kvm-vm/ and build/mail/kvm-per-vcpu/ the
# KVM series' two parts. Every part is the
# sender's: from git's user.name and user.email, as b4 takes them, in
# From:, Signed-off-by: and the series' MAINTAINERS M: line, wherever
# patches/ has a name at a reserved domain (sender_identity, as_sender
# in lib.sh); there is no other identity, and none at a domain reserved
# for examples and tests is taken. See docs/posting.md.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

# Whom the posting is from, first: it refuses before any work.
sender_identity
[ "$BASE" = "$FIRST_BASE" ] || die "the posting is the series of base $FIRST_BASE"
command -v b4 >/dev/null || die "no b4: run 'make deps'"
TREE=$BUILD/linux
git -C "$TREE" rev-parse -q --verify 'base^{commit}' >/dev/null 2>&1 ||
	die "no build/linux: run 'make tree' first"
# The first part: the posting that b4 mails.
FIRST=$(series_parts | head -n 1)
FIRST_NAME=${FIRST#"$TOP"/}
[ -f "$FIRST/0000-cover-letter.patch" ] || die "$FIRST_NAME/ has no cover letter"
POSTINGS=$TOP/harness/postings.tsv
out=$BUILD/mail
work=$BUILD/mail-work
api=linux-api@vger.kernel.org
# b4's name of the series: branch b4/$name, tags sent/$name-vN.
name=mem-model

postings() {
	data_lines "$POSTINGS"
}
last=$(postings | tail -n 1)
rev=$(echo "$last" | awk '{ print $1 }')
change_id=$(echo "$last" | awk '{ print $4 }')
[ "$(echo "$last" | awk '{ print $2 }')" = - ] ||
	die "revision $rev is recorded as mailed in harness/postings.tsv: add the next with harness/record-posting.sh"
prev=$((rev - 1))
prev_commit=$(postings | awk -v r="$prev" '$1 == r { print $2 }')
prev_msgid=$(postings | awk -v r="$prev" '$1 == r { print $3 }')
[ "$rev" = 1 ] || [ -n "$prev_commit" ] ||
	die "harness/postings.tsv has no revision $prev, the one before $rev"

# The posting's identity is the sender's (sender_identity), for b4 and
# for the commits made here (the committer, and the author of every
# patch of patches/ at a reserved domain); nothing else of the user's or
# the system's git configuration reaches b4 (no web endpoint). The mail
# server is named only so that b4 does not pick kernel.org's web
# endpoint; -o never connects.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_COUNT=4
export GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$SENDER_NAME"
export GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$SENDER_EMAIL"
export GIT_CONFIG_KEY_2=sendemail.smtpserver GIT_CONFIG_VALUE_2=localhost
export GIT_CONFIG_KEY_3=color.ui GIT_CONFIG_VALUE_3=never

# vN's subject prefix, as b4 writes it: no v1.
prefix="PATCH${PREFIXES:+ $PREFIXES}"
[ "$rev" = 1 ] || prefix="$prefix v$rev"
stage "mail: build/mail, revision $rev [$prefix]"
msg "    from: $SENDER_NAME <$SENDER_EMAIL>"
if [ -n "$(git -C "$TOP" status --porcelain -- "$SERIES_NAME")" ]; then
	msg "    note: $SERIES_NAME/ differs from this repository's last commit; commit it before posting, so that harness/record-posting.sh can record this revision"
fi

# The sender's copies of the patches that are applied here (as_sender).
mine=$work.patches
rm -rf "$out" "$work" "$mine"
mkdir -p "$out" "$mine"
# Only the top-level files and scripts/ are checked out (get_maintainer.pl
# and MAINTAINERS), and what git am touches.
git clone -q --sparse --no-checkout "$TREE" "$work"
git -C "$work" sparse-checkout add scripts
# What a 'b4 send' from build/mail-work needs too: the cover letter in the
# branch description, linux-api copied, the template below.
git -C "$work" config b4.prep-cover-strategy branch-description
git -C "$work" config b4.send-series-cc "$api"
git -C "$work" config b4.prep-cover-template "$work/.git/b4-cover-template"

# Revision N-1, as mailed: patches/ of the commit that postings.tsv
# records, applied to the base it was made on, tagged as b4 send tags
# what it sent (sent/NAME-vN, with base-commit and change-id: b4 prep
# --compare-to reads the start of the series there), so that b4 prep
# --compare-to can range-diff it.
if [ "$rev" -gt 1 ]; then
	git -C "$TOP" cat-file -e "$prev_commit^{commit}" 2>/dev/null ||
		die "revision $prev's commit $prev_commit is not in this repository"
	old=$work.v$prev
	rm -rf "$old"
	mkdir -p "$old"
	git -C "$TOP" archive "$prev_commit" "$SERIES_NAME" | tar -x -C "$old"
	# Its first part, if it was in parts.
	old_series=$old/$SERIES_NAME
	for d in "$old/$SERIES_NAME"/[0-9]-*/; do
		[ -d "$d" ] && old_series=${d%/} && break
	done
	old_cover=$old_series/0000-cover-letter.patch
	[ -f "$old_cover" ] || die "revision $prev ($prev_commit) has no cover letter in $SERIES_NAME/"
	# Its base. The cover letter names no base-commit (lib.sh,
	# drop_base_commit): the base is the package and version that
	# harness/bases.tsv pinned at that commit, and make-base.sh makes the
	# same commit of it on every machine, build/linux's base if this run
	# uses the same package and version. A cover letter made before that
	# names its base in a base-commit line.
	old_base=$(sed -n 's/^base-commit: //p' "$old_cover")
	old_pkg=$(git -C "$TOP" show "$prev_commit:harness/bases.tsv" |
		sed -e 's/#.*//' | awk 'NF { print $2, $3; exit }')
	if [ -z "$old_base" ] &&
	   [ "$old_pkg" = "$(cut -d' ' -f1,2 "$CACHE/base-$BASE.used")" ]; then
		old_base=$(git -C "$work" rev-parse 'base^{commit}')
	fi
	if [ -z "$old_base" ] || ! git -C "$work" cat-file -e "$old_base^{commit}" 2>/dev/null; then
		msg "    revision $prev's base (${old_base:-$old_pkg}) is not build/linux's: range-diff against it applied to this base"
		old_base=$(git -C "$work" rev-parse 'base^{commit}')
	fi
	git -C "$work" checkout -q -b "mail-v$prev" "$old_base"
	# As mailed: the sender's, as the revision made now.
	sender_series "$old_series" "$mine/v$prev"
	n=$(sh "$TOP/harness/apply-series.sh" "$work" "$mine/v$prev") ||
		die "revision $prev ($prev_commit) does not apply to $old_base"
	{
		sed -n 's/^Subject: //p' "$old_cover" | head -n 1
		echo
		echo "base-commit: $old_base"
		echo "change-id: $change_id"
	} | git -C "$work" tag -a -F - "sent/$name-v$prev"
	rm -rf "$old"
	msg "    revision $prev: $n patch(es) from $(git -C "$TOP" rev-parse --short=12 "$prev_commit"), tagged sent/$name-v$prev"
fi

# Revision N: b4's prep branch b4/NAME on the base, patches/ on it, the
# cover letter as its description, the revision and change-id that
# postings.tsv gives.
git -C "$work" checkout -q -B mail-base base
(cd "$work" && b4 prep -n "$name") >"$LOGS/mail-b4.log" 2>&1 ||
	{ cat "$LOGS/mail-b4.log" >&2; die "b4 prep -n failed"; }
sender_series "$FIRST" "$mine/v$rev"
n=$(sh "$TOP/harness/apply-series.sh" "$work" "$mine/v$rev")
git -C "$work" config "branch.b4/$name.description" \
	"$(sh "$TOP/harness/cover-description.sh" "$FIRST/0000-cover-letter.patch")"
tracking=$(git -C "$work" config "branch.b4/$name.b4-tracking" |
	sed -e "s/\"change-id\": \"[^\"]*\"/\"change-id\": \"$change_id\"/")
git -C "$work" config "branch.b4/$name.b4-tracking" "$tracking"
b4w() {
	(cd "$work" && b4 "$@") >>"$LOGS/mail-b4.log" 2>&1 ||
		{ cat "$LOGS/mail-b4.log" >&2; die "b4 $* failed"; }
}
b4w prep --force-revision "$rev"
# shellcheck disable=SC2086
[ -z "${PREFIXES:-}" ] || b4w prep --set-prefixes $PREFIXES

# The cover letter's template: b4's own, with two differences. It has no
# base-commit line: the base is this repository's import of Debian's
# package, a commit no one else has (lib.sh, drop_base_commit), and the
# cover letter's text names the upstream release. From revision 2 on, the
# range-diff follows the diffstat, where git format-patch --range-diff
# puts it.
rdiff=$work/.git/range-diff
: >"$rdiff"
if [ "$rev" -gt 1 ]; then
	(cd "$work" && b4 prep --compare-to "v$prev") >"$rdiff" 2>>"$LOGS/mail-b4.log" ||
		die "b4 prep --compare-to v$prev failed (see ${LOGS#"$TOP"/}/mail-b4.log)"
	[ -s "$rdiff" ] || die "b4 prep --compare-to v$prev printed no range-diff"
	case $prev_msgid in
	- | "") ;;
	*)
		git -C "$work" config "branch.b4/$name.description" | grep -qF "$prev_msgid" ||
			msg "    note: the cover letter does not name v$prev's Message-Id <$prev_msgid>: say what changed since v$prev (docs/posting.md)"
		;;
	esac
fi
# shellcheck disable=SC2016
{
	printf '%s\n' '${cover}' '' '---' '${shortlog}' '' '${diffstat}'
	if [ -s "$rdiff" ]; then
		echo
		echo "Range-diff against v$prev:"
		# string.Template: a literal $ is $$.
		sed -e 's/\$/$$/g' "$rdiff"
	fi
	printf '%s\n' '---' 'change-id: ${change_id}' '' '-- ' '${signature}'
} >"$work/.git/b4-cover-template"

# To: and Cc: as cover letter trailers, from get_maintainer.pl on each
# patch, as b4 runs it by default; --no-tree because build/mail-work is a
# sparse checkout. linux-api comes from b4.send-series-cc.
gm="scripts/get_maintainer.pl --no-tree --nogit --nogit-fallback --nogit-chief-penguins --norolestats"
(cd "$work" && GIT_CONFIG_COUNT=6 \
	GIT_CONFIG_KEY_4=b4.send-auto-to-cmd GIT_CONFIG_VALUE_4="$gm --nol" \
	GIT_CONFIG_KEY_5=b4.send-auto-cc-cmd GIT_CONFIG_VALUE_5="$gm --nom" \
	b4 prep --auto-to-cc) >>"$LOGS/mail-b4.log" 2>&1 ||
	{ cat "$LOGS/mail-b4.log" >&2; die "b4 prep --auto-to-cc failed"; }
git -C "$work" config "branch.b4/$name.description" | grep -q "^Cc: .*$api" ||
	die "b4 prep --auto-to-cc did not copy $api"

# The mails, as b4 send would send them; -o writes them and sends nothing.
b4w send --no-sign -o "$out"
cover=$(find "$out" -maxdepth 1 -name '0000-*.eml' | sort | head -n 1)
[ -n "$cover" ] || die "b4 send -o wrote no cover letter to build/mail"
hdr() {
	mail_header "$1" <"$2" | sed 's/  */ /g'
}
msg "    $(find "$out" -maxdepth 1 -name '*.eml' | wc -l) mails ($n patches and the cover letter), from the b4 branch b4/$name of build/mail-work"
msg "    $(hdr Subject "$cover")"
msg "    Message-Id: $(hdr Message-Id "$cover")"
msg "    To: $(hdr To "$cover")"
msg "    Cc: $(hdr Cc "$cover")"
if [ -s "$rdiff" ]; then
	msg "    range-diff against v$prev: $(wc -l <"$rdiff") lines, in the cover letter"
else
	msg "    no range-diff: revision 1"
fi

sh "$TOP/harness/mail-man-pages.sh" "$prefix"

# restack NAME SRC FROM TO ONTO: branch mail/NAME of build/mail-work,
# checked out (get_maintainer.pl reads its MAINTAINERS): the commits
# FROM..TO of the tree SRC, the sender's (as_sender), on ONTO, with the
# description of TO's branch, the cover letter.
restack() {
	rs=$mine/$1
	git -C "$2" rev-parse -q --verify "$4" >/dev/null 2>&1 ||
		die "no $4 in ${2#"$TOP"/}: run 'make tree' first"
	git -C "$2" -c diff.renames=true format-patch -q --zero-commit \
		--no-signature -o "$rs.in" "$3..$4"
	sender_series "$rs.in" "$rs"
	git -C "$work" checkout -q -b "mail/$1" "$5"
	sh "$TOP/harness/apply-series.sh" "$work" "$rs" >/dev/null ||
		die "$1: ${2#"$TOP"/} $3..$4 does not apply to the posting of the parts before it: run 'make export'"
	rb=$(git -C "$2" rev-parse --abbrev-ref "$4")
	rd=$(git -C "$2" config "branch.$rb.description") ||
		die "$1: branch $rb of ${2#"$TOP"/} has no description, the cover letter"
	git -C "$work" config "branch.mail/$1.description" "$rd"
}
# The later parts, each from the end of the part before it, stacked in
# build/mail-work on the posting of the parts before it.
from=''
onto=b4/$name
for part in $(series_parts); do
	branch=$(part_branch "$part")
	if [ -n "$from" ]; then
		p=${part##*/}
		p=${p#[0-9]-}
		restack "$p" "$TREE" "$from" "$branch" "$onto"
		sh "$TOP/harness/mail-part.sh" "$p" "$work" "$onto" "mail/$p" \
			"$(subject_prefix "$p" "$prefix")"
		onto=mail/$p
	fi
	from=$branch
done
# The KVM series, part by part, on the last part of the series.
from=series
for part in $(kvm_parts); do
	p=$(kvm_part_name "$part")
	branch=$(kvm_part_branch "$part")
	restack "$p" "$KVM_TREE" "$from" "$branch" "$onto"
	sh "$TOP/harness/mail-part.sh" "$p" "$work" "$onto" "mail/$p" \
		"$(subject_prefix "$p" "$prefix")"
	onto=mail/$p
	from=$branch
done
# 'b4 send' in build/mail-work sends the branch checked out: the first part.
git -C "$work" checkout -q "b4/$name"
rm -rf "$mine"
msg "    to post: docs/posting.md ('b4 send' in build/mail-work, then the man-pages patch in reply to the cover letter, then the later parts in order, then harness/record-posting.sh)"
stage_end
