# shellcheck shell=sh
# shellcheck disable=SC2034 # the variables it sets are its callers'
# Common settings and helpers for the harness scripts. Sourced, not run.

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${MEM_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mem-model}

# data_lines FILE: the lines of a data file (a .tsv or .txt of tests/ or
# harness/) without its comments and blank lines.
data_lines() {
	sed -e 's/#.*//' "$1" | awk 'NF'
}

# The bases of harness/bases.tsv.
bases_lines() {
	data_lines "$TOP/harness/bases.tsv"
}

# The base this script works on: BASE, or the first line of
# harness/bases.tsv (mainline, the posting). Its tree, kernels, guest,
# logs and results live in BUILD: build/ for the first base,
# build/<base>/ for the others, laid out alike, so that ccache sees the
# same relative paths in both.
BASES=$(bases_lines | awk '{ print $1 }')
FIRST_BASE=$(echo "$BASES" | head -n 1)
BASE=${BASE:-$FIRST_BASE}
export BASE
_b=$(bases_lines | awk -v b="$BASE" '$1 == b')
[ -n "$_b" ] || {
	printf 'error: no base %s in harness/bases.tsv (bases: %s)\n' \
		"$BASE" "$(echo "$BASES" | paste -sd' ' -)" >&2
	exit 1
}
# Fields by awk: a sourced file must not touch the caller's "$@".
_f() { echo "$_b" | awk -v i="$1" '{ print $i }'; }
BASE_PACKAGE=$(_f 2) BASE_VERSION=$(_f 3) BASE_FROM=$(_f 4)
SERIES_NAME=$(_f 5)
SERIES=$TOP/$SERIES_NAME
BASE_ARCHES=$(_f 6 | tr , ' ')
BASE_COMMITS=$(_f 7 | tr , ' ')
BUILD_TOP=$TOP/build
# base_build BASE: where BASE's build lives.
base_build() {
	if [ "$1" = "$FIRST_BASE" ]; then
		echo "$BUILD_TOP"
	else
		echo "$BUILD_TOP/$1"
	fi
}
BUILD=$(base_build "$BASE")
LOGS=$BUILD/logs
RESULTS=$BUILD/results
CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
# One job more than the cores: a compile waiting on ccache's files or a
# serial link step leaves no core idle.
JOBS=${JOBS:-$(($(nproc) + 1))}

export CCACHE_DIR="$CACHE/ccache"
export CCACHE_BASEDIR="$BUILD"
export CCACHE_NOHASHDIR=1
export CCACHE_COMPILERCHECK=content
# Depend mode: a miss compiles once, without the extra preprocessor run
# that ccache otherwise makes to look the result up (about a fifth of a
# cold kernel build); kbuild's -Wp,-MMD gives ccache the headers.
export CCACHE_DEPEND=1
# Reproducible kernel builds: the same inputs give the same Image.
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_VERSION=1
export KBUILD_BUILD_USER=mem-model
export KBUILD_BUILD_HOST=harness
export LC_ALL=C

MATRIX=$TOP/tests/matrix.txt
# Every list of cells that boots the guest: the guest is built with the
# kselftest collections they name.
# The regression guard (tests/regressions.txt) runs on the first base only.
GUEST_LISTS=$TOP/tests/matrix.txt
[ "$BASE" != "$FIRST_BASE" ] || GUEST_LISTS="$GUEST_LISTS $TOP/tests/regressions.txt"

mkdir -p "$LOGS" "$RESULTS" "$CACHE"

# A series is one 'git format-patch --cover-letter' directory, or, when
# it is posted in parts, one such directory per part, named N-NAME
# (patches/1-core/, patches/2-apple/), each stacked on the parts before
# it. In build/linux the last part ends at branch 'series', and every
# other part at a branch of its NAME ('core'), which 'git rebase
# --update-refs' (on in build/linux) moves along with its commits.
# series_parts: the series' directories, in order.
series_parts() {
	_parts=$(find "$SERIES" -mindepth 1 -maxdepth 1 -type d -name '[0-9]-*' | sort)
	if [ -n "$_parts" ]; then
		echo "$_parts"
	else
		echo "$SERIES"
	fi
}

