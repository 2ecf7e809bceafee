// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's KVM side, for QEMU's -icount shift=0 (bench.h): what an
 * exit of a vCPU to its VMM costs the host kernel, which puts the vCPU
 * when KVM_RUN returns and loads it again when the VMM calls KVM_RUN.
 *
 *   mem-model-vm-bench ROUNDS
 *
 * Each workload is a VM of one vCPU whose guest code stores to an address
 * with no memory behind it, in a loop: every store is an MMIO exit to
 * this program, which calls KVM_RUN again at once. The unit is one exit:
 * a put, a load, the world switches and two guest instructions, ROUNDS
 * times after ROUNDS / 4 unmeasured ones.
 *
 *   vcpu-exit-default   a VM that did not opt in, run by a DEFAULT
 *                       thread, before any VM was given a model (one
 *                       request, after the VM's vCPU, was refused)
 *   vcpu-exit-vm-tso    a whole-VM TSO VM (KVM_CAP_ARM_MEM_MODEL,
 *                       KVM_ARM_MEM_MODEL_TSO) run by a DEFAULT thread:
 *                       models=refused, and a VM that did not opt in,
 *                       where KVM refuses it (a kernel without the KVM
 *                       series, a host without Apple's TSO)
 *   vcpu-exit-default-after  the first workload again, while the VM of
 *                       the one before it exists (where KVM gave it TSO;
 *                       its kvm_run mapping keeps it)
 *   vcpu-exit-host-tso  a VM that did not opt in, run by a TSO thread
 *                       (PR_SET_MEM_MODEL): models=refused, and
 *                       DEFAULT, where the host refuses TSO
 *
 * In that order: with VHE, KVM's hooks on load and put are patched-out
 * branches while no VM has a model; where host and guests share ACTLR_EL1
 * (nVHE, hVHE), they are on from KVM's init on a host that can switch.
 *
 * It needs /dev/kvm, which a kernel has when it boots at EL2 with KVM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "bench.h"

#ifndef KVM_CAP_ARM_MEM_MODEL
#define KVM_CAP_ARM_MEM_MODEL	252
#define KVM_ARM_MEM_MODEL_TSO	(1ULL << 0)
#endif

#define RAM_BASE	0x40000000ULL
#define RAM_SIZE	0x10000ULL
#define MMIO_ADDR	0x0a000000ULL

#define CORE_REG(x) (KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | \
		     KVM_REG_ARM_CORE_REG(x))

/* str w0, [x1]; b .-4 */
static const uint32_t guest_code[] = { 0xb9000020, 0x17ffffff };

static int kvm_fd;

static void fail(const char *what)
{
	fprintf(stderr, "mem-model-vm-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void set_reg(int fd, uint64_t id, uint64_t val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uintptr_t)&val };

	if (ioctl(fd, KVM_SET_ONE_REG, &reg))
		fail("KVM_SET_ONE_REG");
}

/* A VM of one vCPU at the guest code; false if KVM refused TSO_VM. */
static bool make_vm(bool tso_vm, int *vm_out, int *vcpu_out,
		    struct kvm_run **run_out)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_ARM_MEM_MODEL,
				      .args = { KVM_ARM_MEM_MODEL_TSO } };
	struct kvm_userspace_memory_region region = {
		.guest_phys_addr = RAM_BASE, .memory_size = RAM_SIZE,
	};
	struct kvm_vcpu_init init;
	bool ok = true;
	void *ram;
	int vm, vcpu;

	vm = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm < 0)
		fail("KVM_CREATE_VM");
	if (tso_vm && ioctl(vm, KVM_ENABLE_CAP, &cap))
		ok = false;
	ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ram == MAP_FAILED)
		fail("mmap");
	memcpy(ram, guest_code, sizeof(guest_code));
	region.userspace_addr = (uintptr_t)ram;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region))
		fail("KVM_SET_USER_MEMORY_REGION");
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0UL);
	if (vcpu < 0)
		fail("KVM_CREATE_VCPU");
	if (ioctl(vm, KVM_ARM_PREFERRED_TARGET, &init) ||
	    ioctl(vcpu, KVM_ARM_VCPU_INIT, &init))
		fail("KVM_ARM_VCPU_INIT");
	set_reg(vcpu, CORE_REG(regs.pc), RAM_BASE);
	set_reg(vcpu, CORE_REG(regs.regs[1]), MMIO_ADDR);
	*run_out = mmap(NULL, ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0),
			PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (*run_out == MAP_FAILED)
		fail("mmap of kvm_run");
	*vm_out = vm;
	*vcpu_out = vcpu;
	return ok;
}

static void exits(const char *name, bool host_tso, bool tso_vm, long n)
{
	struct sample s0 = { 0 }, s1;
	struct kvm_run *run;
	int vm, vcpu;
	bool ok;

	ok = make_vm(tso_vm, &vm, &vcpu, &run);
	if (host_tso)
		ok = prctl(PR_SET_MEM_MODEL, PR_SET_MEM_MODEL_TSO, 0, 0, 0) == 0;
	for (long i = 0; i < warmup(n) + n; i++) {
		if (i == warmup(n))
			sample(&s0);
		if (ioctl(vcpu, KVM_RUN, 0))
			fail("KVM_RUN");
		if (run->exit_reason != KVM_EXIT_MMIO ||
		    run->mmio.phys_addr != MMIO_ADDR) {
			fprintf(stderr, "mem-model-vm-bench: %s: exit %u, not the guest's store\n",
				name, run->exit_reason);
			exit(1);
		}
	}
	sample(&s1);
	report(name, n, &s0, &s1, ok);
	prctl(PR_SET_MEM_MODEL, PR_SET_MEM_MODEL_DEFAULT, 0, 0, 0);
	close(vcpu);
	close(vm);
}

/*
 * A request for a model that KVM refuses (TSO, once the VM has a vCPU)
 * must leave nothing behind: the first workload runs after it, at the
 * cost of a host where no VM has a model.
 */
static void refused_model(void)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_ARM_MEM_MODEL,
				      .args = { KVM_ARM_MEM_MODEL_TSO } };
	int vm = ioctl(kvm_fd, KVM_CREATE_VM, 0), vcpu;

	if (vm < 0)
		fail("KVM_CREATE_VM");
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0UL);
	if (vcpu < 0)
		fail("KVM_CREATE_VCPU");
	if (!ioctl(vm, KVM_ENABLE_CAP, &cap)) {
		fprintf(stderr, "mem-model-vm-bench: KVM_ENABLE_CAP took a memory model after a vCPU\n");
		exit(1);
	}
	close(vcpu);
	close(vm);
}

int main(int argc, char **argv)
{
	long rounds = bench_rounds(argc, argv);

	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0)
		fail("/dev/kvm");
	have_counters = apple_regs_present();
	pin_cpu0();
	refused_model();
	exits("vcpu-exit-default", false, false, rounds);
	exits("vcpu-exit-vm-tso", false, true, rounds);
	exits("vcpu-exit-default-after", false, false, rounds);
	exits("vcpu-exit-host-tso", true, false, rounds);
	return 0;
}
