#!/bin/sh
# run-cell.sh CELL: boot one cell of the matrix, judge it, and write
# build/results/CELL.{log,ktap,row}. Exits non-zero if the cell fails, and
# then shows the tail of its console. KERNEL=<Image> boots that image
# instead of the cell's own kernel variant.
. "$(dirname "$0")/lib.sh"

cell=${1:?usage: run-cell.sh CELL}
line=$(matrix_lines | awk -v c="$cell" '$1 == c')
[ -n "$line" ] || die "no cell '$cell' in ${MATRIX#"$TOP"/}"
# shellcheck disable=SC2086
set -- $line
qemu=$2 kernel=$3 expect=$4 timeout=$5 tests=$6 allow=$7 once=$8
shift 8
flags=$*
# A QEMU given as a path is the harness' own build (qemu/).
case $qemu in
*/*)
	qemu=$TOP/$qemu
	[ -x "$qemu" ] || die "cell $cell: no $qemu: run harness/build-qemu.sh"
	;;
esac

# A kernel 'base/NAME' is the variant NAME built from the base commit
# (harness/build-base-kernel.sh).
case $kernel in
base/*) kdir=$BUILD/base/kernel/${kernel#base/} ;;
*) kdir=$(variant_out "$kernel") ;;
esac
arch=$(variant_arch "${kernel#base/}")
image=${KERNEL:-$kdir/$(arch_image "$arch")}
initrd=$(guest_initramfs "$arch")
case $arch in
arm64) console=ttyAMA0 ;;
x86_64) console=ttyS0 ;;
esac
[ -f "$image" ] || die "cell $cell: no kernel image $image"
[ -f "$initrd" ] || die "cell $cell: no initramfs: run harness/build-guest.sh"
# The first part of the series alone boots with that part's own mem_model
# kselftest (harness/build-guest.sh), unpacked over the series' one.
core=
if is_part1_variant "${kernel#base/}"; then
	core=$(dirname "$initrd")/core-kselftest.cpio
	[ -f "$core" ] || die "cell $cell: no $core: run harness/build-guest.sh"
	cat "$initrd" "$core" >"$RESULTS/$cell.initrd"
	initrd=$RESULTS/$cell.initrd
fi
want=$(awk -v r="$expect" '$1 == r { print "get=" $2 " set_tso=" $3 " get_after=" $4 " set_default=" $5 }' \
	"$TOP/tests/expect.tsv")
[ -n "$want" ] || die "cell $cell: no row '$expect' in tests/expect.tsv"
# protocols ROW: the conclusions the client protocols must reach on ROW
# of tests/expect.tsv (its last two columns), as "FEX ROSETTA".
protocols() {
	awk -v r="$1" '$1 == r && NF >= 7 { print $6, $7 }' "$TOP/tests/expect.tsv"
}
pwant=$(protocols "$expect")
[ -n "$pwant" ] || die "cell $cell: row '$expect' of tests/expect.tsv names no fex and rosetta conclusions"
# Collections: "arm64/abi" runs as the collection "arm64". "oracle",
# "oracle:MIN" or "oracle:MIN:SECONDS" is the harness' oracle test
# (tests/guest/mem-model-oracle.c): its stress runs ORACLE_SECONDS, or
# SECONDS, or 10, and must make ORACLE_MIN_CHECKS, or MIN, or 100000
# checks (about 250000 in 10 s on the emulated Apple CPU).
collections=$(echo "$tests" | tr , '\n' | grep -v '^oracle\|^kexec:\|^vm:\|^param:\|^bases:\|^singlestep$' | sed 's,/.*,,' |
	sort -u | paste -sd, -)
cmdline="console=$console panic=-1"
# "param:NAME=VALUE" adds a kernel parameter (kvm-arm.mode=nvhe).
for p in $(echo "$tests" | tr , '\n' | sed -n 's/^param://p'); do
	cmdline="$cmdline $p"
done
[ -z "$collections" ] || cmdline="$cmdline mm_tests=$collections"
oracle=
otok=$(echo "$tests" | tr , '\n' | grep '^oracle' | head -n 1)
if [ -n "$otok" ]; then
	oracle=${ORACLE_SECONDS:-10}
	omin=${ORACLE_MIN_CHECKS:-100000}
	case $otok in
	oracle:*:*)
		o=${otok#oracle:}
		omin=${ORACLE_MIN_CHECKS:-${o%%:*}}
		oracle=${ORACLE_SECONDS:-${o#*:}}
		;;
	oracle:*) omin=${ORACLE_MIN_CHECKS:-${otok#oracle:}} ;;
	esac
	cmdline="$cmdline mm_oracle=$oracle mm_oracle_min=$omin"
fi

# add_kernel CPIO DIR IMAGE INITRD: write build/results/CELL.initrd,
# CPIO with /DIR/Image and /DIR/initramfs.cpio added (a kernel for the
# guest to start, and its initramfs), and print its path.
add_kernel() {
	a_stash=$RESULTS/$cell.$2
	rm -rf "$a_stash"
	mkdir -p "$a_stash/$2"
	cp "$3" "$a_stash/$2/Image"
	cp "$4" "$a_stash/$2/initramfs.cpio"
	{
		cat "$1"
		(cd "$a_stash" && find "$2" | LC_ALL=C sort |
			cpio -o -H newc --owner=0:0 --quiet)
	} >"$RESULTS/$cell.initrd"
	rm -rf "$a_stash"
	echo "$RESULTS/$cell.initrd"
}

# "kexec:VARIANT" is the harness' kexec test (tests/guest/mem-model-kexec.c):
# the cell boots the small guest with kernel variant VARIANT added, and
# the guest kexecs into it from a TSO thread.
kexec=$(echo "$tests" | tr , '\n' | sed -n 's/^kexec://p' | head -n 1)
if [ -n "$kexec" ]; then
	target=$BUILD/kernel/$kexec/$(arch_image arm64)
	small=$(dirname "$(guest_initramfs arm64)")/kexec.cpio
	[ -f "$target" ] || die "cell $cell: no kernel image $target"
	[ -f "$small" ] || die "cell $cell: no $small: run harness/build-guest.sh"
	initrd=$(add_kernel "$small" kexec "$target" "$small")
	cmdline="$cmdline mm_kexec=go"
fi

# "vm:OPTIN" makes the kernel a KVM host that boots the same kernel as a
# nested guest (tests/guest/mem-model-vmm.c): the row OPTIN of
# tests/vm.tsv gives the VMM's flags, what the guest must show and the
# kselftest collections it runs. The guest runs the probe, those and the
# oracle test; the host runs its oracle stress meanwhile if the cell asks
# for "oracle".
vm=$(echo "$tests" | tr , '\n' | sed -n 's/^vm://p' | head -n 1)
vguest=
vbefore=
if [ -n "$vm" ]; then
	vline=$(sed -e 's/#.*//' "$TOP/tests/vm.tsv" | awk -v o="$vm" '$1 == o')
	[ -n "$vline" ] || die "cell $cell: no opt-in '$vm' in tests/vm.tsv"
	# shellcheck disable=SC2086
	set -- $vline
	vflags=$2 vexpect=$3 vmode=$4 vchecks=$5 vtests=${6:--} vbefore=${7:--}
	# VM_TESTS=- runs no kselftest in the guest, and checks no guest
	# counts (the planted defects' runs: they fail on the oracle).
	[ "${VM_TESTS:-}" != - ] || vtests=-
	[ "$vtests" != - ] || vtests=
	[ "$vbefore" != - ] || vbefore=
	[ "$vflags" = none ] || vguest=yes
	if [ -n "$vguest" ]; then
		vwant=$(awk -v r="$vexpect" '$1 == r { print "get=" $2 " set_tso=" $3 " get_after=" $4 " set_default=" $5 }' \
			"$TOP/tests/expect.tsv")
		[ -n "$vwant" ] || die "cell $cell: no row '$vexpect' in tests/expect.tsv"
		vpwant=$(protocols "$vexpect")
		[ -n "$vpwant" ] || die "cell $cell: row '$vexpect' of tests/expect.tsv names no fex and rosetta conclusions"
	fi
	vcpio=$(dirname "$(guest_initramfs arm64)")/vm.cpio
	[ -f "$vcpio" ] || die "cell $cell: no $vcpio: run harness/build-guest.sh"
	initrd=$(add_kernel "$(guest_initramfs arm64)" vm "$image" "$vcpio")
	cmdline="$cmdline mm_vm=$vflags${vtests:+ mm_vm_tests=$vtests}"
	# The VMM's runs before the guest, without their ok:/refused:.
	if [ -n "$vbefore" ]; then
		runs=$(echo "$vbefore" | tr , '\n' | sed 's/^[a-z]*://' | paste -sd, -)
		cmdline="$cmdline mm_vm_before=$runs"
	fi
	# The nested guest's stress runs VM_ORACLE_SECONDS (5), whatever
	# ORACLE_SECONDS says, so that its fewest checks hold.
	if [ -n "$vguest" ] && [ "$vchecks" != - ]; then
		cmdline="$cmdline mm_vm_oracle=${VM_ORACLE_SECONDS:-5} mm_vm_oracle_min=$vchecks"
		[ "$vmode" = - ] || cmdline="$cmdline mm_vm_oracle_mode=$vmode"
	fi