# part_branch DIR: the branch of build/linux at the end of part DIR.
part_branch() {
	if [ "$1" = "$(series_parts | tail -n 1)" ]; then
		echo series
	else
		_p=${1##*/}
		echo "${_p#[0-9]-}"
	fi
}

# The series posted as RFC, by name (a part's NAME, or a KVM part's
# kvm_part_name): those that no one has yet run on the hardware they are
# for. They stay RFC until someone with that hardware gives a Tested-by.
RFC_SERIES="apple kvm-vm kvm-per-vcpu"

# subject_prefix NAME PREFIX: PREFIX ("PATCH", "PATCH v2") for series
# NAME, with "RFC " before it if NAME is posted as RFC and PREFIX does not
# say RFC already (PREFIXES=RFC make mail).
subject_prefix() {
	case " $RFC_SERIES :$2 " in
	*" RFC"*) echo "$2" ;;
	*" $1 "*) echo "RFC $2" ;;
	*) echo "$2" ;;
	esac
}

# format_patch_base TREE RANGE: the --base option for 'git format-patch
# --cover-letter RANGE' in TREE: none when RANGE starts at the base (the
# first part, a one-directory series), else --base=base, so that the
# cover letter lists the patches below RANGE (the earlier parts) as
# prerequisite-patch-id lines. drop_base_commit then takes out the
# base-commit line that --base writes with them.
format_patch_base() {
	[ "$(git -C "$1" rev-parse "${2%%..*}")" = "$(git -C "$1" rev-parse 'base^{commit}')" ] ||
		echo --base=base
}

# drop_base_commit COVER: delete the 'base-commit:' line from the cover
# letter COVER. The base is this repository's import of Debian's
# linux-source package (harness/make-base.sh), with Debian's patches
# applied: a commit that exists nowhere upstream, which no maintainer or
# tool could look up. The cover letter names the upstream release
# instead. The prerequisite-patch-id lines, which name the earlier parts'
# patches by their content, stay.
drop_base_commit() {
	sed -i -e '/^base-commit: [0-9a-f]\{40\}$/d' "$1"
}

# series_patches [DIR]: the patches of the series (or of the directory
# DIR, a series or one of its parts), in order, without cover letters.
series_patches() {
	for _d in $(if [ $# -gt 0 ]; then echo "$1"; else series_parts; fi); do
		for _p in "$_d"/[0-9][0-9][0-9][0-9]-*.patch; do
			case $_p in
			*/0000-cover-letter.patch | *'*'*) ;;
			*) echo "$_p" ;;
			esac
		done
	done
}

# The content of the base's series (patches/ for mainline), and which tree
# commit it was made from or into: build/linux is up to date with the
# series while the two match.
patches_id() {
	cat "$SERIES"/*.patch "$SERIES"/[0-9]-*/*.patch 2>/dev/null |
		git hash-object --stdin
}

record_tree_state() {
	echo "$(patches_id) $(git -C "$BUILD/linux" rev-parse HEAD)" \
		>"$BUILD/linux/.git/mem-model-state"
}

# The KVM series, kvm/, is stacked on the first base's series. Its tree,
# build/kvm/linux, is a worktree of build/linux on branch 'kvm', and the
# kernel variants whose tree is 'kvm' (harness/kernels.tsv) are built from
# it into build/kvm/kernel/NAME: laid out as build/linux and
# build/kernel/NAME are, so that the compiler sees the same relative
# paths and ccache serves the builds of either tree, and the planted
# defects' tree. KVM_COMMIT_VARIANTS: the variant the bisection builds
# each KVM commit with.
KVM_SERIES=$TOP/kvm
KVM_TREE=$BUILD_TOP/kvm/linux
KVM_COMMIT_VARIANTS=kvm

