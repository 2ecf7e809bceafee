#!/bin/sh
# bench-exits-smoke.sh [SERIES_IMAGE [OUTPUT]]: the vCPU exits of the
# benchmark (tests/bench-vm.txt), the kernel without the KVM series
# (build/kernel/kvm-on, 'kvm-on' built from build/linux) against
# SERIES_IMAGE (default: the KVM series' 'kvm-on' kernel), with
# GATE_EXITS: every exit row must meet its target, instructions over the
# base and ACTLR accesses (harness/run-bench.sh). -O2 kernels, as the
# benchmark's: a 'debug' kernel's exit is ten times longer and moves by a
# hundred instructions between builds. The cells: VM_SMOKE_CELLS
# (default: the emulated M1 with VHE and with nVHE, and a host without
# Apple's TSO). make check runs it, and so does the planted defect that
# adds an out-of-line call to every vCPU load. VM_SMOKE_ROUNDS sets the
# exits measured (default 20000, as make bench: a count then repeats
# to 0.1 between runs of one kernel, where 200 moves it by 2).
. "$(dirname "$0")/lib.sh"

series=${1:-$(variant_image kvm-on)}
BENCH=$TOP/tests/bench-vm.txt CELLS=${VM_SMOKE_CELLS:-apple-vhe apple-nvhe generic-vhe} \
	ROUNDS=${VM_SMOKE_ROUNDS:-20000} REFERENCE=- CC_LABEL=O2 GATE_EXITS=1 \
	BASE_IMAGE=$(variant_image kvm-on-series) SERIES_IMAGE=$series \
	OUTPUT=${2:-$RESULTS/bench-smoke-vm.tsv} exec sh "$TOP/harness/run-bench.sh"
