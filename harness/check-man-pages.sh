#!/bin/sh
# The man-pages patch of man-pages/ (git format-patch output for the
# man-pages project, the only source of its pages) adds
# PR_GET_MEM_MODEL(2const) and PR_SET_MEM_MODEL(2const) and lists both
# operations in prctl(2), and every page it adds or changes is clean. The
# base tree is prctl(2) of Debian's manpages-dev, pinned in
# harness/man-pages-base.tsv, with its .TH line in source form; it is made
# once and kept in the cache. The patch applies to it, only adds files
# and only adds lines to the base's pages; each page has the man-pages
# source conventions (.TH title and section from its file name, "(date)"
# and "Linux man-pages (unreleased)", NAME giving the title, the sections
# in man-pages' order), no trailing white space and no blank line
# (man-pages' lint-man-ws and lint-man-blank); mandoc -Tlint -W style and
# groff -man -ww -rCHECKSTYLE=3 report nothing (CHECKSTYLE needs groff
# 1.23: Debian 12's 1.22.4 ignores it); for a page of the base, nothing
# that the unpatched page does not have already; it renders with the
# expected NAME line; the rendered prctl(2) names each new operation in
# its list and in SEE ALSO; and every PR_* constant, CONFIG_* option and
# kernel Documentation/ file the patch's lines name exists in the kernel
# series, with the values the commit message gives. Any problem fails and
# names the page. MAN_PATCHES=<dir> checks another directory of man-pages
# patches; PATCHES=<dir> takes the kernel series from another directory
# (default: the series of the base, patches/ for mainline).
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

MAN_PATCHES=${MAN_PATCHES:-$TOP/man-pages}
PATCHES=${PATCHES:-${SERIES:-$TOP/patches}}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Bump when the recipe of the base tree (man_base) changes: it is part of
# the cache key.
MAN_RECIPE=1
# The pages the series needs.
expect="man/man2const/PR_GET_MEM_MODEL.2const man/man2const/PR_SET_MEM_MODEL.2const"
# The page that lists every prctl() operation: each PR_* page of $expect
# must be in its list and in its SEE ALSO.
list_page=man/man2/prctl.2
# man-pages' order of the sections (man-pages(7)); a page has a subset.
order="NAME LIBRARY SYNOPSIS CONFIGURATION DESCRIPTION OPTIONS EXIT_STATUS
	RETURN_VALUE ERRORS ENVIRONMENT FILES ATTRIBUTES VERSIONS STANDARDS
	HISTORY NOTES CAVEATS BUGS EXAMPLES AUTHORS REPORTING_BUGS COPYRIGHT
	SEE_ALSO"

# The base tree: "package version pages" of harness/man-pages-base.tsv.
_mb=$(data_lines "$TOP/harness/man-pages-base.tsv" | head -n 1)
MAN_PACKAGE=$(echo "$_mb" | awk '{ print $1 }')
MAN_VERSION=$(echo "$_mb" | awk '{ print $2 }')
MAN_PAGES=$(echo "$_mb" | awk '{ print $3 }' | tr , ' ')
[ -n "$MAN_PAGES" ] ||
	die "harness/man-pages-base.tsv has no 'package version pages' line"

for t in mandoc groff; do
	command -v $t >/dev/null ||
		die "no $t: install Debian's mandoc and groff-base ('make deps')"
done
for t in apt-get apt-cache dpkg-deb gzip; do
	command -v $t >/dev/null ||
		die "no $t: the base tree comes from Debian's $MAN_PACKAGE, which needs Debian's apt, dpkg and gzip"
done
set -- "$MAN_PATCHES"/[0-9][0-9][0-9][0-9]-*.patch
[ -e "$1" ] || die "no man-pages patch in ${MAN_PATCHES#"$TOP"/}"

