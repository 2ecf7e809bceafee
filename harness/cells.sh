# shellcheck shell=sh
# shellcheck disable=SC2034 # the variables it sets are its callers'
# The cells of a matrix (tests/matrix.txt, tests/regressions.txt): the one
# reader of a cell's line and of its 'tests' column. Sourced by lib.sh.

# The oracle stress's defaults, for "oracle" without figures: SECONDS,
# then the fewest checks (about 250000 are made in 10 s on the emulated
# Apple CPU; the stress runs on past SECONDS until it has them).
ORACLE_SECONDS=10
ORACLE_MIN_CHECKS=100000

# The cells of the matrix, without comments and blank lines.
matrix_lines() {
	data_lines "$MATRIX"
}

# tests_parse TESTS: read a cell's 'tests' column, a comma-separated list
# of words, into t_*:
#   COLLECTION      a kselftest collection ("arm64/abi": the arm64
#                   collection, built with that subtarget)
#   kvm             the KVM series' selftest, kvm:mem_model, which
#                   build-guest.sh builds
#   kvm/TEST        one of upstream's KVM selftests, TEST its path under
#                   tools/testing/selftests/kvm ("kvm/get-reg-list",
#                   "kvm/arm64/hypercalls"), which build-guest.sh adds to
#                   the collection kvm
#   oracle[:MIN[:SECONDS]]  the oracle test (tests/guest/mem-model-oracle.c)
#   kexec:VARIANT   the kexec test, into kernel VARIANT
#   vm:OPTIN        a KVM host with a nested guest (tests/vm.tsv)
#   param:NAME=VAL  a kernel parameter
#   bases:A+B       boot on those bases alone
#   singlestep      one instruction a translation block once init starts
# t_collections: the collections as run_kselftest.sh names them, and a
# test of one as "COLLECTION:TEST" ("a,b,kvm:mem_model"); t_targets:
# the kselftest targets to build, as "TARGET", "TARGET/SUBTARGET" or
# "kvm/TEST" (not "kvm"); t_oracle_min and t_oracle_secs (empty: no
# oracle test); t_kexec, t_vm, t_params (space-separated), t_bases
# ("+A+B+", empty: every base), t_singlestep (yes or empty). An unknown
# word is an error.
tests_parse() {
	t_collections='' t_targets='' t_oracle_min='' t_oracle_secs='' t_kexec='' t_vm=''
	t_params='' t_bases='' t_singlestep=''
	for _w in $(echo "$1" | tr , ' '); do
		case $_w in
		-) ;;
		oracle) t_oracle_min=$ORACLE_MIN_CHECKS t_oracle_secs=$ORACLE_SECONDS ;;
		oracle:*:*)
			_o=${_w#oracle:}
			t_oracle_min=${_o%%:*} t_oracle_secs=${_o#*:}
			;;
		oracle:*) t_oracle_min=${_w#oracle:} t_oracle_secs=$ORACLE_SECONDS ;;
		kexec:?*) t_kexec=${_w#kexec:} ;;
		vm:?*) t_vm=${_w#vm:} ;;
		param:?*=*) t_params="${t_params:+$t_params }${_w#param:}" ;;
		bases:?*) t_bases=+${_w#bases:}+ ;;
		singlestep) t_singlestep=yes ;;
		*:*) die "tests column: unknown word '$_w'" ;;
		# The collection kvm holds upstream's KVM selftests too.
		kvm) t_collections="$t_collections kvm:mem_model" ;;
		kvm/?*)
			t_collections="$t_collections kvm:${_w#kvm/}"
			t_targets="$t_targets $_w"
			;;
		*)
			t_collections="$t_collections ${_w%%/*}"
			t_targets="$t_targets $_w"
			;;
		esac
	done
	case $t_oracle_min$t_oracle_secs in
	*[!0-9]*) die "tests column: oracle:MIN:SECONDS takes numbers, not '$1'" ;;
	esac
	# shellcheck disable=SC2086 # one word each
	t_collections=$(printf '%s\n' $t_collections | sort -u | paste -sd, -)
	# shellcheck disable=SC2086
	t_targets=$(printf '%s\n' $t_targets | sort -u | paste -sd' ' -)
}

# cell_line CELL: CELL's line of the matrix.
cell_line() {
	matrix_lines | awk -v c="$1" '$1 == c'
}

# cell_load LINE: a cell's line into cell_* (name, qemu, kernel, expect,
# timeout, tests, allow, once, and flags: the rest), and its tests column
# into t_* (tests_parse).
cell_load() {
	# shellcheck disable=SC2086
	set -- $1
	[ $# -ge 9 ] || die "a cell's line needs nine columns or more: $*"
	cell_name=$1 cell_qemu=$2 cell_kernel=$3 cell_expect=$4 cell_timeout=$5
	cell_tests=$6 cell_allow=$7 cell_once=$8
	shift 8
	cell_flags=$*
	tests_parse "$cell_tests"
}

# cell_on_base BASE: whether the cell that cell_load read last boots on
# BASE, whatever its architecture. The VM cells test the KVM series,
# which only the posting (the first base) carries; the singlestep cell
# runs there only too (the context switch it steps through is the same
# code in the backport); a cell with "bases:A+B" boots on those bases
# alone.
cell_on_base() {
	[ -z "$t_vm$t_singlestep" ] || [ "$1" = "$FIRST_BASE" ] || return 1
	case ${t_bases:-+$1+} in
	*"+$1+"*) return 0 ;;
	esac
	return 1
}

# base_cells [BASE]: the names of the matrix's cells that BASE (default:
# this base) boots (cell_on_base), those whose kernel is of one of its
# architectures.
base_cells() {
	_b=${1:-$BASE}
	_arches=$(bases_lines | awk -v b="$_b" '$1 == b { print $6 }' | tr , ' ')
	matrix_lines | while read -r _line; do
		cell_load "$_line"
		cell_on_base "$_b" || continue
		case " $_arches " in
		*" $(variant_arch "${cell_kernel#base/}") "*) echo "$cell_name" ;;
		esac
	done
}

# opt_row FILE KEY: the line of data file FILE whose first word is KEY.
opt_row() {
	data_lines "$1" | awk -v k="$2" '$1 == k'
}

# expect_probe ROW: what the probe must print for ROW of tests/expect.tsv,
# "get=G set_tso=S get_after=A set_default=D"; expect_protocols ROW: the
# conclusions the client protocols must reach there, "FEX ROSETTA".
expect_probe() {
	opt_row "$TOP/tests/expect.tsv" "$1" |
		awk '{ print "get=" $2 " set_tso=" $3 " get_after=" $4 " set_default=" $5 }'
}
expect_protocols() {
	opt_row "$TOP/tests/expect.tsv" "$1" | awk 'NF >= 7 { print $6, $7 }'
}
