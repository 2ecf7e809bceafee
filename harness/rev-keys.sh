# shellcheck shell=sh
# Build keys read from a commit, without checking it out. Sourced, after
# lib.sh, by the scripts that look a build of the base commit up before
# they make its worktree (build-base-kernel.sh, check-warnings.sh).
#
# kernel_inputs_rev TREE REV ARCH and build_key_rev TREE REV VARIANT give,
# byte for byte, what lib.sh's kernel_inputs and build_key give in a
# worktree of the git tree TREE checked out at REV with nothing changed:
# the same 'git ls-tree' listings, of REV rather than of HEAD, hashed with
# the same lines. They mirror those two functions line for line. So that
# the two cannot drift apart unseen, REV_KEYS_OF is the sha256 (its first
# 16 digits) of the text of lib.sh's two functions they mirror:
#   sed -n '/^kernel_inputs() {$/,/^}$/p; /^build_key() {$/,/^}$/p' harness/lib.sh
# If lib.sh's differ, these give no key, which their callers take for a
# miss (they check out and build, as before), and say so: mirror the
# change here, then set REV_KEYS_OF to the new sum. build-base-kernel.sh
# also compares the two keys whenever it checks the base out.
REV_KEYS_OF=357e80572657dd9b

# rev_keys_current: whether lib.sh's key functions are those mirrored here.
rev_keys_current() {
	_rk_of=$(sed -n '/^kernel_inputs() {$/,/^}$/p; /^build_key() {$/,/^}$/p' \
		"$TOP/harness/lib.sh" | sha256sum | cut -c1-16)
	[ "$_rk_of" = "$REV_KEYS_OF" ] && return 0
	printf 'note: %s\n' "lib.sh's kernel_inputs or build_key changed since harness/rev-keys.sh mirrored them: no build key from a commit (mirror the change there and set REV_KEYS_OF=$_rk_of)" >&2
	return 1
}

# kernel_inputs_rev TREE REV ARCH: kernel_inputs of REV of TREE. Empty if
# REV is no commit of TREE.
kernel_inputs_rev() {
	rev_keys_current || return 0
	git -C "$1" rev-parse -q --verify "$2^{commit}" >/dev/null 2>&1 || return 0
	case $3 in
	x86_64) _rk_ka=x86 ;;
	*) _rk_ka=$3 ;;
	esac
	{
		git -C "$1" ls-tree "$2" | awk -F '\t' '$2 !~ /^(Documentation|MAINTAINERS|arch|tools)$/'
		git -C "$1" ls-tree "$2" Documentation/Kconfig Documentation/ABI
		git -C "$1" ls-tree "$2" arch/ | awk -F '\t' -v a="arch/$_rk_ka" '$1 ~ / blob / || $2 == a'
		git -C "$1" ls-tree "$2" tools/ | awk -F '\t' '$2 != "tools/testing"'
	} | git hash-object --stdin
}

# build_key_rev TREE REV VARIANT: build_key of REV of TREE for kernel
# variant VARIANT. Empty if REV is no commit of TREE.
build_key_rev() {
	_rk_arch=$(variant_arch "$3")
	_rk_in=$(kernel_inputs_rev "$1" "$2" "$_rk_arch")
	[ -n "$_rk_in" ] || return 0
	_rk_cc=gcc
	[ "$_rk_arch" != arm64 ] || _rk_cc=${CROSS_COMPILE}gcc
	{
		echo "$_rk_in"
		data_lines "$TOP/harness/kernels.tsv" | awk -v n="$3" '$1 == n'
		for _rk_fr in $(data_lines "$TOP/harness/kernels.tsv" |
			awk -v n="$3" '$1 == n { for (i = 5; i <= NF; i++) print $i }'); do
			cat "$TOP/harness/configs/$_rk_fr.config"
		done
		cat "$TOP/harness/build-kernel.sh"
		"$_rk_cc" --version | head -n 1
	} | sha256sum | cut -c1-32
}
