# Runtime memory-model control for Linux: the series in patches/, and the
# harness that builds, boots and tests it. See README.md.

SHELL := /bin/sh
H := harness

# The kernel variants the matrix boots.
KERNELS = $(shell sed -e 's/\#.*//' tests/matrix.txt | awk 'NF { print $$3 }' | sort -u)

.PHONY: all check deps base tree export kernels guest qemu matrix oracle-test \
	harness-selftest oracle-selftest check-commits bench bench-smoke \
	base-kernel series-kernel check-patches check-warnings check-docs \
	check-maintainers check-regressions mail clean

# The main job: dependencies, base, series, kernels, boot matrix, summary.
all: matrix

# Everything CI runs.
# The bisection builds come last, where ccache has the most to offer them.
check: check-patches check-maintainers check-docs matrix harness-selftest \
	oracle-selftest bench-smoke check-regressions check-warnings check-commits
	@echo "make check: all checks passed"

deps:
	@sh $(H)/install-deps.sh

base: deps
	@sh $(H)/make-base.sh

tree: deps
	@sh $(H)/make-tree.sh

export:
	@sh $(H)/export-patches.sh

kernels: tree
	@for k in $(KERNELS); do sh $(H)/build-kernel.sh $$k || exit 1; done

guest: tree
	@sh $(H)/build-guest.sh

# QEMU with the emulated Apple TSO control (qemu/), cached.
qemu: deps
	@sh $(H)/build-qemu.sh

matrix: kernels guest qemu
	@sh $(H)/run-matrix.sh

# The oracle test alone, on any arm64 kernel image: KERNEL=<Image>
# (default: the matrix's debug kernel).
oracle-test: guest qemu $(if $(KERNEL),,kernels)
	@sh $(H)/oracle-test.sh $(KERNEL)

# The harness itself must be able to fail: a wrong expectation is caught.
harness-selftest: kernels guest
	@sh $(H)/selftest-harness.sh

# The oracle test must be able to fail: planted defects (tests/defects/).
oracle-selftest: kernels guest qemu
	@sh $(H)/selftest-oracle.sh

# The benchmark: base against series, in instructions (SPEC section 9).
# BASE=<Image> and SERIES=<Image> compare any two arm64 kernel images.
bench: guest qemu $(if $(BASE),,base-kernel) $(if $(SERIES),,series-kernel)
	@sh $(H)/run-bench.sh

# make check keeps the benchmark working: one round trip, its own file.
bench-smoke: guest qemu base-kernel series-kernel
	@ROUNDS=1 OUTPUT=build/results/bench-smoke.tsv sh $(H)/run-bench.sh

# The kernels the benchmark compares, with the same config ('on').
base-kernel: tree
	@sh $(H)/build-base-kernel.sh on

series-kernel: tree
	@sh $(H)/build-kernel.sh on

# What maintainers and build bots look at first (SPEC section 5).
# checkpatch.pl --strict on every patch: no error, no warning.
check-patches: tree
	@sh $(H)/check-patches.sh

# Every commit builds: arm64 with the option on and off, and x86_64.
check-commits: tree
	@sh $(H)/check-commits.sh on off x86

# sparse and W=1 over the touched files add nothing to the base's.
check-warnings: base-kernel series-kernel
	@sh $(H)/check-warnings.sh

# The touched documentation builds without a warning in its files.
check-docs: tree
	@sh $(H)/check-docs.sh

# Upstream's kselftests (tests/regressions.txt) give the same results on
# the base kernel and on the series.
check-regressions: guest base-kernel series-kernel
	@sh $(H)/check-regressions.sh

# get_maintainer.pl names the series' entry; its pattern self-test is
# clean there.
check-maintainers: tree
	@sh $(H)/check-maintainers.sh

# build/mail: the series ready for git send-email, To/Cc from
# get_maintainer.pl; SUBJECT_PREFIX="PATCH v2" sets the prefix.
mail: tree
	@sh $(H)/make-mail.sh

clean:
	rm -rf build/kernel build/guest build/results build/logs build/qemu build/defect build/base build/bisect build/docs build/mail
