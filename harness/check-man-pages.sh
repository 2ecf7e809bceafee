#!/bin/sh
# The man-pages patch of man-pages/ (git format-patch output for the
# man-pages project, the only source of its pages) adds
# PR_GET_MEM_MODEL(2const) and PR_SET_MEM_MODEL(2const), and every page it
# adds is clean: the patch applies to an empty tree and only adds files;
# each page has the man-pages source conventions (.TH title and section
# from its file name, "(date)" and "Linux man-pages (unreleased)", NAME
# giving the title, the sections in man-pages' order), no trailing white
# space and no blank line (man-pages' lint-man-ws and lint-man-blank);
# mandoc -Tlint -W style and groff -man -ww -rCHECKSTYLE=3 report nothing
# (CHECKSTYLE needs groff 1.23: Debian 12's 1.22.4 ignores it); it renders
# with the expected NAME line; and every PR_* constant, CONFIG_* option
# and kernel Documentation/ file it names exists in the kernel series,
# with the values the commit message gives. Any problem fails and names
# the page. MAN_PATCHES=<dir> checks another directory of man-pages
# patches; PATCHES=<dir> takes the kernel series from another directory
# (default: the series of the base, patches/ for mainline).
. "$(dirname "$0")/lib.sh"

MAN_PATCHES=${MAN_PATCHES:-$TOP/man-pages}
PATCHES=${PATCHES:-${SERIES:-$TOP/patches}}
# The pages the series needs.
expect="man/man2const/PR_GET_MEM_MODEL.2const man/man2const/PR_SET_MEM_MODEL.2const"
# man-pages' order of the sections (man-pages(7)); a page has a subset.
order="NAME LIBRARY SYNOPSIS CONFIGURATION DESCRIPTION OPTIONS EXIT_STATUS
	RETURN_VALUE ERRORS ENVIRONMENT FILES ATTRIBUTES VERSIONS STANDARDS
	HISTORY NOTES CAVEATS BUGS EXAMPLES AUTHORS REPORTING_BUGS COPYRIGHT
	SEE_ALSO"

for t in mandoc groff; do
	command -v $t >/dev/null ||
		die "no $t: install Debian's mandoc and groff-base ('make deps')"
done
set -- "$MAN_PATCHES"/[0-9][0-9][0-9][0-9]-*.patch
[ -e "$1" ] || die "no man-pages patch in ${MAN_PATCHES#"$TOP"/}"

stage "man pages: lint the pages of ${MAN_PATCHES#"$TOP"/}"
work=$BUILD/man-pages
rm -rf "$work"
mkdir -p "$work/tree"
git init -q "$work/tree"

# What the kernel series defines: "NAME VALUE" of each PR_* it adds to a
# header, its Kconfig options and the files it creates.
cat "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch >"$work/series" 2>/dev/null ||
	die "no kernel series in ${PATCHES#"$TOP"/} to check the pages against (PATCHES=<dir>)"
sed -n 's/^+#[[:space:]]*define[[:space:]]\{1,\}\(PR_[A-Z0-9_]*\)[[:space:]]\{1,\}\([^[:space:]]*\).*/\1 \2/p' \
	"$work/series" >"$work/series-defines"
[ -s "$work/series-defines" ] || die "the kernel series defines no PR_* constant"

bad=
fail() {
	printf '      %s: %s\n' "$1" "$2"
	bad="$bad $1"
}

pages=
for p; do
	name=${p##*/}
	msg "    $name"
	git -C "$work/tree" apply --whitespace=nowarn "$p" 2>"$work/apply.log" ||
		{ sed 's/^/      /' "$work/apply.log"; die "$name does not apply to an empty tree"; }
	if git -C "$work/tree" apply --numstat --summary "$p" |
		grep -v '^[0-9]*	0	\| create mode ' >"$work/not-added"; then
		fail "$name" "changes more than it adds:"
		sed 's/^/        /' "$work/not-added"
	fi
	# The values in the commit message ("<tab>PR_X<tabs>VALUE") are the
	# series'.
	sed -n '/^$/,/^---$/s/^	\(PR_[A-Z0-9_]*\)[[:space:]]\{1,\}\([^[:space:]]*\)$/\1 \2/p' "$p" |
		while read -r c v; do
			grep -qx "$c $v" "$work/series-defines" ||
				echo "the commit message gives $c = $v; the kernel series: $(awk -v c="$c" '$1 == c { print $2 }' "$work/series-defines" | sort -u | paste -sd, -)"
		done >"$work/values"
	[ ! -s "$work/values" ] || { fail "$name" "$(cat "$work/values")"; }
	# man-pages' build puts the commit date in place of (date).
	date=$(date -u -d "$(sed -n 's/^Date: //p' "$p" | head -n 1)" +%F 2>/dev/null) ||
		date=1970-01-01
	pages="$pages $(git -C "$work/tree" apply --numstat "$p" | cut -f3 | grep '^man/man[^/]*/[^/]*$' | sed "s/\$/@$date/" | paste -sd" " -)"
done

# A page that several patches touch, once, with the last one's date.
# shellcheck disable=SC2086
pages=$(printf '%s\n' $pages | awk -F@ 'NF { last[$1] = $0 } END { for (p in last) print last[p] }' | sort | paste -sd" " -)

for e in $expect; do
	case " $pages " in
	*" $e@"*) ;;
	*) fail "${e##*/}" "no patch in ${MAN_PATCHES#"$TOP"/} adds $e" ;;
	esac