# man_base: print "VERSION GIT": the version of MAN_PACKAGE the base tree
# was made from and its bare repository in the cache, with one
# deterministic commit, tagged 'base', holding MAN_PAGES in the source form
# of man-pages' git (the package has them gzipped, with the release's date
# and version in .TH, which man-pages' build puts in). Made on the first
# run: the package is downloaded from Debian's unstable through a private
# apt configuration (the host's /etc/apt is not touched), extracted and
# never installed; if unstable no longer serves the pinned version, its
# current one is taken, and the run says so. A warm run downloads nothing.
man_base() {
	used=$CACHE/man-pages-base-$MAN_PACKAGE-$MAN_VERSION.used
	ver=$MAN_VERSION
	[ ! -f "$used" ] || ver=$(cat "$used")
	git_dir=$CACHE/man-pages-base-$MAN_PACKAGE-$ver-r$MAN_RECIPE.git
	if [ -f "$git_dir/mem-model-complete" ]; then
		echo "$ver $git_dir"
		return
	fi
	debs=$CACHE/debs
	mkdir -p "$debs"
	set -- "$CACHE/apt-unstable-man-pages" \
		"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $DEBIAN_MIRROR unstable main"
	ver=$MAN_VERSION
	deb=$debs/${MAN_PACKAGE}_${ver}_all.deb
	if [ ! -f "$deb" ]; then
		msg "    $MAN_PACKAGE $ver: downloading from Debian's unstable" >&2
		run_logged "$LOGS/apt-man-pages.log" apt_private "$@" apt-get update >&2
		# (apt-cache show exits 0 on an unknown version too.)
		if ! apt_private "$@" apt-cache show "$MAN_PACKAGE=$ver" 2>/dev/null | grep -q '^Package: '; then
			new=$(apt_private "$@" apt-cache policy "$MAN_PACKAGE" | sed -n 's/^  Candidate: //p')
			case $new in
			'' | '(none)') die "unstable serves no $MAN_PACKAGE" ;;
			esac
			msg "    note: $MAN_PACKAGE $ver is no longer served; using $new instead (the pin is in harness/man-pages-base.tsv)" >&2
			ver=$new
			deb=$debs/${MAN_PACKAGE}_${ver}_all.deb
		fi
		if [ ! -f "$deb" ]; then
			(cd "$debs" && apt_private "$@" apt-get download "$MAN_PACKAGE=$ver") \
				>>"$LOGS/apt-man-pages.log" 2>&1 ||
				die "downloading $MAN_PACKAGE $ver failed: see ${LOGS#"$TOP"/}/apt-man-pages.log"
			[ -f "$deb" ] || die "apt-get download gave no ${deb##*/}"
		fi
	fi
	git_dir=$CACHE/man-pages-base-$MAN_PACKAGE-$ver-r$MAN_RECIPE.git
	if [ ! -f "$git_dir/mem-model-complete" ]; then
		tmp=$CACHE/man-pages-base.tmp.$$
		trap 'rm -rf "$tmp"' EXIT
		rm -rf "$tmp" "$git_dir"
		mkdir -p "$tmp/deb" "$tmp/tree"
		dpkg-deb -x "$deb" "$tmp/deb"
		for mp in $MAN_PAGES; do
			# Debian installs man/man2const/X.2const as man2/X.2const.gz.
			b=${mp##*/}
			gz=$tmp/deb/usr/share/man/man$(printf %.1s "${b##*.}")/$b.gz
			[ -f "$gz" ] || die "$MAN_PACKAGE $ver has no ${gz#"$tmp/deb/"}"
			mkdir -p "$tmp/tree/${mp%/*}"
			gzip -dc "$gz" |
				sed '/^\.TH /s/^\(\.TH [^ ]* [^ ]*\) [^ ]* "Linux man-pages [^"]*"$/\1 (date) "Linux man-pages (unreleased)"/' \
					>"$tmp/tree/$mp"
			grep -q '^\.TH [^ ]* [^ ]* (date) "Linux man-pages (unreleased)"$' "$tmp/tree/$mp" ||
				die "$MAN_PACKAGE $ver: no '.TH title section date \"Linux man-pages version\"' line in $b"
		done
		commit_tree "$git_dir" "$tmp/tree" "Debian $MAN_PACKAGE" \
			"$MAN_PACKAGE@packages.debian.org" \
			"Debian $MAN_PACKAGE $ver: $MAN_PAGES in man-pages' source form"
		rm -rf "$tmp"
	fi
	echo "$ver" >"$used"
	echo "$ver $git_dir"
}

# new_lines BEFORE AFTER: the lines of AFTER that BEFORE has not (a line
# that occurs more often, as often as it does more), compared without the
# line and column numbers ("page:12:5:", "page:12:", "12:") that added
# lines shift.
new_lines() {
	awk 'function key(s) {
		gsub(/:[0-9]+(:[0-9]+)?:/, ":", s)
		sub(/^[0-9]+:/, "", s)
		return s
	}
	FILENAME == ARGV[1] { n[key($0)]++; next }
	{ k = key($0); if (n[k] > 0) n[k]--; else print }' "$1" "$2"
}

