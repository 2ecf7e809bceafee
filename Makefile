# Runtime memory-model control for Linux: the series in patches/, and the
# harness that builds, boots and tests it. See README.md.

SHELL := /bin/sh
H := harness

# Every base of harness/bases.tsv in turn: mainline (the posting,
# patches/) and the 6.12 backport (backport-6.12/). BASE=<base> picks the
# tree that 'make tree' and 'make export' work on (default: mainline).
EACH = sh $(H)/each-base.sh

.PHONY: all check deps base tree trees export kernels guest qemu matrix \
	oracle-test harness-selftest defects-selftest check-commits bench \
	bench-smoke base-kernel kvm-base-kernel bench-base-kernel bench-series-kernel bench-kernels bench-vm-kernels \
	check-patches check-warnings bench-guest bench-guest-kernels \
	check-docs check-maintainers check-regressions check-man-pages mail \
	mail-sender check-mail-identity check-disk check-shell check-switch-order \
	clean

# The main job: dependencies, base, series, kernels, boot matrix, summary.
all: matrix

# Everything CI runs.
# The bisection builds come last, where ccache has the most to offer them.
check: check-disk check-static \
	matrix check-switch-order harness-selftest \
	defects-selftest bench-smoke check-regressions check-warnings check-commits
	@echo "make check: all checks passed"

deps:
	@sh $(H)/install-deps.sh

base: deps
	@sh $(H)/make-base.sh

# build/linux (BASE=6.12: build/6.12/linux).
tree: deps
	@sh $(H)/make-tree.sh

export:
	@sh $(H)/export-patches.sh

# The tree of every base: the bases first, one at a time (they may be
# downloaded), then the trees side by side.
trees: deps
	@$(EACH) sh $(H)/make-base.sh
	@$(EACH) -p sh $(H)/make-tree.sh

# Each base's kernel variants that its matrix cells boot.
kernels: trees
	@$(EACH) sh $(H)/build-kernels.sh

guest: trees
	@$(EACH) sh $(H)/build-guest.sh

# QEMU with the emulated Apple TSO control (qemu/), cached.
qemu: deps
	@sh $(H)/build-qemu.sh

# CELLS="a b" boots those cells alone, ONLY_BASES=6.12 that base alone.
matrix: kernels guest qemu
	@sh $(H)/run-matrix.sh $(if $(CELLS),--cells "$(CELLS)") $(if $(ONLY_BASES),--bases "$(ONLY_BASES)")

# The oracle test alone, on any arm64 kernel image: KERNEL=<Image>
# (default: the matrix's debug kernel).
oracle-test: guest qemu $(if $(KERNEL),,kernels)
	@sh $(H)/oracle-test.sh $(KERNEL)

# The harness itself must be able to fail: a wrong expectation is caught.
harness-selftest: kernels guest qemu
	@sh $(H)/selftest-harness.sh

# The tests must be able to fail: planted kernel defects (tests/defects.txt).
defects-selftest: kernels guest qemu kvm-base-kernel
	@sh $(H)/selftest-defects.sh

# The benchmark: base against series and against a reference design that
# reads and writes ACTLR_EL1 on every switch, in instructions (SPEC section
# 9), at -O2 and -Os, then the vCPU exits of a KVM host (tests/bench-vm.txt):
# the series' -O2 kernel with KVM ('kvm-on-series') against the same with
# the KVM series ('kvm-on'), and the context switches of a per-vCPU guest
# (tests/bench-guest.txt: the KVM series against a reference that makes
# the guest's hypercall in the switch). BASE_IMAGE=<Image> and
# SERIES_IMAGE=<Image> compare any two arm64 kernel images instead.
bench: guest qemu $(if $(BASE_IMAGE)$(SERIES_IMAGE),,bench-kernels bench-vm-kernels bench-guest-kernels)
	@sh $(H)/run-bench.sh $(if $(BASE_IMAGE)$(SERIES_IMAGE),--base-image "$(BASE_IMAGE)" --series-image "$(SERIES_IMAGE)") \
		$(if $(REFERENCE_IMAGE),--reference-image "$(REFERENCE_IMAGE)")
	@$(if $(BASE_IMAGE)$(SERIES_IMAGE),true,sh $(H)/bench-exits.sh)
	@$(if $(BASE_IMAGE)$(SERIES_IMAGE),true,sh $(H)/bench-guest-switch.sh)

# The per-vCPU guest's switches alone (tests/bench-guest.txt).
bench-guest: guest qemu bench-guest-kernels
	@sh $(H)/bench-guest-switch.sh

bench-guest-kernels: trees
	@sh $(H)/build-kernel.sh kvm-on
	@sh $(H)/build-reference-kernel.sh kvm-on kvm

bench-vm-kernels: trees
	@sh $(H)/build-kernel.sh kvm-on-series
	@sh $(H)/build-kernel.sh kvm-on

# make check keeps the benchmark working: one round trip, base and series,
# its own file; and the vCPU exits on the emulated M1 with VHE and with
# nVHE, and a host without Apple's TSO, which must meet their instruction
# and register-access targets (tests/bench-budgets.tsv). The round trip
# boots the 'debug' kernels that the other checks build anyway; the exits
# need the -O2 'kvm-on' images, which come from the cache when warm. It
# times nothing.
bench-smoke: guest qemu base-kernel kernels kvm-base-kernel
	@sh $(H)/run-bench.sh --rounds 1 --levels debug --no-reference \
		--output build/results/bench-smoke.tsv
	@sh $(H)/bench-exits.sh --gate --cells "apple-vhe apple-hvhe generic-vhe" \
		--output build/results/bench-smoke-vm.tsv

