#!/bin/sh
# judge-cell.sh [OPTIONS] NAME: judge a booted cell from what boot-cell.sh
# left in build/results/ (NAME.log, NAME.boot, NAME.monitor.log), with no
# QEMU: write NAME.row (and NAME.guest.row for a VM cell's nested guest,
# rows.sh), NAME.ktap, and say PASS or FAIL; a failure names the failed
# checks and shows the tail of the console, and exits 1.
# Options:
#   --results DIR       where NAME.* are (default build/results)
#   --counts FILE|none  the expected kselftest counts (default
#                       tests/counts.tsv; none: not checked)
#   --counts-cell CELL  whose counts (default: the cell NAME was booted as)
#   --expect ROW        judge against ROW of tests/expect.tsv, not the
#                       cell's (the harness self-test's wrong expectation)
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

counts=$TOP/tests/counts.tsv counts_cell='' expect=''
while [ $# -gt 1 ]; do
	case $1 in
	--expect) expect=$2; shift 2 ;;
	--results) RESULTS=$2; shift 2 ;;
	--counts) counts=$2; shift 2 ;;
	--counts-cell) counts_cell=$2; shift 2 ;;
	*) die "judge-cell.sh: unknown option '$1'" ;;
	esac
done
name=${1:?usage: judge-cell.sh [OPTIONS] NAME}
rec=$RESULTS/$name.boot
log=$RESULTS/$name.log
if [ ! -f "$rec" ] || [ ! -f "$log" ]; then
	die "no $rec or $log: boot the cell first (harness/boot-cell.sh)"
fi
# rec KEY: the record's value of KEY.
rec() {
	sed -n "s/^$1=//p" "$rec" | head -n 1
}
cell_load "$(rec line)"
cell_expect=${expect:-$cell_expect}
counts_cell=${counts_cell:-$(rec cell)}
rc=$(rec rc)
vm_expect=$(rec vm_expect)
vm_before=$(rec vm_before)

# judge LOG KTAP WANT COUNTS_CELL TESTS ORACLE ALLOW ONCE PROTOCOLS: judge
# one kernel's console (the host's, or the nested guest's), adding what
# fails to $fail and setting boot, got, probe, concl, pshow, counts,
# wcounts, ofig and klog. TESTS and ORACLE are empty if that kernel was
# not asked to run kselftests, or the oracle test. PROTOCOLS: the
# conclusions of the row, "FEX ROSETTA".
judge() {
	j_log=$1 j_ktap=$2 j_want=$3 j_cell=$4 j_tests=$5 j_oracle=$6
	j_allow=$7 j_once=$8 j_protocols=$9
	# KTAP: what run_kselftest.sh printed, without the kernel's own lines.
	sed -n '/^TAP version/,/^mem-model-harness: done/p' "$j_log" |
		grep -av '^\[ *[0-9]*\.[0-9]*\]\|^mem-model-harness:\|^guest: ' >"$j_ktap" || true

	if grep -aq '^mem-model-harness: done' "$j_log"; then
		boot=ok
	elif [ "$rc" = 124 ]; then
		boot=timeout fail="$fail boot"
	else
		boot=crashed fail="$fail boot"
	fi

	got=$(sed -n 's/^mem-model-probe: //p' "$j_log" | tail -n 1)
	if [ "$got" = "$j_want" ]; then
		probe=ok
	else
		probe=FAIL fail="$fail probe"
	fi

	# The client protocols (tests/guest/fex-protocol.c and
	# rosetta-protocol.c) run in every kernel. Each one's last line,
	# "NAME-protocol: result PASS|FAIL conclusion=C checks=N weak=W", must
	# say PASS and the row's conclusion; a missing line fails. concl shows
	# the conclusions, fex's/rosetta's (tso, fb, mix, '-' for none); pshow
	# what a failed one wanted, what it got and its last lines.
	concl=
	pshow=
	# shellcheck disable=SC2086
	set -- $j_protocols
	for p in fex rosetta; do
		p_want=${1:-}
		[ $# -eq 0 ] || shift
		p_got=$(sed -n "s/^$p-protocol: result //p" "$j_log" | tail -n 1)
		case $p_got in
		"PASS conclusion=$p_want "*) ;;
		*)
			fail="$fail $p"
			p_lines=$(grep -a "^$p-protocol: " "$j_log" |
				grep -av "^$p-protocol: result " | tail -n 12 | sed 's/^/  /')
			pshow="$pshow$p wanted: result PASS conclusion=$p_want