stage "man pages: lint the pages of ${MAN_PATCHES#"$TOP"/}"
work=$BUILD/man-pages
rm -rf "$work"
mkdir -p "$work"
mb=$(man_base)
man_base_git=${mb#* }
man_base_name="$MAN_PACKAGE ${mb%% *}"
msg "    base tree: $man_base_name ($MAN_PAGES), base-commit $(git --git-dir="$man_base_git" rev-parse --short=12 base)"
git clone -q "$man_base_git" "$work/tree"

# What the kernel series defines: "NAME VALUE" of each PR_* it adds to a
# header, its Kconfig options and the files it creates.
# A series in parts (PATCHES/N-NAME/): every part.
found=
for f in "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch "$PATCHES"/[0-9]-*/[0-9][0-9][0-9][0-9]-*.patch; do
	[ -e "$f" ] || continue
	cat "$f"
	found=1
done >"$work/series"
[ -n "$found" ] ||
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
		{ sed 's/^/      /' "$work/apply.log"; die "$name does not apply to the base tree ($man_base_name, harness/man-pages-base.tsv)"; }
	# It adds files, and lines to the pages of the base: anything else
	# (a removed or changed line, a removed, renamed or other file, a mode
	# change) is listed.
	git -C "$work/tree" apply --numstat --summary "$p" >"$work/stat"
	created=$(sed -n 's/^ create mode [0-7]* //p' "$work/stat")
	{
		grep '^ ' "$work/stat" | grep -v '^ create mode ' || true
		grep '	' "$work/stat" | while IFS='	' read -r a d f; do
			if printf '%s\n' "$created" | grep -qxF "$f"; then
				continue
			fi
			case " $MAN_PAGES " in
			*" $f "*) [ "$d" != 0 ] || [ "$a" = - ] || continue ;;
			esac
			printf '%s\t%s\t%s\n' "$a" "$d" "$f"
		done
	} >"$work/not-added"
	if [ -s "$work/not-added" ]; then
		fail "$name" "changes more than it adds (it may add files, and lines to $MAN_PAGES; added, removed, file):"
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
	pages="$pages $(cut -s -f3 "$work/stat" | grep '^man/man[^/]*/[^/]*$' | sed "s/\$/@$date/" | paste -sd" " -)"
done
# What the patches add to each page: all of a new page.
git -C "$work/tree" add -A

# A page that several patches touch, once, with the last one's date.
# shellcheck disable=SC2086
pages=$(printf '%s\n' $pages | awk -F@ 'NF { last[$1] = $0 } END { for (p in last) print last[p] }' | sort | paste -sd" " -)

for e in $expect; do
	case " $pages " in
	*" $e@"*) ;;
	*) fail "${e##*/}" "no patch in ${MAN_PATCHES#"$TOP"/} adds $e" ;;
	esac
done