kvm_patches_id() {
	cat "$KVM_SERIES"/*.patch "$KVM_SERIES"/[0-9]-*/*.patch 2>/dev/null |
		git hash-object --stdin
}

# The KVM series is posted in parts too (kvm/1-vm/, kvm/2-per-vcpu/): the
# first can be merged alone, the next is an RFC stacked on it. In
# build/kvm/linux the last part ends at branch 'kvm', every other at
# branch 'kvm-NAME'. kvm_parts: the directories, in order, or kvm/ itself
# if it is one series; none if it has no patch.
kvm_parts() {
	_parts=$(find "$KVM_SERIES" -mindepth 1 -maxdepth 1 -type d -name '[0-9]-*' 2>/dev/null | sort)
	if [ -n "$_parts" ]; then
		echo "$_parts"
	elif ls "$KVM_SERIES"/[0-9][0-9][0-9][0-9]-*.patch >/dev/null 2>&1; then
		echo "$KVM_SERIES"
	fi
}

# kvm_part_name DIR: the name of KVM part DIR, as the mail and RFC_SERIES
# know it: 'kvm-NAME' (kvm/1-vm/: kvm-vm), or 'kvm' for kvm/ itself.
kvm_part_name() {
	if [ "$1" = "$KVM_SERIES" ]; then
		echo kvm
	else
		_p=${1##*/}
		echo "kvm-${_p#[0-9]-}"
	fi
}

# kvm_part_branch DIR: the branch of build/kvm/linux at the end of DIR.
kvm_part_branch() {
	if [ "$1" = "$(kvm_parts | tail -n 1)" ]; then
		echo kvm
	else
		kvm_part_name "$1"
	fi
}

# The first part of the first base's series (patches/1-core/) is booted on
# its own, as it would be merged alone: the variants whose tree is 'core'
# are built from build/core/linux, a worktree of build/linux at the first
# part's branch ('core', detached), into build/core/kernel/NAME, laid out
# as build/linux and build/kernel/NAME are, so that ccache serves them
# from the builds of the whole series. sync_part1_tree moves the worktree
# to the branch's head.
PART1_TREE=$BUILD_TOP/core/linux

# variant_tree NAME: the 'tree' column of kernel variant NAME
# (harness/kernels.tsv): series, kvm or core.
variant_tree() {
	_t=$(data_lines "$TOP/harness/kernels.tsv" | awk -v n="$1" '$1 == n { print $3 }')
	[ -n "$_t" ] || die "no kernel variant '$1' in harness/kernels.tsv"
	case $_t in
	series) ;;
	kvm | core)
		[ "$BASE" = "$FIRST_BASE" ] ||
			die "kernel variant '$1' is built from the '$_t' tree, which only base $FIRST_BASE has"
		;;
	*) die "harness/kernels.tsv: variant $1: unknown tree '$_t'" ;;
	esac
	echo "$_t"
}

is_part1_variant() {
	[ "$BASE" = "$FIRST_BASE" ] && [ "$(variant_tree "$1")" = core ]
}

sync_part1_tree() {
	_b=$(part_branch "$(series_parts | head -n 1)")
	[ "$_b" != series ] || die "$SERIES_NAME/ is not in parts: no first part to build alone"
	git -C "$BUILD/linux" rev-parse -q --verify "$_b" >/dev/null ||
		die "build/linux has no branch '$_b', where the first part of the series ends: run 'make tree'"
	worktree_at "$PART1_TREE" "$_b"
}