$p got:    ${p_got:+result }${p_got:-nothing}
${p_lines:+$p_lines
}"
			;;
		esac
		p_c=$(echo "$p_got" | sed -n 's/.* conclusion=\([a-z]*\).*/\1/p')
		case $p_c in
		fallback) p_c=fb ;;
		mixed) p_c=mix ;;
		'') p_c=- ;;
		esac
		concl=${concl:+$concl/}$p_c
	done

	# The kselftest programs and cases (rows.sh's one KTAP parser).
	ktap_results "$j_ktap" >"$j_ktap.results"
	counts=$(ktap_counts "$j_ktap.results")
	rm -f "$j_ktap.results"
	# shellcheck disable=SC2046
	set -- $(echo "$counts" | tr / ' ')
	t_fail=$2 t_all=$(($1 + $2 + $3)) c_fail=$5
	# One plan a collection: their sum.
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$j_ktap" | awk '{ n += $1 } END { print n + 0 }')
	[ "$t_fail" = 0 ] || fail="$fail tests"
	[ "$c_fail" = 0 ] || fail="$fail cases"
	if [ -n "$j_tests" ]; then
		[ "$plan" = "$t_all" ] || fail="$fail plan"
		[ "$t_all" -gt 0 ] || fail="$fail no-tests"
	fi

	# The counts the cell must give, as data (tests/counts.tsv): a case
	# that quietly stops testing and skips, or one that disappears,
	# changes them. A nested guest's are the row CELL:guest.
	wcounts=$counts
	if [ "$counts_file" != none ]; then
		wcounts=$(data_lines "$counts_file" | awk -v b="$BASE" -v c="$j_cell" '
			$2 == c && $1 == b { own = $3 " " $4 }
			$2 == c && $1 == "*" { any = $3 " " $4 }
			END { print (own != "" ? own : any) }')
	fi
	[ "$counts" = "$wcounts" ] || fail="$fail counts"

	# The oracle test's last line: "result PASS checks=C mismatches=M
	# get-disagreements=D", the figures of its stress.
	ofig=-
	if [ -n "$j_oracle" ]; then
		oline=$(sed -n 's/^mem-model-oracle: result //p' "$j_log" | tail -n 1)
		case $oline in
		PASS*) ;;
		*) fail="$fail oracle" ;;
		esac
		ofig=$(echo "$oline" | sed -n \
			's/.*checks=\([0-9]*\) mismatches=\([0-9]*\) get-disagreements=\([0-9]*\).*/\1\/\2\/\3/p')
		ofig=${ofig:-none}
	fi

	# The kernel's log: any warning, BUG, oops or lockdep report fails,
	# but for a WARNING whose message (the line before it) has the
	# cell's 'allow' text. Lockdep and might_sleep reports start with
	# WARNING: or BUG: too.
	# shellcheck disable=SC2046
	set -- $(grep -a '^\[ *[0-9]*\.[0-9]*\]' "$j_log" | awk -v allow="$j_allow" '
		/WARNING:|BUG:|Oops|Kernel panic|Unable to handle kernel|Internal error|INFO: task/ {
			if (allow != "-" && /WARNING:/ && index(prev, allow)) a++
			else n++
		}
		{ prev = $0 }
		END { print n + 0, a + 0 }')
	if [ "$1" = 0 ]; then
		klog=clean
	else
		klog="$1-reports" fail="$fail kernel-log"
	fi
	[ "$2" = 0 ] || klog="$klog+$2-allowed"
	# The cell's 'once' text ('+' for a space) must be in the kernel log
	# once.
	if [ "$j_once" != - ]; then
		n=$(grep -a '^\[ *[0-9]*\.[0-9]*\]' "$j_log" | grep -acF "$(echo "$j_once" | tr + ' ')" || true)
		if [ "$n" = 1 ]; then
			klog="$klog+expected-once"
		else
			klog="$klog+expected-${n}x" fail="$fail expected-log"
		fi
	fi
}

# row FILE CELL HOST KERNEL EXPECT: write judge()'s findings as a row.
row() {
	_r=PASS
	[ -z "$fail" ] || _r=FAIL
	row_write "$1" cell="$2" host="$3" kernel="$cell_kernel" expect="$4" \
		boot="$boot" probe="$probe $concl" kernel-log="$klog" \
		tests="${counts% *}" cases="${counts#* }" oracle="$ofig" \
		result="$_r" time="$5" failed="${fail# }"
}

counts_file=$counts
[ "$counts_file" = none ] || [ -f "$counts_file" ] || die "no counts file $counts_file"

# The nested guest first: its figures go to a row of its own.
fail=
gfail=
gmsg=
gshow=
if [ -n "$vm_expect" ]; then
	glog=$RESULTS/$name.guest.log
	sed -n 's/^guest: //p' "$log" >"$glog"
	vwant=$(expect_probe "$vm_expect")
	vpwant=$(expect_protocols "$vm_expect")
	if [ -z "$vwant" ] || [ -z "$vpwant" ]; then
		die "cell $name: tests/expect.tsv has no row '$vm_expect' with its protocols' conclusions"
	fi
	# A guest that ran no kselftest has no counts to check.
	host_counts=$counts_file
	[ -n "$(rec guest_tests)" ] || counts_file=none
	judge "$glog" "$RESULTS/$name.guest.ktap" "$vwant" "$counts_cell:guest" \
		"$(rec vm_tests)" "$(rec vm_oracle)" - - "$vpwant"
	counts_file=$host_counts
	vrc=$(sed -n 's/^mem-model-harness: vmm exit //p' "$log" | tail -n 1)
	[ "$vrc" = 0 ] || fail="$fail vmm-exit-${vrc:-none}"
	gfail=$fail
	row "$RESULTS/$name.guest.row" "$name:guest" "$name" "$vm_expect" -
	gmsg=" (guest: $vm_expect, cases p/f/s ${counts#* }, oracle $ofig)"
	[ "$probe" = ok ] ||
		gshow="      guest probe wanted: $vwant
      guest probe got:    ${got:-nothing}"
	[ "$counts" = "$wcounts" ] || gshow="${gshow:+$gshow
}      guest tests and cases p/f/s wanted: ${wcounts:-nothing}, got: $counts"
	[ -z "$pshow" ] || gshow="${gshow:+$gshow
}$(printf '%s' "$pshow" | sed 's/^/      guest /')"
	fail=