fi

# "singlestep": the guest boots as usual, and once its init starts, QEMU
# runs one instruction a translation block (the monitor's "singlestep
# on", through a pipe), so that an interrupt can land between any two
# instructions of what runs next. The guest waits 3 s (mm_settle) before
# its tests; the monitor must then say "single step mode".
mon=
if echo "$tests" | tr , '\n' | grep -qx singlestep; then
	mon=$RESULTS/$cell.monitor
	rm -f "$mon.in" "$mon.out"
	mkfifo "$mon.in" "$mon.out"
	cmdline="$cmdline mm_settle=3"
	flags="$flags -monitor pipe:$mon"
fi

log=$RESULTS/$cell.log
ktap=$RESULTS/$cell.ktap
t0=$(date +%s)
# shellcheck disable=SC2086
timeout --foreground -k 5 "$timeout" "$qemu" $flags -m 1024 \
	-nographic -nic none -no-reboot -kernel "$image" -initrd "$initrd" \
	-append "$cmdline" \
	</dev/null >"$log" 2>&1 &
pid=$!
stepped=
if [ -n "$mon" ]; then
	cat "$mon.out" >"$mon.log" &
	mpid=$!
	# Read-write: the open does not wait for QEMU.
	exec 3<>"$mon.in"
fi
while kill -0 "$pid" 2>/dev/null; do
	sleep 1
	if [ -n "$mon" ] && [ -z "$stepped" ] &&
		grep -aq '^mem-model-harness: start' "$log"; then
		printf 'singlestep on\r\ninfo status\r\n' >&3
		stepped=$(($(date +%s) - t0))
	fi
	el=$(($(date +%s) - t0))
	if [ $((el % 30)) -eq 0 ] && kill -0 "$pid" 2>/dev/null; then
		printf '    ... %s: %ss, %s\n' "$cell" "$el" \
			"$(grep -a '^# selftests:\|^ok \|^not ok ' "$log" | tail -n 1 | cut -c1-80)"
	fi
