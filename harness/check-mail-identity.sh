#!/bin/sh
# check-mail-identity.sh: 'make mail' writes the posting as the sender,
# from git's user.name and user.email, and refuses without a sender.
# make-mail.sh runs in a scratch clone of this repository,
# build/mail-identity/repo (with this working tree's harness/, patches/,
# kvm/ and man-pages/, and this build/linux and build/kvm/linux linked
# in), under no git configuration but the one given here, so that the
# machine's and the clone's own never count:
# - it must refuse, naming the two 'git config' commands to run, with no
#   user.name, no user.email, or an address at each kind of domain that
#   RFC 2606 and RFC 6761 reserve (and mail-sender.sh, which 'make mail'
#   runs first, with none); and take addresses that only look like them;
# - as "A U Thor <a.u.thor@kernel-dev.org>", every part (the first, the
#   man-pages patch, the later parts, the KVM series) must be the
#   sender's: the From: of every mail, every Signed-off-by:, every M: line
#   of the series' MAINTAINERS entry; and of the names that the committed
#   patches carry at reserved domains, no name, address or domain is left
#   anywhere in build/mail.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

[ "$BASE" = "$FIRST_BASE" ] || die "the posting is the series of base $FIRST_BASE"
git -C "$BUILD/linux" rev-parse -q --verify 'base^{commit}' >/dev/null 2>&1 ||
	die "no build/linux: run 'make tree' first"
name='A U Thor'
email=a.u.thor@kernel-dev.org
dir=$BUILD/mail-identity
repo=$dir/repo
log=$dir/make-mail.log

stage "mail identity: make mail writes the posting as the sender, and refuses without one"
rm -rf "$dir"
mkdir -p "$dir"
git clone -q "$TOP" "$repo"
for d in harness patches kvm man-pages; do
	rm -rf "${repo:?}/$d"
	[ ! -e "$TOP/$d" ] || cp -R "$TOP/$d" "$repo/$d"
done

# as NAME EMAIL SCRIPT: run SCRIPT of the clone's harness/ with git's
# user.name NAME and user.email EMAIL ('-': unset) and no other git
# configuration; its output in $log.
as() {
	_nm=$1 _em=$2 _sc=$repo/harness/$3 _n=0
	set -- env GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_PARAMETERS=
	if [ "$_nm" != - ]; then
		set -- "$@" GIT_CONFIG_KEY_0=user.name "GIT_CONFIG_VALUE_0=$_nm"
		_n=1
	fi
	if [ "$_em" != - ]; then
		set -- "$@" "GIT_CONFIG_KEY_$_n=user.email" "GIT_CONFIG_VALUE_$_n=$_em"
		_n=$((_n + 1))
	fi
	"$@" GIT_CONFIG_COUNT=$_n sh "$_sc" >"$log" 2>&1
}

# refused NAME EMAIL SCRIPT [WHY]: SCRIPT refuses, before it writes
# anything, naming what to set (and saying WHY).
refused() {
	_u="'$1'" _e="'$2'"
	[ "$1" != - ] || _u='(unset)'
	[ "$2" != - ] || _e='(unset)'
	_who="user.name $_u and user.email $_e"
	if as "$1" "$2" "$3" ||
		! grep -qF 'git config user.name "Your Name"' "$log" ||
		! grep -qF 'git config user.email you@domain' "$log"; then
		sed 's/^/      /' "$log"
		die "$3, with $_who, did not refuse, saying what to set"
	fi
	if ! grep -qF "${4:-}" "$log"; then
		sed 's/^/      /' "$log"
		die "$3, with $_who, refused without saying \"$4\""
	fi
	[ ! -e "$repo/build/mail" ] || die "$3, with $_who, refused after writing build/mail"
}
refused - - mail-sender.sh "no user.name and no user.email"
refused - - make-mail.sh "no user.name and no user.email"
refused "$name" - make-mail.sh "no user.email"
refused - "$email" make-mail.sh "no user.name"
msg "    refused with no user.name or no user.email, as:"
sed 's/^/      /' "$log"
reserved="a.u.thor@example.com a.u.thor@lists.example.net A.U.Thor@Example.ORG
	a.u.thor@users.noreply.kernel.example a.u.thor@mail.invalid
	a.u.thor@kernel-dev.test a.u.thor@localhost a.u.thor@box.localhost
	a.u.thor@example.org."
for a in $reserved; do
	refused "$name" "$a" make-mail.sh "reserved for examples and tests"
done
msg "    refused at reserved domains: $(echo "$reserved" | xargs), as:"
sed -n 's/^/      /; 1p' "$log"
# Addresses that only look reserved pass the identity check and reach
# the next one: the clone has no build/linux yet.
for a in a.u.thor@myexample.com a.u.thor@test.org a.u.thor@example.com.au \
	a.u.thor@localhost.org; do
	if as "$name" "$a" make-mail.sh || ! grep -q "no build/linux" "$log"; then
		cat "$log"
		die "make-mail.sh did not take <$a>, which is at no reserved domain"
	fi
done