# worktree_at DIR COMMIT: DIR, a worktree of build/linux that only the
# harness uses, checked out (detached, by force: nothing edits it) at
# COMMIT; made, or made again, if it is not one.
worktree_at() {
	_top=$(git -C "$1" rev-parse --show-toplevel 2>/dev/null) || _top=''
	if [ -z "$_top" ] || [ "$_top" != "$(cd "$1" && pwd -P)" ]; then
		rm -rf "$1"
		git -C "$BUILD/linux" worktree prune
		mkdir -p "$(dirname "$1")"
		git -C "$BUILD/linux" worktree add -q --detach "$1" "$2"
	fi
	git -C "$1" checkout -qf --detach "$2"
}

# is_kvm_variant NAME: true if variant NAME is built from the KVM tree.
is_kvm_variant() {
	[ "$BASE" = "$FIRST_BASE" ] && [ "$(variant_tree "$1")" = kvm ]
}

# variant_src NAME, variant_out NAME: the tree kernel variant NAME is
# built from, and where its build goes.
variant_src() {
	_vt=$(variant_tree "$1") || exit 1
	case $_vt in
	kvm) echo "$KVM_TREE" ;;
	core) echo "$PART1_TREE" ;;
	*) echo "$BUILD/linux" ;;
	esac
}
variant_out() {
	_vt=$(variant_tree "$1") || exit 1
	case $_vt in
	kvm) echo "$BUILD_TOP/kvm/kernel/$1" ;;
	core) echo "$BUILD_TOP/core/kernel/$1" ;;
	*) echo "$BUILD/kernel/$1" ;;
	esac
}
# variant_image NAME: the image of variant NAME's build.
variant_image() {
	echo "$(variant_out "$1")/$(arch_image "$(variant_arch "$1")")"
}

# variant_arch NAME: the architecture of kernel variant NAME of
# harness/kernels.tsv (arm64 or x86_64).
variant_arch() {
	_a=$(data_lines "$TOP/harness/kernels.tsv" |
		awk -v n="$1" '$1 == n { print $2 }')
	[ -n "$_a" ] || die "no kernel variant '$1' in harness/kernels.tsv"
	echo "$_a"
}

# arch_image ARCH: where a kernel build puts its bootable image.
arch_image() {
	case $1 in
	arm64) echo arch/arm64/boot/Image ;;
	x86_64) echo arch/x86/boot/bzImage ;;
	*) die "unknown architecture '$1'" ;;
	esac
}

# kernel_inputs_at TREE REV ARCH: a hash of what a kernel build for ARCH
# reads from commit REV of the git tree TREE: everything but the
# documentation (save the Kconfig and ABI files that a build may read),
# MAINTAINERS, the selftests and the other architectures. Read from the
# commit, without checking it out. Empty if REV is no commit of TREE.
kernel_inputs_at() {
	git -C "$1" rev-parse -q --verify "$2^{commit}" >/dev/null 2>&1 || return 0
	case $3 in
	x86_64) _ka=x86 ;;
	*) _ka=$3 ;;
	esac
	{
		git -C "$1" ls-tree "$2" | awk -F '\t' '$2 !~ /^(Documentation|MAINTAINERS|arch|tools)$/'
		git -C "$1" ls-tree "$2" Documentation/Kconfig Documentation/ABI
		git -C "$1" ls-tree "$2" arch/ | awk -F '\t' -v a="arch/$_ka" '$1 ~ / blob / || $2 == a'
		git -C "$1" ls-tree "$2" tools/ | awk -F '\t' '$2 != "tools/testing"'
	} | git hash-object --stdin
}

# kernel_inputs SRC ARCH: kernel_inputs_at of SRC's checkout. Empty if SRC
# is no git tree or has changes that are not committed.
kernel_inputs() {
	_st=$(git -C "$1" status --porcelain 2>/dev/null) || return 0
	[ -z "$_st" ] || return 0
	kernel_inputs_at "$1" HEAD "$2"
}