done
wait "$pid" && rc=0 || rc=$?
[ -z "$kexec$vm$core" ] || rm -f "$initrd"
if [ -n "$mon" ]; then
	exec 3>&-
	kill "$mpid" 2>/dev/null || true
	rm -f "$mon.in" "$mon.out"
fi
secs=$(($(date +%s) - t0))
sh "$TOP/harness/untangle-console.sh" "$log"

# judge LOG KTAP WANT COUNTS_CELL TESTS ORACLE ALLOW ONCE PROTOCOLS: judge
# one kernel's console (the host's, or the nested guest's), adding what
# fails to $fail and setting boot, got, probe, concl, pshow, counts,
# wcounts, ofig, klog and the t_* and c_* counts. TESTS and ORACLE are
# empty if the kernel was not asked to run kselftests, or the oracle
# test. PROTOCOLS: the conclusions of the row, "FEX ROSETTA".
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

	t_skip=$(count '^ok .*# SKIP')
	t_pass=$(($(count '^ok ') - t_skip))
	t_fail=$(count '^not ok ')
	c_skip=$(count '^\(# \)\+ok .*# SKIP')
	c_pass=$(($(count '^\(# \)\+ok ') - c_skip))
	c_fail=$(count '^\(# \)\+not ok ')
	# One plan a collection: their sum.
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$j_ktap" | awk '{ n += $1 } END { print n + 0 }')
	[ "$t_fail" = 0 ] || fail="$fail tests"
	[ "$c_fail" = 0 ] || fail="$fail cases"
	if [ -n "$j_tests" ]; then
		[ "${plan:-0}" = $((t_pass + t_fail + t_skip)) ] || fail="$fail plan"
		[ $((t_pass + t_fail + t_skip)) -gt 0 ] || fail="$fail no-tests"
	fi

	# The counts the cell must give, as data (tests/counts.tsv): a case
	# that quietly stops testing and skips, or one that disappears,
	# changes them. COUNTS_CELL names the cell to take them from (a
	# planted cell's original); COUNTS=- checks none (the regression
	# guard compares base and series). A nested guest's are the row
	# CELL:guest.
	counts="$t_pass/$t_fail/$t_skip $c_pass/$c_fail/$c_skip"
	wcounts=$counts
	if [ "$COUNTS" != - ]; then
		wcounts=$(sed -e 's/#.*//' "$COUNTS" | awk -v b="$BASE" -v c="$j_cell" '
			NF && $2 == c && $1 == b { own = $3 " " $4 }
			NF && $2 == c && $1 == "*" { any = $3 " " $4 }
			END { print (own != "" ? own : any) }')
	fi
	[ "$counts" = "$wcounts" ] || fail="$fail counts"

	# The oracle test's last line: "result PASS checks=C mismatches=M
	# get-disagreements=D", the figures of its stress.
	ofig=-
	if [ -n "$j_oracle" ]; then
		oline=$(sed -n 's/^mem-model-oracle: result //p' "$j_log" | tail -n 1)
		# shellcheck disable=SC2086
		set -- $oline
		case ${1:-} in
		PASS) ;;
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
count() { grep -ac "$1" "$j_ktap" || true; }
COUNTS=${COUNTS:-$TOP/tests/counts.tsv}

