#!/bin/sh
# cover-description.sh COVER: print the branch description that a
# 'git format-patch --cover-letter --cover-from-description=subject'
# cover letter COVER was made from: its subject without the [PATCH ...]
# prefix, a blank line, and the text above the shortlog. b4 prep keeps
# the cover letter there (prep-cover-strategy = branch-description), as
# harness/make-tree.sh does for build/linux.
set -eu
if [ $# != 1 ] || [ ! -f "$1" ]; then
	echo "usage: $0 COVER-LETTER" >&2
	exit 1
fi
awk '
/^Subject: / && !subj {
	sub(/^Subject: (\[[^]]*\] *)?/, ""); subj = 1; s = $0; next
}
subj == 1 && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
subj == 1 && /^$/ { print s; print ""; subj = 2; next }
subj == 2 && /^[^ ].* \([0-9]+\):$/ { exit }
subj == 2 { print }
' "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
