#!/bin/sh
# bench-exits.sh [OPTIONS]: the vCPU exits of the benchmark's KVM hosts
# (tests/bench-vm.txt): the series' -O2 kernel with KVM ('kvm-on-series')
# against the same with the KVM series ('kvm-on'), or another image, in
# instructions and ACTLR accesses an exit (harness/run-bench.sh, whose
# targets are tests/bench-budgets.tsv). -O2 kernels: a 'debug' kernel's
# exit is ten times longer and moves by a hundred instructions between
# builds. 20000 exits: a count then repeats to 0.1 between runs of one
# kernel, where 200 moves it by 2.
# Options:
#   --cells "A B"        those cells of tests/bench-vm.txt alone
#   --series-image IMG   the kernel compared with the base (default: 'kvm-on')
#   --rounds N           the exits measured (20000)
#   --output FILE        the table (default build/results/bench-vm.tsv)
#   --gate               every exit row must meet its target (make check's
#                        smoke run; the planted defect that adds an
#                        out-of-line call to every vCPU load)
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

set -- "$@" --end
cells='' series=$(variant_image kvm-on) rounds=20000 gate=''
output=$RESULTS/bench-vm.tsv
while [ "$1" != --end ]; do
	case $1 in
	--cells) cells=$2; shift 2 ;;
	--series-image) series=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--output) output=$2; shift 2 ;;
	--gate) gate=--gate-exits; shift ;;
	*) die "bench-exits.sh: unknown option '$1'" ;;
	esac
done
exec sh "$TOP/harness/run-bench.sh" --bench "$TOP/tests/bench-vm.txt" \
	${cells:+--cells "$cells"} --rounds "$rounds" --no-reference --cc-label O2 \
	--base-image "$(variant_image kvm-on-series)" --series-image "$series" \
	--output "$output" ${gate:+"$gate"}