# build_key_at TREE REV VARIANT: the key under which a kernel build of
# VARIANT (harness/kernels.tsv) from commit REV of TREE is recorded as
# done: the commit's kernel inputs, the variant's line and config
# fragments, the build script and the compiler. Empty if REV is no
# commit of TREE. build_key SRC VARIANT: the same for SRC's checkout;
# empty if SRC is no git tree or has changes that are not committed. A
# build's key is the same whether it is read from the commit or from a
# checkout of it, so a build can be looked up before anything is checked
# out.
build_key_at() {
	_arch=$(variant_arch "$3")
	build_key_of "$(kernel_inputs_at "$1" "$2" "$_arch")" "$3" "$_arch"
}

build_key() {
	_arch=$(variant_arch "$2")
	build_key_of "$(kernel_inputs "$1" "$_arch")" "$2" "$_arch"
}

# build_key_of INPUTS VARIANT ARCH: the key of build_key_at, from the
# kernel inputs; empty if INPUTS is.
build_key_of() {
	[ -n "$1" ] || return 0
	_cc=gcc
	[ "$3" != arm64 ] || _cc=${CROSS_COMPILE}gcc
	{
		echo "$1"
		data_lines "$TOP/harness/kernels.tsv" | awk -v n="$2" '$1 == n'
		for _fr in $(data_lines "$TOP/harness/kernels.tsv" |
			awk -v n="$2" '$1 == n { for (i = 5; i <= NF; i++) print $i }'); do
			cat "$TOP/harness/configs/$_fr.config"
		done
		cat "$TOP/harness/build-kernel.sh"
		"$_cc" --version | head -n 1
	} | sha256sum | cut -c1-32
}

# Kernel builds done, keyed by build_key: the bisection
# (harness/check-commits.sh) does not repeat one.
BUILT_STAMPS=$CACHE/commit-builds
# Their images (harness/build-kernel.sh --image-only).
IMAGES=$CACHE/kernel-images
# The guests' CPIO archives, keyed by their inputs (harness/build-guest.sh).
GUESTS=$CACHE/guests

# The guest's initramfs for an architecture (harness/build-guest.sh).
guest_initramfs() {
	echo "$BUILD/guest/$1/initramfs.cpio"
}