done

for pd in $pages; do
	page=${pd%@*}
	date=${pd##*@}
	src=$work/tree/$page
	base=${page##*/}
	title=${base%.*}
	sect=${base##*.}
	n=0
	# The source conventions.
	th=$(grep -m1 '^\.TH ' "$src" || true)
	[ "$th" = ".TH $title $sect (date) \"Linux man-pages (unreleased)\"" ] || {
		fail "$base" "the .TH line must be '.TH $title $sect (date) \"Linux man-pages (unreleased)\"', not '$th'"
		n=$((n + 1))
	}
	[ "$(sed -n '/^\.SH NAME$/{n;p;}' "$src")" = "$title" ] || {
		fail "$base" "NAME must give '$title'"
		n=$((n + 1))
	}
	sections=$(sed -n 's/^\.SH //p' "$src" | tr ' ' _ | tr -d '"')
	want=$(for s in $order; do echo "$sections" | grep -x "$s" || true; done)
	[ "$sections" = "$want" ] || {
		fail "$base" "sections unknown or out of man-pages' order: $(echo "$sections" | paste -sd" " -)"
		n=$((n + 1))
	}
	for s in NAME SYNOPSIS DESCRIPTION RETURN_VALUE STANDARDS HISTORY SEE_ALSO; do
		echo "$sections" | grep -qx "$s" || {
			fail "$base" "no $s section"
			n=$((n + 1))
		}
	done
	if grep -n '[[:space:]]$' "$src" >"$work/ws"; then
		fail "$base" "white space at the end of a line:"
		sed 's/^/        /' "$work/ws"
		n=$((n + 1))
	fi
	if grep -n '^$' "$src" >"$work/blank"; then
		fail "$base" "blank line (use .P or .\\\"):"
		sed 's/^/        /' "$work/blank"
		n=$((n + 1))
	fi
	# The page as man-pages' build makes it, then the linters.
	built=$work/built/$page
	mkdir -p "${built%/*}"
	sed "/^\.TH/s/(date)/$date/" "$src" >"$built"
	rc=0
	(cd "${built%/*}" && mandoc -Tlint -W style "$base") >"$work/mandoc" 2>&1 || rc=$?
	if [ -s "$work/mandoc" ] || [ "$rc" != 0 ]; then
		fail "$base" "mandoc -Tlint -W style (exit $rc):"
		sed 's/^/        /' "$work/mandoc"
		n=$((n + 1))
	fi
	(cd "${built%/*}" && groff -man -Tutf8 -P-cbou -ww -rCHECKSTYLE=3 -rLL=78n "$base") \
		>"$work/built/$base.txt" 2>"$work/groff" || true
	if [ -s "$work/groff" ]; then
		fail "$base" "groff -man -ww -rCHECKSTYLE=3:"
		sed 's/^/        /' "$work/groff"
		n=$((n + 1))
	fi
	if ! sed -n '/^NAME$/{n;p;}' "$work/built/$base.txt" | grep -q "^       $title - [^ ]"; then
		fail "$base" "does not render a NAME line '$title - ...'"
		n=$((n + 1))
	fi
	# The kernel interfaces it names exist in the series (or, for the
	# PR_* constants, in build/linux's <linux/prctl.h>).
	for c in $(grep -o 'PR_[A-Z0-9_]*[A-Z0-9]' "$src" | sort -u); do
		grep -q "^$c " "$work/series-defines" && continue
		[ -f "$BUILD/linux/include/uapi/linux/prctl.h" ] &&
			grep -q "define[[:space:]]\{1,\}${c}[[:space:]]" "$BUILD/linux/include/uapi/linux/prctl.h" &&
			continue
		fail "$base" "names $c, which the kernel series does not define"
		n=$((n + 1))
	done
	for c in $(grep -o 'CONFIG_[A-Z0-9_]*[A-Z0-9]' "$src" | sort -u); do
		grep -q "^+config ${c#CONFIG_}\$" "$work/series" || {
			fail "$base" "names $c, which the kernel series does not add"
			n=$((n + 1))
		}
	done
	for d in $(sed 's/\\[:%]//g; s/\\-/-/g' "$src" | grep -o 'Documentation/[A-Za-z0-9_./-]*\.rst' | sort -u); do
		grep -q "^+++ b/$d\$" "$work/series" || {
			fail "$base" "names $d, which the kernel series does not create"
			n=$((n + 1))
		}
	done
	if [ $n = 0 ]; then
		msg "    $page: clean ($(wc -l <"$src") lines, $(grep -c . "$work/built/$base.txt") rendered)"
	fi
done
[ -z "$bad" ] || die "man pages: problems in$(echo "$bad" | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/ $//')"
stage_end