# The nested guest first: its figures go to a row of its own.
fail=
gfail=
if [ -n "$vguest" ]; then
	glog=$RESULTS/$cell.guest.log
	sed -n 's/^guest: //p' "$log" >"$glog"
	hcounts=$COUNTS
	[ "${VM_TESTS:-}" != - ] || COUNTS=-
	# A guest whose row gives no fewest checks ('-') runs no oracle:
	# its host's CPU has none (vm-no-tso).
	vor=oracle
	[ "$vchecks" != - ] || vor=
	judge "$glog" "$RESULTS/$cell.guest.ktap" "$vwant" "${COUNTS_CELL:-$cell}:guest" \
		"$vtests" "$vor" - - "$vpwant"
	COUNTS=$hcounts
	vrc=$(sed -n 's/^mem-model-harness: vmm exit //p' "$log" | tail -n 1)
	[ "$vrc" = 0 ] || fail="$fail vmm-exit-${vrc:-none}"
	gfail=$fail
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s/%s/%s\t%s/%s/%s\t%s\t%s\t-\t%s\n' \
		"$cell:guest" "$kernel" "$vexpect" "$boot" "$probe $concl" "$klog" \
		"$t_pass" "$t_fail" "$t_skip" "$c_pass" "$c_fail" "$c_skip" "$ofig" \
		"$([ -z "$gfail" ] && echo PASS || echo FAIL)" "${gfail# }" >"$RESULTS/$cell.guest.row"
	gmsg=" (guest: $vexpect, cases p/f/s $c_pass/$c_fail/$c_skip, oracle $ofig)"
	gshow="$([ "$probe" = ok ] || printf "      guest probe wanted: %s\n      guest probe got:    %s" "$vwant" "${got:-nothing}")"
	[ "$counts" = "$wcounts" ] || gshow="${gshow:+$gshow
}      guest tests and cases p/f/s wanted: ${wcounts:-nothing}, got: $counts"
	[ -z "$pshow" ] || gshow="${gshow:+$gshow
}$(printf '%s' "$pshow" | sed 's/^/      guest /')"
	fail=