msg() {
	printf '%s\n' "$*"
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# stage NAME: print one line when a stage starts; stage_end prints its
# duration.
stage() {
	STAGE_NAME=$1
	STAGE_START=$(date +%s)
	printf '==> %s\n' "$STAGE_NAME"
}

stage_end() {
	printf '<== %s (%ss)\n' "$STAGE_NAME" "$(($(date +%s) - STAGE_START))"
}

# apt_private DIR LINES COMMAND ARGS...: run COMMAND (apt-get or
# apt-cache) on a private apt configuration in DIR whose only sources are
# the sources.list lines LINES. The host's /etc/apt is neither read nor
# changed, and nothing is installed: DIR's dpkg status stays empty.
apt_private() {
	_apt=$1 _line=$2 _cmd=$3
	shift 3
	mkdir -p "$_apt/lists/partial" "$_apt/archives/partial"
	: >"$_apt/status"
	printf '%s\n' "$_line" >"$_apt/sources.list"
	"$_cmd" -o Dir::Etc::SourceList="$_apt/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$_apt/lists" \
		-o Dir::State::status="$_apt/status" \
		-o Dir::Cache="$_apt" -o Dir::Cache::Archives="$_apt/archives" \
		"$@"
}

# run_logged LOG CMD...: run CMD with its output in LOG, printing a
# progress line every 30 s so that no step is silent for a minute. On
# failure, show the tail of the log.
run_logged() {
	_log=$1
	shift
	"$@" >"$_log" 2>&1 &
	_pid=$!
	_t0=$(date +%s)
	while kill -0 "$_pid" 2>/dev/null; do
		_i=0
		while [ $_i -lt 30 ] && kill -0 "$_pid" 2>/dev/null; do
			sleep 1
			_i=$((_i + 1))
		done
		if kill -0 "$_pid" 2>/dev/null; then
			_last=$(tail -n 1 "$_log" | cut -c1-100)
			printf '    ... %ss, %s\n' "$(($(date +%s) - _t0))" \
				"${_last:-running}"
		fi
	done
	if ! wait "$_pid"; then
		printf 'error: failed; last lines of %s:\n' "${_log#"$TOP"/}" >&2
		tail -n 30 "$_log" >&2
		return 1
	fi
}

# cpio_tree DIR FIND-ARGS...: a newc archive, on standard output, of what
# 'find FIND-ARGS' lists in DIR, in a stable order, owned by root.
cpio_tree() {
	(cd "$1" && shift && find "$@" | LC_ALL=C sort |
		cpio -o -H newc --owner=0:0 --quiet)
}

# commit_tree GIT_DIR TREE NAME EMAIL MESSAGE: make GIT_DIR a new bare
# repository whose one commit, tagged 'base', holds every file of TREE
# (ignored ones too: Debian's linux-source ignores '/*'), by NAME <EMAIL>
# on a fixed date, so that its hash is the same on every machine; mark it
# complete once whole.
commit_tree() {
	_cd=$1 _ct=$2 _cn=$3 _ce=$4 _cm=$5
	rm -rf "$_cd"
	git init -q --bare "$_cd"
	# The commit of a kernel tree leaves some 90,000 loose objects; an
	# automatic 'git gc' would then repack them in the background,
	# competing with the kernel builds. Clones of the cache hardlink the
	# objects as they are.
	git --git-dir="$_cd" config gc.auto 0
	run_logged "$LOGS/commit-tree.log" _commit_tree_git add -f -A .
	(
		export GIT_AUTHOR_NAME="$_cn" GIT_AUTHOR_EMAIL="$_ce" \
			GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' \
			GIT_COMMITTER_NAME="$_cn" GIT_COMMITTER_EMAIL="$_ce" \
			GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
		_commit_tree_git commit -q --no-verify --no-gpg-sign -m "$_cm"
	)
	_commit_tree_git tag base
	touch "$_cd/mem-model-complete"
}
_commit_tree_git() {
	(cd "$_ct" && git -c core.autocrlf=false -c core.fileMode=true \
		-c core.bigFileThreshold=512m --git-dir="$_cd" --work-tree=. "$@")
}

# qemu_boot NAME LOG TIMEOUT QEMU "FLAGS" IMAGE INITRD CMDLINE [TICK]: boot
# IMAGE under QEMU with FLAGS, no network, 1 GiB, console to LOG, for
# TIMEOUT seconds at most; every 30 s a progress line names NAME and the
# last kselftest line. TICK, a function, runs every second meanwhile with
# the seconds since the start. Sets qemu_rc (124: timed out) and
# qemu_secs, and leaves LOG one line a line (untangle-console.sh).
qemu_boot() {
	_qn=$1 _ql=$2 _qt=$3 _qq=$4 _qf=$5 _qi=$6 _qd=$7 _qc=$8 _qk=${9:-}
	_q0=$(date +%s)
	# shellcheck disable=SC2086
	timeout --foreground -k 5 "$_qt" "$_qq" $_qf -m 1024 -nographic \
		-nic none -no-reboot -kernel "$_qi" -initrd "$_qd" -append "$_qc" \
		</dev/null >"$_ql" 2>&1 &
	_qp=$!
	while kill -0 "$_qp" 2>/dev/null; do
		sleep 1
		_qe=$(($(date +%s) - _q0))
		[ -z "$_qk" ] || "$_qk" "$_qe"
		if [ $((_qe % 30)) -eq 0 ] && kill -0 "$_qp" 2>/dev/null; then
			printf '    ... %s: %ss, %s\n' "$_qn" "$_qe" \
				"$(grep -a '^# selftests:\|^ok \|^not ok ' "$_ql" | tail -n 1 | cut -c1-80)"
		fi
	done
	wait "$_qp" && qemu_rc=0 || qemu_rc=$?
	qemu_secs=$(($(date +%s) - _q0))
	sh "$TOP/harness/untangle-console.sh" "$_ql"
}

# Whom a posting is from. RESERVED_DOMAINS, an extended regular
# expression over a domain in lower case: the names that RFC 2606 and
# RFC 6761 reserve for examples and tests, no one's address: the TLDs
# .example, .invalid, .test and .localhost, the name localhost, and
# example.com, example.net and example.org, with their subdomains.
RESERVED_DOMAINS='(^|\.)(example|invalid|test|localhost|example\.(com|net|org))$'

# reserved_address ADDRESS: whether ADDRESS (local@domain) is at a
# reserved domain.
reserved_address() {
	printf '%s\n' "${1##*@}" | tr '[:upper:]' '[:lower:]' | sed 's/\.*$//' |
		grep -Eq "$RESERVED_DOMAINS"
}

# sender_identity: SENDER_NAME and SENDER_EMAIL, whom the posting is from:
# git's user.name and user.email as this repository sees them ('git
# config user.name'), which b4 takes too. They go into every part's From:,
# Signed-off-by: and the series' MAINTAINERS M: line (as_sender).
# SENDER_FROM is the two as git format-patch writes them in From: (quoted
# or RFC 2047-encoded, as the name needs). Dies, saying what to set, if
# either is unset or the address is not one (no reserved domain: the
# Developer's Certificate of Origin needs a person).
sender_identity() {
	SENDER_NAME=$(git -C "$TOP" config user.name || true)
	SENDER_EMAIL=$(git -C "$TOP" config user.email || true)
	_why=
	if [ -z "$SENDER_NAME" ] && [ -z "$SENDER_EMAIL" ]; then
		_why="git has no user.name and no user.email"
	elif [ -z "$SENDER_NAME" ]; then
		_why="git has no user.name"
	elif [ -z "$SENDER_EMAIL" ]; then
		_why="git has no user.email"
	elif reserved_address "$SENDER_EMAIL"; then
		_why="git's user.email, $SENDER_EMAIL, is at a domain reserved for examples and tests (RFC 2606, RFC 6761)"
	else
		case $SENDER_EMAIL in
		*[[:space:]\<\>,\;\"]* | *@*@*) _why="git's user.email, '$SENDER_EMAIL', is not an address" ;;
		?*@?*.?*) ;;
		*) _why="git's user.email, '$SENDER_EMAIL', is not an address" ;;
		esac
		case $SENDER_NAME in
		*[\<\>]*) _why="git's user.name, '$SENDER_NAME', has a '<' or '>'" ;;
		esac
	fi
	[ -z "$_why" ] || die "$_why: the posting goes out under your own name and address (From:, Signed-off-by:, the MAINTAINERS entry). Set them, in this repository or with --global:
    git config user.name \"Your Name\"
    git config user.email you@domain"
	# From: as git format-patch writes it: a commit of the sender's,
	# without the user's or the system's configuration.
	_st=$(mktemp -d)
	_sg() {
		env GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_COUNT=0 \
			GIT_AUTHOR_NAME="$SENDER_NAME" GIT_AUTHOR_EMAIL="$SENDER_EMAIL" \
			GIT_COMMITTER_NAME="$SENDER_NAME" GIT_COMMITTER_EMAIL="$SENDER_EMAIL" \
			git -c init.defaultBranch=main "$@"
	}
	_sg init -q "$_st"
	echo x >"$_st/x"
	_sg -C "$_st" add x
	_sg -C "$_st" commit -q --no-verify --no-gpg-sign -m x
	SENDER_FROM=$(_sg -C "$_st" format-patch -1 --stdout | mail_header From)
	rm -rf "$_st"
	[ -n "$SENDER_FROM" ] || die "git format-patch wrote no From: for $SENDER_NAME <$SENDER_EMAIL>"
}

