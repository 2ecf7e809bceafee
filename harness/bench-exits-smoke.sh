#!/bin/sh
# bench-exits-smoke.sh [SERIES_IMAGE [OUTPUT]]: the vCPU exits of the
# benchmark (tests/bench-vm.txt) on the emulated Apple M1 with VHE, the
# kernel without the KVM series (build/kernel/kvm, 'kvm' built from
# build/linux) against SERIES_IMAGE (default: the KVM series' 'kvm'
# kernel), with GATE_EXITS: every exit row must meet its target, an
# instruction count over the base and the ACTLR accesses
# (harness/run-bench.sh). make check runs it, and so does the planted
# defect that adds an out-of-line call to every vCPU load.
# VM_SMOKE_ROUNDS sets the exits measured (default 200): enough that a
# count repeats to 0.1 between runs of one kernel.
. "$(dirname "$0")/lib.sh"

series=${1:-$KVM_TREE_IMAGE}
BENCH=$TOP/tests/bench-vm.txt CELLS=${VM_SMOKE_CELLS:-apple-vhe} \
	ROUNDS=${VM_SMOKE_ROUNDS:-200} REFERENCE=- CC_LABEL=debug GATE_EXITS=1 \
	BASE_IMAGE=$KVM_BASE_IMAGE SERIES_IMAGE=$series \
	OUTPUT=${2:-$RESULTS/bench-smoke-vm.tsv} exec sh "$TOP/harness/run-bench.sh"