fi
judge "$log" "$ktap" "$want" "${COUNTS_CELL:-$cell}" "$collections" "$oracle" "$allow" "$once" \
	"$pwant"
for w in $gfail; do
	fail="$fail guest:$w"
done

# The VMM's runs before the guest, in order: "ok:FLAGS" must exit 0,
# "refused:FLAGS" must exit 1 with a message that says what was refused.
# Each prints "mem-model-harness: vmm run FLAGS exit RC".
vfig=
if [ -n "$vbefore" ]; then
	got_runs=$(awk '
		/^mem-model-vmm: .*refused/ { why = 1 }
		/^mem-model-harness: vmm run / { print $NF (why ? "+why" : ""); why = 0 }' "$log" |
		paste -sd' ' -)
	n=0
	for r in $(echo "$vbefore" | tr , ' '); do
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

# A "singlestep" cell: the monitor must have said so once the guest's
# init started.
sfig=
if [ -n "$mon" ]; then
	if [ -n "$stepped" ] && grep -aq 'VM status: running (single step mode)' "$mon.log"; then
		sfig=" (one instruction a block from ${stepped}s)"
	else
		fail="$fail singlestep"
	fi
fi

# The kexec test's last line: "result PASS|FAIL <what>", printed by the
# kernel kexec'd into, or by the first if it could not kexec.
kfig=
if [ -n "$kexec" ]; then
	kline=$(sed -n 's/^mem-model-kexec: result //p' "$log" | tail -n 1)
	case $kline in
	PASS*) ;;
	*) fail="$fail kexec" ;;
	esac
	kfig=" (kexec: ${kline:-no result})"
fi

result=PASS
[ -z "$fail" ] || result=FAIL
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s/%s/%s\t%s/%s/%s\t%s\t%s\t%ss\t%s\n' \
	"$cell" "$kernel" "$expect" "$boot" "$probe $concl" "$klog" \
	"$t_pass" "$t_fail" "$t_skip" "$c_pass" "$c_fail" "$c_skip" "$ofig" \
	"$result" "$secs" "${fail# }" >"$RESULTS/$cell.row"

if [ -n "$fail" ]; then
	msg "    $cell: FAIL (${fail# })"
	[ "$probe" = ok ] || printf "      probe wanted: %s\n      probe got:    %s\n" "$want" "${got:-nothing}"
	[ -z "$pshow" ] || printf '%s' "$pshow" | sed 's/^/      /'
	[ "$counts" = "$wcounts" ] || printf "      tests and cases p/f/s wanted: %s (%s)\n      got:                          %s\n" \
		"${wcounts:-nothing}" "${COUNTS#"$TOP"/}" "$counts"
	[ -z "$oracle" ] || grep -a '^mem-model-oracle: .*\(not ok\|mismatch\|disagree\|FAIL\)' "$log" |
		head -n 15 | sed 's/^/      /'
	[ -z "$kexec" ] || grep -a '^mem-model-kexec: ' "$log" |
		head -n 15 | sed 's/^/      /'
	[ -z "$vbefore" ] || printf '      VMM runs wanted: %s\n      got:%s\n' "$vbefore" "$vfig"
	if [ -n "$gfail" ]; then
		[ -z "$gshow" ] || printf '%s\n' "$gshow"
		grep -a '^guest: mem-model-oracle: .*\(not ok\|mismatch\|disagree\|FAIL\)\|^mem-model-vmm: ' "$log" |
			head -n 15 | sed 's/^/      /'
	fi
	msg "      last lines of build/results/$cell.log:"
	tail -n 25 "$log" | sed 's/^/      | /'
	exit 1
fi
msg "    $cell: PASS in ${secs}s${oracle:+ (oracle checks/mismatches/get-disagreements: $ofig)}$kfig$vfig$sfig${gmsg:-}"