else
	rm -f "$RESULTS/$name.guest.row"
fi
want=$(expect_probe "$cell_expect")
pwant=$(expect_protocols "$cell_expect")
if [ -z "$want" ] || [ -z "$pwant" ]; then
	die "cell $name: tests/expect.tsv has no row '$cell_expect' with its protocols' conclusions"
fi
judge "$log" "$RESULTS/$name.ktap" "$want" "$counts_cell" "$t_collections" "$(rec oracle)" \
	"$cell_allow" "$cell_once" "$pwant"
for w in $gfail; do
	fail="$fail guest:$w"
done

# The VMM's runs before the guest, in order: "ok:FLAGS" must exit 0,
# "refused:FLAGS" must exit 1 with a message that says what was refused.
# Each prints "mem-model-harness: vmm run FLAGS exit RC".
vfig=
if [ -n "$vm_before" ]; then
	got_runs=$(awk '
		/^mem-model-vmm: .*refused/ { why = 1 }
		/^mem-model-harness: vmm run / { print $NF (why ? "+why" : ""); why = 0 }' "$log" |
		paste -sd' ' -)
	n=0
	for r in $(echo "$vm_before" | tr , ' '); do
		n=$((n + 1))
		# shellcheck disable=SC2086
		g=$(echo $got_runs | cut -d' ' -f$n)
		case ${r%%:*}/$g in
		ok/0 | refused/1+why) vfig="$vfig ${r%%:*}" ;;
		*) vfig="$vfig ${r%%:*}?${g:-none}" fail="$fail vmm-run-$n" ;;
		esac
	done
	vfig=" (VMM runs:$vfig)"
fi

# A singlestep cell: the monitor must have said so once init started.
sfig=
if [ -n "$(rec singlestep)" ]; then
	stepped=$(rec stepped)
	if [ -n "$stepped" ] &&
		grep -aq 'VM status: running (single step mode)' "$RESULTS/$name.monitor.log" 2>/dev/null; then
		sfig=" (one instruction a block from ${stepped}s)"
	else
		fail="$fail singlestep"
	fi
fi

# The kexec test's last line: "result PASS|FAIL <what>", printed by the
# kernel kexec'd into, or by the first if it could not kexec.
kfig=
if [ -n "$t_kexec" ]; then
	kline=$(sed -n 's/^mem-model-kexec: result //p' "$log" | tail -n 1)
	case $kline in
	PASS*) ;;
	*) fail="$fail kexec" ;;
	esac
	kfig=" (kexec: ${kline:-no result})"
fi

secs=$(rec secs)
row "$RESULTS/$name.row" "$name" - "$cell_expect" "${secs}s"

if [ -n "$fail" ]; then
	msg "    $name: FAIL (${fail# })"
	[ "$probe" = ok ] || printf "      probe wanted: %s\n      probe got:    %s\n" "$want" "${got:-nothing}"
	[ -z "$pshow" ] || printf '%s' "$pshow" | sed 's/^/      /'
	[ "$counts" = "$wcounts" ] || printf "      tests and cases p/f/s wanted: %s (%s)\n      got:                          %s\n" \
		"${wcounts:-nothing}" "${counts_file#"$TOP"/}" "$counts"
	[ -z "$(rec oracle)" ] || grep -a '^mem-model-oracle: .*\(not ok\|mismatch\|disagree\|FAIL\|timeout\)' "$log" |
		head -n 15 | sed 's/^/      /'
	[ -z "$t_kexec" ] || grep -a '^mem-model-kexec: ' "$log" |
		head -n 15 | sed 's/^/      /'
	[ -z "$vm_before" ] || printf '      VMM runs wanted: %s\n      got:%s\n' "$vm_before" "$vfig"
	if [ -n "$gfail" ]; then
		[ -z "$gshow" ] || printf '%s\n' "$gshow"
		grep -a '^guest: mem-model-oracle: .*\(not ok\|mismatch\|disagree\|FAIL\|timeout\)\|^mem-model-vmm: ' "$log" |
			head -n 15 | sed 's/^/      /'
	fi
	msg "      last lines of ${log#"$TOP"/}:"
	tail -n 25 "$log" | sed 's/^/      | /'
	exit 1
fi
oracle_fig=
[ -z "$(rec oracle)" ] || oracle_fig=" (oracle checks/mismatches/get-disagreements: $ofig)"
msg "    $name: PASS in ${secs}s$oracle_fig$kfig$vfig$sfig$gmsg"
