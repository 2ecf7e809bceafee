#!/bin/sh
# par.sh NAME=COMMAND...: run the shell COMMANDs at the same time, from the
# top of the repository, each one's output held back in
# build/logs/par/NAME.out and printed whole, in the order given, when all
# are done; fail, naming them, if any failed. Every 30 s meanwhile, a
# progress line names those still running. For checks that read the same
# trees but write nothing another one reads (make check's static checks):
# each-base.sh -p's way, for any commands.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: par.sh NAME=COMMAND..."
out=$BUILD_TOP/logs/par
mkdir -p "$out"
names=
for c; do
	n=${c%%=*}
	case $n in
	'' | *[!A-Za-z0-9._-]* | "$c") die "par.sh: '$c' is not NAME=COMMAND" ;;
	esac
	case " $names " in
	*" $n "*) die "par.sh: the name $n is given twice" ;;
	esac
	names="$names $n"
	rm -f "$out/$n.out" "$out/$n.rc"
done

stage "side by side:$names"
pids=
for c; do
	n=${c%%=*}
	(
		cd "$TOP"
		rc=0
		sh -c "${c#*=}" >"$out/$n.out" 2>&1 </dev/null || rc=$?
		echo "$rc" >"$out/$n.rc"
	) &
	pids="$pids $n:$!"
done
# Until every command has ended: its status written, or its shell gone.
t0=$(date +%s) next=30
while :; do
	running=
	for np in $pids; do
		[ -f "$out/${np%:*}.rc" ] || ! kill -0 "${np#*:}" 2>/dev/null ||
			running="$running ${np%:*}"
	done
	[ -n "$running" ] || break
	sleep 1
	t=$(($(date +%s) - t0))
	if [ "$t" -ge "$next" ]; then
		msg "    ... ${t}s, running:$running"
		next=$((next + 30))
	fi
done
wait

failed=
for n in $names; do
	cat "$out/$n.out"
	[ "$(cat "$out/$n.rc" 2>/dev/null)" = 0 ] || failed="$failed $n"
done
stage_end
[ -z "$failed" ] || die "failed:$failed (each one's output above)"
