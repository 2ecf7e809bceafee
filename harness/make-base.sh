#!/bin/sh
# Turn Debian's linux-source tarball of the base (BASE, harness/bases.tsv)
# into a git repository with one deterministic commit, tagged 'base', kept
# in the cache. Its hash is the same on every machine, so that every
# machine builds the same tree and make-mail.sh can rebuild an earlier
# revision on it. It has Debian's patches applied and exists nowhere
# upstream, so no cover letter names it (lib.sh, drop_base_commit).
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

# Bump when the recipe below changes: it is part of the cache key.
RECIPE=1
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# The base actually used: the pinned version, or for a base from
# experimental, once that version is no longer served, the newest
# linux-source-7.N there or in unstable. make-tree.sh and the cover letter
# read it back from here: "PACKAGE VERSION REPOSITORY".
used=$CACHE/base-$BASE.used

kr=/usr/share/keyrings/debian-archive-keyring.gpg
# exp_apt COMMAND ARGS...: apt-get or apt-cache on a private configuration
# whose sources are experimental's and unstable's binary lists (lib.sh).
exp_apt() {
	apt_private "$CACHE/apt-experimental" "deb [signed-by=$kr] $DEBIAN_MIRROR experimental main
deb [signed-by=$kr] $DEBIAN_MIRROR unstable main" "$@"
}

# fetch_experimental: download the package into the cache through that
# configuration and print "PACKAGE VERSION DEB".
fetch_experimental() {
	debs=$CACHE/debs
	mkdir -p "$debs"
	pkg=$BASE_PACKAGE ver=$BASE_VERSION
	f=$debs/${pkg}_${ver}_all.deb
	if [ ! -f "$f" ]; then
		run_logged "$LOGS/apt-experimental.log" exp_apt apt-get update >&2
		if ! exp_apt apt-cache show "$pkg=$ver" >/dev/null 2>&1; then
			# The newest linux-source-7.N, N >= 3, either suite.
			new=$(exp_apt apt-cache search --names-only '^linux-source-7\.[0-9]+$' |
				awk '{ print $1 }' | while read -r p; do
					n=${p#linux-source-7.}
					[ "$n" -ge 3 ] || continue
					exp_apt apt-cache show "$p" | sed -n "s/^Version: /$p /p"
				done | sort -k2,2V | tail -n 1)
			[ -n "$new" ] ||
				die "$pkg $ver is no longer served, and experimental and unstable have no linux-source-7.N (N >= 3)"
			pkg=${new% *} ver=${new#* }
			msg "    note: $BASE_PACKAGE $BASE_VERSION is no longer served; using $pkg $ver instead" >&2
		fi
		(cd "$debs" && exp_apt apt-get download "$pkg=$ver") \
			>>"$LOGS/apt-experimental.log" 2>&1 ||
			die "downloading $pkg $ver failed: see ${LOGS#"$TOP"/}/apt-experimental.log"
		f=$debs/${pkg}_${ver}_all.deb
		[ -f "$f" ] || die "apt-get download gave no $f"
	fi
	echo "$pkg $ver $f"
}

if [ -f "$used" ]; then
	read -r used_pkg used_ver used_git <"$used"
	set -- "$used_pkg" "$used_ver" "$used_git"
	BASE_GIT=${3:-none}
	if [ "$BASE_GIT" = "$CACHE/base-$2-r$RECIPE.git" ] &&
	   [ -f "$BASE_GIT/mem-model-complete" ]; then
		msg "==> base tree $BASE: $1 $2, cached, commit $(git --git-dir="$BASE_GIT" rev-parse base)"
		exit 0
	fi
fi

stage "base tree $BASE: $BASE_PACKAGE $BASE_VERSION (cold: extract and commit)"
tmp=$CACHE/base.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
case $BASE_FROM in
host)
	pkg=$BASE_PACKAGE ver=$BASE_VERSION
	have=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || true)
	[ "$have" = "$ver" ] ||
		die "$pkg $ver is pinned, but '$have' is installed; run harness/install-deps.sh"
	tarball=/usr/src/$pkg.tar.xz
	;;
experimental)
	got=$(fetch_experimental)
	# shellcheck disable=SC2086 # PACKAGE VERSION DEB
	set -- $got
	pkg=$1 ver=$2
	msg "    ${3##*/}"
	dpkg-deb --fsys-tarfile "$3" | tar -C "$tmp" -xf - "./usr/src/$pkg.tar.xz"
	tarball=$tmp/usr/src/$pkg.tar.xz
	;;
*) die "base $BASE: unknown source '$BASE_FROM' in harness/bases.tsv" ;;
esac
BASE_GIT=$CACHE/base-$ver-r$RECIPE.git
run_logged "$LOGS/base-extract.log" tar -C "$tmp" -xf "$tarball"
rm -rf "${tmp:?}/usr"
commit_tree "$BASE_GIT" "$tmp/$pkg" 'Debian linux-source' \
	linux-source@packages.debian.org "Debian $pkg $ver"
msg "    commit: $(git --git-dir="$BASE_GIT" rev-parse base)"
echo "$pkg $ver $BASE_GIT" >"$used"
stage_end