# The 'kvm-on' kernels (-O2) of the series alone and with the KVM series,
# whose vCPU exits the smoke run compares, and the base of the planted
# defect that the benchmark catches: images, from the cache when warm.
kvm-base-kernel: trees
	@sh $(H)/build-kernel.sh --image-only kvm-on-series
	@sh $(H)/build-kernel.sh --image-only kvm-on

# The base kernels of mainline that the checks compare with the series:
# the regression guard's cells and bench-smoke boot only their images
# ('debug', 'x86'), which may come from the cache (--image-only), looked
# up without checking the base out. sparse/W=1 (check-warnings) takes the
# base's warnings from its own cache, and builds the base's 'debug'
# itself when they are not there.
base-kernel: trees
	@sh $(H)/build-base-kernel.sh --image-only debug
	@sh $(H)/build-base-kernel.sh --image-only x86

# The kernels the benchmark compares, with the same -O2 config ('on').
bench-base-kernel: trees
	@sh $(H)/build-base-kernel.sh on

bench-series-kernel: trees
	@sh $(H)/build-kernel.sh on

# What 'make bench' boots besides: the same at -Os, and the reference
# design (tests/reference/) at both.
bench-kernels: bench-base-kernel bench-series-kernel
	@sh $(H)/build-base-kernel.sh os
	@sh $(H)/build-kernel.sh os
	@sh $(H)/build-reference-kernel.sh on
	@sh $(H)/build-reference-kernel.sh os

# The harness' shell is POSIX sh, and shellcheck finds nothing in it.
check-shell: deps
	@sh $(H)/check-shell.sh

# make check's static checks, once the trees are made: check-man-pages
# first, alone (the only one that may download, with apt-get, on a cold
# cache), then check-shell, check-patches, check-maintainers, check-docs
# and check-mail-identity side by side (harness/par.sh): they read the
# trees and write nothing another one reads. Each one's output is printed
# whole, in that order, when all are done; any failure fails. Each one
# runs alone too, as its own target.
.PHONY: check-static
check-static: deps trees
	@sh $(H)/check-man-pages.sh
	@sh $(H)/par.sh "check-shell=sh $(H)/check-shell.sh" \
		"check-patches=$(EACH) -p sh $(H)/check-patches.sh" \
		"check-maintainers=sh $(H)/check-maintainers.sh" \
		"check-docs=sh $(H)/check-docs.sh" \
		"check-mail-identity=sh $(H)/check-mail-identity.sh"

# __switch_to() of the debug kernel writes ACTLR_EL1 only after its
# dsb(ish), read from its disassembly: no boot under TCG, which has no
# store buffer, can see the order (a few seconds).
check-switch-order: kernels
	@sh $(H)/check-switch-order.sh

# Room on the disk for what make check writes, before it writes it.
check-disk:
	@sh $(H)/check-disk.sh

# What maintainers and build bots look at first (SPEC section 5).
# checkpatch.pl --strict on every patch of every base: no error, no
# warning. The bases side by side.
check-patches: trees
	@$(EACH) -p sh $(H)/check-patches.sh

# Every commit of every base builds with the variants bases.tsv names:
# mainline arm64 with the option on and off, and x86_64; 6.12 arm64 on
# and off. The bases side by side: warm, each build is one recorded
# before, and the time goes to checking out the commits.
check-commits: trees
	@$(EACH) -p sh $(H)/check-commits.sh

# sparse and W=1 over the touched files add nothing to the base's.
check-warnings: base-kernel kernels
	@sh $(H)/check-warnings.sh

# The touched documentation builds without a warning in its files.
check-docs: trees
	@sh $(H)/check-docs.sh

# Upstream's kselftests (tests/regressions.txt) give the same results on
# the base kernel and on the series, and upstream's KVM selftests on the
# -O2 KVM hosts without and with the KVM series ('kvm-on-series',
# 'kvm-on': images, from the cache when warm).
check-regressions: guest base-kernel kernels kvm-base-kernel
	@sh $(H)/check-regressions.sh

# get_maintainer.pl names the series' entry; its pattern self-test is
# clean there.
check-maintainers: trees
	@sh $(H)/check-maintainers.sh

# The man-pages patch (man-pages/): mandoc -Tlint and groff -ww report
# nothing, the pages render, and they name only what the series defines.
check-man-pages: trees
	@sh $(H)/check-man-pages.sh

# build/mail: the posting of patches/, written by b4 (prep, send -o;
# nothing is sent): the revision harness/postings.tsv names, To/Cc from
# get_maintainer.pl, from v2 on a range-diff against the revision before;
# build/mail/man-pages/ the man-pages patch; every part from the sender,
# git's user.name and user.email. See docs/posting.md.
mail: mail-sender trees
	@sh $(H)/make-mail.sh

# Whom the posting is from: git's user.name and user.email. It refuses,
# saying what to set, before the trees are made, when either is unset or
# the address is at a domain reserved for examples and tests.
mail-sender:
	@sh $(H)/mail-sender.sh >/dev/null

# make mail refuses without a sender, and writes every part as the
# sender given (in a scratch clone, build/mail-identity/).
check-mail-identity: trees
	@sh $(H)/check-mail-identity.sh

# Everything generated but the trees, which may hold work not exported:
# build/ for mainline, build/<base>/ for the other bases.
clean:
	for r in build $$(sed -e 's/#.*//' harness/bases.tsv | awk 'NF { print "build/" $$1 }' | tail -n +2); do \
		rm -rf $$r/kernel $$r/guest $$r/results $$r/logs $$r/defect \
			$$r/base $$r/bisect $$r/reference; \
	done
	rm -rf build/qemu build/htmldocs build/htmldocs-kvm build/docs build/mail build/mail-work build/man-pages \
		build/mail-identity