# The posting, as the sender.
mkdir -p "$repo/build/kvm"
ln -s "$BUILD/linux" "$repo/build/linux"
[ ! -e "$KVM_TREE" ] || ln -s "$KVM_TREE" "$repo/build/kvm/linux"
t0=$(date +%s)
as "$name" "$email" make-mail.sh || {
	cat "$log"
	die "make-mail.sh as $name <$email> failed"
}
secs=$(($(date +%s) - t0))
mail=$repo/build/mail
# The parts: the first (build/mail/*.eml), man-pages, each later one,
# KVM.
parts=". man-pages"
first=
for p in $(series_parts); do
	[ -n "$first" ] || { first=$p && continue; }
	p=${p##*/}
	parts="$parts ${p#[0-9]-}"
done
for p in $(kvm_parts); do
	parts="$parts $(kvm_part_name "$p")"
done
files=
for p in $parts; do
	d=$mail/$p
	[ "$p" != . ] || d=$mail
	f=$(find "$d" -maxdepth 1 -type f \( -name '*.eml' -o -name '*.patch' \) | sort)
	[ -n "$f" ] || die "make-mail.sh wrote no mail to build/mail/$p"
	files="$files $f"
done
# From:, every Signed-off-by: (a patch has one at least), every M: line
# of the series' MAINTAINERS entry (its title: the first title line a
# MAINTAINERS diff adds; one M: line at least): the sender's.
# shellcheck disable=SC2086 # one word a mail
awk -v who="$name <$email>" -v counts="$dir/counts" '
	function bad(f, what, line) { printf "%s: %s: %s\n", f, what, line; nbad++ }
	function from_end() {
		if (!infrom) return
		infrom = 0; froms++
		if (v != who) bad(FILENAME, "From: is not the sender", v)
	}
	FNR == 1 {
		hdr = 1; maint = 0; entry = 0; nfiles++; f0 = froms
		if (FILENAME !~ /\/0000-[^\/]*$/) { patches++; need[FILENAME] = 1 }
	}
	hdr && infrom && /^[ \t]/ { sub(/^[ \t]+/, " "); v = v $0; next }
	hdr { from_end() }
	hdr && /^$/ { hdr = 0; if (froms == f0) bad(FILENAME, "no From:", ""); next }
	hdr && /^From: / { v = substr($0, 7); infrom = 1; next }
	hdr { next }
	/^Signed-off-by: / {
		sobs++; delete need[FILENAME]
		if ($0 != "Signed-off-by: " who) bad(FILENAME, "a Signed-off-by: that is not the sender", $0)
	}
	/^diff --git / { maint = ($0 == "diff --git a/MAINTAINERS b/MAINTAINERS"); entry = 0 }
	maint && title == "" && /^\+[A-Z0-9][^:][^:][^:]+$/ { title = substr($0, 2) }
	maint && /^@@ / { entry = (title != "" && index($0, "@@ " title) > 0) }
	maint && title != "" && substr($0, 2) == title { entry = 1 }
	maint && entry && /^[ +-]$/ { entry = 0 }
	maint && entry && /^[ +-]M:/ {
		ms++
		if (substr($0, 2) != "M:\t" who) bad(FILENAME, "an M: line of the entry that is not the sender", $0)
	}
	END {
		for (f in need) bad(f, "no Signed-off-by:", "")
		if (!ms) bad("build/mail", "no M: line of the series MAINTAINERS entry", "")
		print nfiles, patches, sobs, ms, title >counts
		exit (nbad > 0)
	}' $files >"$dir/bad" || {
	sed "s|$repo/||" "$dir/bad" | head -n 20
	die "build/mail is not all the sender's"
}
read -r nfiles npatches nsobs nms title <"$dir/counts"

# The names, addresses and domains that the committed patches carry at
# reserved domains, in From:, Signed-off-by: and M: lines.
placeholders=$(cat "$repo"/patches/*.patch "$repo"/patches/*/*.patch \
	"$repo"/kvm/*.patch "$repo"/kvm/*/*.patch "$repo"/man-pages/*.patch 2>/dev/null |
	awk -v re="$RESERVED_DOMAINS" '
		function who(s,   a, d, n) {
			if (!match(s, /<[^<>@]*@[^<>]*>[ \t]*$/)) return
			a = substr(s, RSTART + 1); sub(/>[ \t]*$/, "", a)
			d = tolower(a); sub(/.*@/, "", d); sub(/\.+$/, "", d)
			if (d !~ re) return
			n = substr(s, 1, RSTART - 1); sub(/^[ \t]+/, "", n); sub(/[ \t]+$/, "", n)
			print a; print d
			if (n != "") print n
		}
		f && /^[ \t]/ { sub(/^[ \t]+/, " "); v = v $0; next }
		f { who(v); f = 0 }
		/^From: / { v = substr($0, 7); f = 1; next }
		/^(Signed-off-by: |[ +-]M:\t)/ { v = $0; sub(/^[^:]*:[ \t]*/, "", v); who(v) }
		END { if (f) who(v) }' | sort -u)
left=$(echo "$placeholders" | while read -r s; do
	[ -z "$s" ] || grep -rlF -- "$s" "$mail" | sed "s|^$repo/||; s|\$|: $s|"
done)
if [ -n "$left" ]; then
	echo "$left" | sed 's/^/    /' | head -n 20
	die "build/mail keeps the identity of the committed patches"
fi
msg "    as $name <$email> (make-mail.sh: ${secs}s): $nfiles mails in build/mail, $(echo "$parts" | wc -w) parts, $npatches patches; From: of every mail, $nsobs Signed-off-by:, $nms M: line(s) of '$title': all the sender's"
msg "    nothing left of: $(echo "$placeholders" | paste -sd'|' - | sed 's/|/, /g')"
stage_end