# mail_header NAME: the value of the header NAME of the mail on standard
# input, its lines unfolded.
mail_header() {
	awk -v h="$1" '
		/^$/ { exit }
		f && /^[ \t]/ { sub(/^[ \t]+/, " "); v = v $0; next }
		f { exit }
		tolower($0) ~ "^" tolower(h) ": " { f = 1; v = substr($0, length(h) + 3) }
		END { print v }'
}

# as_sender PATCH: the mail PATCH (git format-patch output), on standard
# output, from the sender (sender_identity): each name and address at a
# reserved domain in its From: header, an in-body From:, a
# Signed-off-by: or an M: line of a MAINTAINERS diff (the series' entry,
# added or as context) becomes SENDER_NAME <SENDER_EMAIL>; the rest is
# left as it is. A patch applied from it makes the sender's commit, with
# the sender's MAINTAINERS line. A sender's name or address that is not
# ASCII gets the MIME headers that git format-patch would have given.
as_sender() {
	_mime=0
	if printf '%s%s' "$SENDER_NAME" "$SENDER_EMAIL" | LC_ALL=C grep -q '[^ -~]'; then
		_mime=1
	fi
	AS_NAME=$SENDER_NAME AS_EMAIL=$SENDER_EMAIL AS_FROM=$SENDER_FROM \
	AS_MIME=$_mime AS_RE=$RESERVED_DOMAINS awk '
	function reserved(s,   a) {
		if (!match(s, /<[^<>]*>[ \t]*$/)) return 0
		a = substr(s, RSTART + 1)
		sub(/>[ \t]*$/, "", a)
		sub(/.*@/, "", a)
		a = tolower(a)
		sub(/\.+$/, "", a)
		return a ~ ENVIRON["AS_RE"]
	}
	function flush() {
		if (field == "") return
		if (tolower(unfolded) ~ /^from: / && reserved(unfolded))
			print "From: " ENVIRON["AS_FROM"]
		else
			printf "%s", field
		field = ""
	}
	BEGIN { hdr = 1; who = ENVIRON["AS_NAME"] " <" ENVIRON["AS_EMAIL"] ">" }
	hdr && /^[ \t]/ && field != "" {
		field = field $0 "\n"
		sub(/^[ \t]+/, " ")
		unfolded = unfolded $0
		next
	}
	hdr && /^$/ {
		flush()
		if (ENVIRON["AS_MIME"] && !ctype) {
			print "MIME-Version: 1.0"
			print "Content-Type: text/plain; charset=UTF-8"
			print "Content-Transfer-Encoding: 8bit"
		}
		hdr = 0; top = 1
		print
		next
	}
	hdr {
		flush()
		if (tolower($0) ~ /^content-type:/) ctype = 1
		field = $0 "\n"
		unfolded = $0
		next
	}
	top && /^From: / && reserved($0) { print "From: " who; top = 0; next }
	/./ { top = 0 }
	/^diff --git / { maint = ($0 == "diff --git a/MAINTAINERS b/MAINTAINERS") }
	/^Signed-off-by: / && reserved($0) { print "Signed-off-by: " who; next }
	maint && /^[ +-]M:\t/ && reserved($0) { print substr($0, 1, 1) "M:\t" who; next }
	{ print }
	END { flush() }' "$1"
}

# sender_series SRC DST: DST, a copy of the series directory SRC (a
# part, or a series in parts), each patch the sender's (as_sender).
sender_series() {
	rm -rf "$2"
	cp -R "$1" "$2"
	for _sp in "$2"/*.patch "$2"/[0-9]-*/*.patch; do
		[ -f "$_sp" ] || continue
		as_sender "$_sp" >"$_sp.new"
		mv "$_sp.new" "$_sp"
	done
}

# shellcheck source=harness/cells.sh
. "$TOP/harness/cells.sh"
# shellcheck source=harness/rows.sh
. "$TOP/harness/rows.sh"