# lint DIR PAGE DATE: in DIR, the page as man-pages' build makes it from
# PAGE (the source), DIR/mandoc and DIR/groff the linters' reports, DIR/ws
# and DIR/blank the lines with trailing white space and the blank ones,
# DIR/PAGE.txt the rendered page.
lint() {
	l_b=${2##*/}
	mkdir -p "$1"
	if [ ! -s "$2" ]; then
		for l_f in ws blank mandoc groff "$l_b.txt"; do
			: >"$1/$l_f"
		done
		return
	fi
	sed "/^\.TH/s/(date)/$3/" "$2" >"$1/$l_b"
	grep -n '[[:space:]]$' "$2" >"$1/ws" || true
	grep -n '^$' "$2" >"$1/blank" || true
	l_rc=0
	(cd "$1" && mandoc -Tlint -W style "$l_b") >"$1/mandoc" 2>&1 || l_rc=$?
	# mandoc exits 1 on a style message, which it prints; anything else
	# is a problem of its own.
	[ "$l_rc" -le 1 ] || [ -s "$1/mandoc" ] || echo "mandoc: exit $l_rc" >"$1/mandoc"
	(cd "$1" && groff -man -Tutf8 -P-cbou -ww -rCHECKSTYLE=3 -rLL=78n "$l_b") \
		>"$1/$l_b.txt" 2>"$1/groff" || true
}

for pd in $pages; do
	page=${pd%@*}
	date=${pd##*@}
	src=$work/tree/$page
	base=${page##*/}
	title=${base%.*}
	sect=${base##*.}
	n=0
	# The unpatched page, for a page of the base: the linters may
	# already report some of it, and only what the patches add is theirs.
	before=$work/before/$page
	mkdir -p "${before%/*}"
	if git -C "$work/tree" cat-file -e "HEAD:$page" 2>/dev/null; then
		git -C "$work/tree" show "HEAD:$page" >"$before"
		what="new in $base"
	else
		: >"$before"
		what=$base
	fi
	lint "$work/built-before/${page%/*}" "$before" "$date"
	lint "$work/built/${page%/*}" "$src" "$date"
	out=$work/built/${page%/*}
	old=$work/built-before/${page%/*}
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
	new_lines "$old/ws" "$out/ws" >"$work/new"
	if [ -s "$work/new" ]; then
		fail "$base" "white space at the end of a line:"
		sed 's/^/        /' "$work/new"
		n=$((n + 1))
	fi
	new_lines "$old/blank" "$out/blank" >"$work/new"
	if [ -s "$work/new" ]; then
		fail "$base" "blank line (use .P or .\\\"):"
		sed 's/^/        /' "$work/new"
		n=$((n + 1))
	fi
	# The linters, on the page as man-pages' build makes it.
	new_lines "$old/mandoc" "$out/mandoc" >"$work/new"
	if [ -s "$work/new" ]; then
		fail "$base" "mandoc -Tlint -W style, $what:"
		sed 's/^/        /' "$work/new"
		n=$((n + 1))
	fi
	new_lines "$old/groff" "$out/groff" >"$work/new"
	if [ -s "$work/new" ]; then
		fail "$base" "groff -man -ww -rCHECKSTYLE=3, $what:"
		sed 's/^/        /' "$work/new"
		n=$((n + 1))
	fi
	if ! sed -n '/^NAME$/{n;p;}' "$out/$base.txt" | grep -q "^       $title - [^ ]"; then
		fail "$base" "does not render a NAME line '$title - ...'"
		n=$((n + 1))
	fi
	# The kernel interfaces that the patches' lines name exist in the
	# series (or, for the PR_* constants, in build/linux's
	# <linux/prctl.h>).
	added=$work/added/$page
	mkdir -p "${added%/*}"
	git -C "$work/tree" diff --cached HEAD -- "$page" | sed -n '/^+++ /d; s/^+//p' >"$added"
	grep -o 'PR_[A-Z0-9_]*[A-Z0-9]' "$added" | sort -u >"$added.names"
	while read -r c; do
		grep -q "^$c " "$work/series-defines" && continue
		[ -f "$BUILD/linux/include/uapi/linux/prctl.h" ] &&
			grep -q "define[[:space:]]\{1,\}${c}[[:space:]]" "$BUILD/linux/include/uapi/linux/prctl.h" &&
			continue
		fail "$base" "names $c, which the kernel series does not define"
		n=$((n + 1))
	done <"$added.names"
	grep -o 'CONFIG_[A-Z0-9_]*[A-Z0-9]' "$added" | sort -u >"$added.names"
	while read -r c; do
		grep -q "^+config ${c#CONFIG_}\$" "$work/series" || {
			fail "$base" "names $c, which the kernel series does not add"
			n=$((n + 1))
		}
	done <"$added.names"
	sed 's/\\[:%]//g; s/\\-/-/g' "$added" | grep -o 'Documentation/[A-Za-z0-9_./-]*\.rst' |
		sort -u >"$added.names"
	while read -r d; do
		grep -q "^+++ b/$d\$" "$work/series" || {
			fail "$base" "names $d, which the kernel series does not create"
			n=$((n + 1))
		}
	done <"$added.names"
	rm -f "$added.names"
	if [ $n = 0 ]; then
		if [ -s "$before" ]; then
			msg "    $page: clean (+$(wc -l <"$added") lines on $man_base_name's $(wc -l <"$before"), $(grep -c . "$out/$base.txt") rendered)"
		else
			msg "    $page: clean ($(wc -l <"$src") lines, $(grep -c . "$out/$base.txt") rendered)"
		fi
	fi
done

# The rendered prctl(2) lists each new operation: a tag of its list of
# operations (DESCRIPTION) and an entry of SEE ALSO.
list=${list_page##*/}
list_txt=$work/built/${list_page%/*}/$list.txt
for e in $expect; do
	op=${e##*/}
	op=${op%.*}
	case $op in
	PR_*) ;;
	*) continue ;;
	esac
	case " $pages " in
	*" $list_page@"*) ;;
	*)
		fail "$list" "no patch in ${MAN_PATCHES#"$TOP"/} adds $op to $list_page"
		continue
		;;
	esac
	sed -n '/^DESCRIPTION$/,/^RETURN VALUE$/p' "$list_txt" | grep -qx "       $op" ||
		fail "$list" "the rendered prctl(2) does not list $op among its operations (DESCRIPTION)"
	sed -n '/^SEE ALSO$/,$p' "$list_txt" | tr -s ' \n' '  ' | grep -q " $op(2const)[,]* " ||
		fail "$list" "the rendered prctl(2) has no $op(2const) in SEE ALSO"
done
[ -z "$bad" ] || die "man pages: problems in$(echo "$bad" | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/ $//')"
stage_end
