#!/bin/sh
# record-posting.sh MESSAGE-ID [COMMIT]: record in harness/postings.tsv
# that the revision being prepared (its last line) was mailed, with the
# cover letter's MESSAGE-ID, from COMMIT of this repository (default:
# HEAD, whose patches/ must then be the working tree's), and add the next
# revision, which 'make mail' then prepares with a range-diff against
# this one. Commit harness/postings.tsv afterwards.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || [ $# = 2 ] || die "usage: $0 MESSAGE-ID [COMMIT]"
msgid=$1
msgid=${msgid#<}
msgid=${msgid%>}
case $msgid in
*@*) ;;
*) die "'$1' is no Message-Id" ;;
esac
case $msgid in
*[[:space:]]*) die "'$1' is no Message-Id" ;;
esac
POSTINGS=$TOP/harness/postings.tsv
commit=$(git -C "$TOP" rev-parse --verify "${2:-HEAD}^{commit}") ||
	die "no commit ${2:-HEAD}"
if [ $# = 1 ] && [ -n "$(git -C "$TOP" status --porcelain -- "$SERIES_NAME")" ]; then
	die "$SERIES_NAME/ differs from HEAD: commit what was mailed and record that commit"
fi
# The cover letter of the series, or of its first part.
first=$(series_parts | head -n 1)
first=${first#"$TOP"/}
git -C "$TOP" cat-file -e "$commit:$first/0000-cover-letter.patch" 2>/dev/null ||
	die "commit $commit has no $first/0000-cover-letter.patch"

last=$(data_lines "$POSTINGS" | tail -n 1)
# shellcheck disable=SC2086 # its columns
set -- $last
if [ $# != 4 ] || [ "$2" != - ]; then
	die "the last line of harness/postings.tsv is no revision being prepared: '$last'"
fi
rev=$1 change_id=$4
tmp=$POSTINGS.new
awk -v r="$rev" -v c="$commit" -v m="$msgid" '
	!/^#/ && NF && $1 == r {
		printf "%-11s %s  %s  %s\n", $1, c, m, $4
		next
	}
	{ print }' "$POSTINGS" >"$tmp"
printf '%-11s %-7s %-11s %s\n' "$((rev + 1))" - - "$change_id" >>"$tmp"
mv "$tmp" "$POSTINGS"
msg "harness/postings.tsv: revision $rev mailed from $(git -C "$TOP" rev-parse --short=12 "$commit") as <$msgid>; 'make mail' now prepares revision $((rev + 1))"
