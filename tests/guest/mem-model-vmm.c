// SPDX-License-Identifier: GPL-2.0
/*
 * A small KVM/arm64 VMM for the VM cells: it boots an arm64 Linux Image
 * with an initramfs as a guest of the kernel it runs on. Debian packages
 * no VMM for arm64, and the cells need one that runs inside the test
 * guest (a KVM host at EL2 under QEMU's TCG).
 *
 *   mem-model-vmm [--cpus N] [--mem MIB] [--cmdline TEXT]
 *                 [--mem-model none|tso|tso-per-vcpu] [--vcpu-threads-tso]
 *                 [--save FILE | --restore FILE] [--no-run]
 *                 [--stale-apple-tso] [--refuse-set] IMAGE INITRD
 *
 * The guest gets what an arm64 kernel needs to boot and talk: N vCPUs
 * (default 2) with PSCI 0.2, an in-kernel GICv3, the architected timer,
 * MIB MiB of RAM (default 192) at 1 GiB, and two PL011 UARTs, output
 * only: ttyAMA0 for the kernel's console, ttyAMA1 for the programs (the
 * harness' init writes there when it exists), so that the kernel's lines
 * and the programs' never share one. Each UART's output is printed line
 * by line, each line prefixed with "guest: ". The device tree is written
 * here.
 *
 * --mem-model: the VM's memory model (KVM_CAP_ARM_MEM_MODEL): tso, the
 * whole VM runs TSO; tso-per-vcpu, the guest switches TSO per vCPU;
 * none (the default), the VM does not opt in. A VM that the host cannot
 * give its model does not start: the message gives what
 * KVM_CHECK_EXTENSION offered and why KVM_ENABLE_CAP failed. KVM tells
 * the guest its model itself (its vendor hypervisor service).
 *
 * --save FILE: create the VM, ready to boot, write its state to FILE and
 * exit without running it. The state is what a VMM must carry to another
 * host for this VM: its memory model, its vCPU count and every register
 * of every vCPU that KVM_GET_REG_LIST names; the memory is the Image and
 * the initramfs, loaded again. The model follows the capability into
 * KVM's firmware pseudo-register of hypervisor services
 * (KVM_REG_ARM_VENDOR_HYP_BMAP_2), and a per-vCPU VM's vCPU model into
 * KVM_REG_ARM_VCPU_MEM_MODEL, which the list names in such a VM alone.
 * --restore FILE creates the VM from FILE instead: the model first, then
 * the vCPUs and every saved register (KVM_SET_ONE_REG). A host that cannot
 * give the saved model refuses it at KVM_ENABLE_CAP, a VM whose model is
 * not the saved one at the services' register, and the VMM stops with the
 * register and the reason. --mem-model with --restore replaces
 * the saved model, as a VMM that loses it would.
 * --no-run creates the VM (restored or not) and exits 0 without running
 * it.
 *
 * --vcpu-threads-tso: the vCPU threads ask the host kernel for TSO
 * (PR_SET_MEM_MODEL) before they first run, as the threads of any host
 * program may: the host thread's model must still not reach a VM that
 * did not ask for TSO.
 *
 * --stale-apple-tso: the guest is shown what a KVM host without the
 * memory model support shows when its copy of ACTLR_EL1 holds Apple's TSO
 * bit: an Apple M1's MIDR_EL1, AIDR_EL1 bit 9, and ACTLR_EL1 bit 1 set,
 * with its writes ignored (KVM_CAP_ARM_WRITABLE_IMP_ID_REGS and
 * KVM_SET_ONE_REG, on a host that is not Apple's). The hardware runs the
 * VM without TSO: a guest that claims TSO from that is wrong.
 *
 * --refuse-set: the VMM answers KVM's memory model service itself, in a
 * VM without a model (the SMCCC filter forwards the calls to it): the
 * features call offers GET and SET, GET says DEFAULT, and every SET
 * fails, a hypervisor that does not keep its word. A guest thread that
 * asks for TSO must not be told it has it.
 *
 * The VMM exits 0 when the guest powers off, 1 on an error, with a
 * message on standard error that starts with "mem-model-vmm: ".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mem-model.h"

#define TAG "mem-model-vmm: "

/* The guest's physical memory map, that of QEMU's virt board. */
#define GICD_BASE	0x08000000ULL
#define GICD_SIZE	0x10000ULL
#define GICR_BASE	0x080a0000ULL
#define GICR_SIZE	0x20000ULL	/* one vCPU's redistributor */
#define UART_BASE	0x09000000ULL	/* UART n at UART_BASE + n * UART_SIZE */
#define UART_SIZE	0x1000ULL
#define NR_UARTS	2
#define RAM_BASE	0x40000000ULL
#define DTB_MAX		0x10000
#define MAX_CPUS	8
#define UART_SPI	1		/* UART n's is SPI 1 + n, never raised */
#define PHANDLE_GIC	1
#define PHANDLE_CLK	2

static int vm_fd;
static int ncpus = 2;
static unsigned long mem_mib = 192;
static const char *cmdline = "console=ttyAMA0";
static int vcpu_threads_tso;
static const char *mem_model;
static const char *save_file, *restore_file;
static int no_run;
static int stale_apple_tso;
static int refuse_set;

#ifndef KVM_CAP_ARM_MEM_MODEL
#define KVM_CAP_ARM_MEM_MODEL		252
#define KVM_ARM_MEM_MODEL_TSO		(1ULL << 0)
#define KVM_ARM_MEM_MODEL_TSO_PER_VCPU	(1ULL << 1)
#endif
#ifndef KVM_REG_ARM_VCPU_MEM_MODEL
#define KVM_REG_ARM_VCPU_MEM_MODEL	KVM_REG_ARM_FW_REG(4)
#endif
#ifndef KVM_REG_ARM_VENDOR_HYP_BMAP_2
#define KVM_REG_ARM_VENDOR_HYP_BMAP_2	KVM_REG_ARM_FW_FEAT_BMAP_REG(3)
#endif
#ifndef KVM_CAP_ARM_WRITABLE_IMP_ID_REGS
#define KVM_CAP_ARM_WRITABLE_IMP_ID_REGS	239
#endif


static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs(TAG, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void xioctl(int fd, unsigned long req, void *arg, const char *what)
{
	if (ioctl(fd, req, arg) < 0)
		die("%s: %s", what, strerror(errno));
}

/*
 * The VM's memory model, before any vCPU exists. KVM_ENABLE_CAP is asked
 * even where KVM_CHECK_EXTENSION does not offer the model: the refusal
 * is KVM's to give, and its reason goes into the message.
 */
static void set_mem_model(int kvm_fd)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_ARM_MEM_MODEL };
	int offered, err = 0;

	if (!strcmp(mem_model, "none"))
		return;
	if (!strcmp(mem_model, "tso"))
		cap.args[0] = KVM_ARM_MEM_MODEL_TSO;
	else if (!strcmp(mem_model, "tso-per-vcpu"))
		cap.args[0] = KVM_ARM_MEM_MODEL_TSO_PER_VCPU;
	else
		die("--mem-model takes none, tso or tso-per-vcpu, not '%s'",
		    mem_model);
	offered = ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_ARM_MEM_MODEL);
	if (offered < 0)
		offered = 0;
	if (ioctl(vm_fd, KVM_ENABLE_CAP, &cap))
		err = errno;
	if (err)
		die("memory model %s%s%s refused: KVM_ENABLE_CAP(KVM_CAP_ARM_MEM_MODEL): %s (KVM_CHECK_EXTENSION offers %#x)",
		    mem_model, restore_file ? " saved in " : "",
		    restore_file ? restore_file : "", strerror(err), offered);
	if (!(offered & cap.args[0]))
		die("KVM_ENABLE_CAP took memory model %s, which KVM_CHECK_EXTENSION does not offer (%#x)",
		    mem_model, offered);
	printf(TAG "memory model %s (KVM offers %#x)\n", mem_model, offered);
}

/* ---- The flattened device tree ---------------------------------------- */

struct fdt {
	uint8_t *buf;
	size_t len, cap;
	char strings[1024];
	size_t slen;
};

#define FDT_BEGIN_NODE	1
#define FDT_END_NODE	2
#define FDT_PROP	3
#define FDT_END		9

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void fdt_bytes(struct fdt *f, const void *data, size_t n)
{
	size_t padded = (n + 3) & ~(size_t)3;

	if (f->len + padded > f->cap)
		die("the device tree outgrew its %zu bytes", f->cap);
	memcpy(f->buf + f->len, data, n);
	memset(f->buf + f->len + n, 0, padded - n);
	f->len += padded;
}

static void fdt_u32(struct fdt *f, uint32_t v)
{
	uint8_t b[4];

	put32(b, v);
	fdt_bytes(f, b, 4);
}

static void fdt_begin(struct fdt *f, const char *name)
{
	fdt_u32(f, FDT_BEGIN_NODE);
	fdt_bytes(f, name, strlen(name) + 1);
}

static void fdt_end(struct fdt *f)
{
	fdt_u32(f, FDT_END_NODE);
}

static uint32_t fdt_string(struct fdt *f, const char *name)
{
	size_t off = 0, n = strlen(name) + 1;

	while (off < f->slen) {
		if (!strcmp(f->strings + off, name))
			return off;
		off += strlen(f->strings + off) + 1;
	}
	if (f->slen + n > sizeof(f->strings))
		die("the device tree's strings outgrew their block");
	memcpy(f->strings + f->slen, name, n);
	f->slen += n;
	return off;
}

static void fdt_prop(struct fdt *f, const char *name, const void *val,
		     size_t n)
{
	fdt_u32(f, FDT_PROP);
	fdt_u32(f, n);
	fdt_u32(f, fdt_string(f, name));
	fdt_bytes(f, val, n);
}

/* A property of N 32-bit cells, given as arguments. */
static void fdt_cells(struct fdt *f, const char *name, int n, ...)
{
	uint8_t b[4 * 16];
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		put32(b + 4 * i, va_arg(ap, uint32_t));
	va_end(ap);
	fdt_prop(f, name, b, 4 * n);
}

static void fdt_str(struct fdt *f, const char *name, const char *s)
{
	fdt_prop(f, name, s, strlen(s) + 1);
}

/* A string list, given as one string with '\n' between its members. */
static void fdt_strs(struct fdt *f, const char *name, const char *list)
{
	char b[128];
	size_t n = strlen(list) + 1;

	memcpy(b, list, n);
	for (size_t i = 0; i < n; i++)
		if (b[i] == '\n')
			b[i] = 0;
	fdt_prop(f, name, b, n);
}

#define HI(x) ((uint32_t)((uint64_t)(x) >> 32))
#define LO(x) ((uint32_t)(x))

static size_t make_dtb(uint8_t *out, uint64_t ram_size, uint64_t initrd,
		       uint64_t initrd_size)
{
	struct fdt f = { .buf = out + 40 + 16, .cap = DTB_MAX - 40 - 16 };
	char name[64];
	size_t total;

	fdt_begin(&f, "");
	fdt_str(&f, "compatible", "linux,dummy-virt");
	fdt_cells(&f, "#address-cells", 1, 2);
	fdt_cells(&f, "#size-cells", 1, 2);
	fdt_cells(&f, "interrupt-parent", 1, PHANDLE_GIC);

	fdt_begin(&f, "chosen");
	fdt_str(&f, "bootargs", cmdline);
	fdt_cells(&f, "linux,initrd-start", 2, HI(initrd), LO(initrd));
	fdt_cells(&f, "linux,initrd-end", 2, HI(initrd + initrd_size),
		  LO(initrd + initrd_size));
	snprintf(name, sizeof(name), "/pl011@%llx", UART_BASE);
	fdt_str(&f, "stdout-path", name);
	fdt_end(&f);

	snprintf(name, sizeof(name), "memory@%llx", RAM_BASE);
	fdt_begin(&f, name);
	fdt_str(&f, "device_type", "memory");
	fdt_cells(&f, "reg", 4, HI(RAM_BASE), LO(RAM_BASE), HI(ram_size),
		  LO(ram_size));
	fdt_end(&f);

	fdt_begin(&f, "cpus");
	fdt_cells(&f, "#address-cells", 1, 1);
	fdt_cells(&f, "#size-cells", 1, 0);
	for (int i = 0; i < ncpus; i++) {
		snprintf(name, sizeof(name), "cpu@%d", i);
		fdt_begin(&f, name);
		fdt_str(&f, "device_type", "cpu");
		fdt_str(&f, "compatible", "arm,arm-v8");
		fdt_str(&f, "enable-method", "psci");
		/* KVM's MPIDR for vCPU i < 16: Aff0 = i. */
		fdt_cells(&f, "reg", 1, i);
		fdt_end(&f);
	}
	fdt_end(&f);

	fdt_begin(&f, "psci");
	fdt_strs(&f, "compatible", "arm,psci-0.2\narm,psci");
	fdt_str(&f, "method", "hvc");
	fdt_end(&f);

	snprintf(name, sizeof(name), "intc@%llx", GICD_BASE);
	fdt_begin(&f, name);
	fdt_str(&f, "compatible", "arm,gic-v3");
	fdt_cells(&f, "#interrupt-cells", 1, 3);
	fdt_prop(&f, "interrupt-controller", NULL, 0);
	fdt_cells(&f, "reg", 8, HI(GICD_BASE), LO(GICD_BASE), HI(GICD_SIZE),
		  LO(GICD_SIZE), HI(GICR_BASE), LO(GICR_BASE),
		  HI(GICR_SIZE * ncpus), LO(GICR_SIZE * ncpus));
	fdt_cells(&f, "phandle", 1, PHANDLE_GIC);
	fdt_end(&f);

	/* The secure, non-secure, virtual and hypervisor timers' PPIs. */
	fdt_begin(&f, "timer");
	fdt_str(&f, "compatible", "arm,armv8-timer");
	fdt_cells(&f, "interrupts", 12, 1, 13, 4, 1, 14, 4, 1, 11, 4,
		  1, 10, 4);
	fdt_prop(&f, "always-on", NULL, 0);
	fdt_end(&f);

	fdt_begin(&f, "apb-pclk");
	fdt_str(&f, "compatible", "fixed-clock");
	fdt_cells(&f, "#clock-cells", 1, 0);
	fdt_cells(&f, "clock-frequency", 1, 24000000);
	fdt_str(&f, "clock-output-names", "clk24mhz");
	fdt_cells(&f, "phandle", 1, PHANDLE_CLK);
	fdt_end(&f);

	fdt_begin(&f, "aliases");
	for (int i = 0; i < NR_UARTS; i++) {
		char alias[16];

		snprintf(alias, sizeof(alias), "serial%d", i);
		snprintf(name, sizeof(name), "/pl011@%llx",
			 UART_BASE + i * UART_SIZE);
		fdt_str(&f, alias, name);
	}
	fdt_end(&f);

	for (int i = 0; i < NR_UARTS; i++) {
		uint64_t base = UART_BASE + i * UART_SIZE;

		snprintf(name, sizeof(name), "pl011@%llx",
			 (unsigned long long)base);
		fdt_begin(&f, name);
		fdt_strs(&f, "compatible", "arm,pl011\narm,primecell");
		fdt_cells(&f, "reg", 4, HI(base), LO(base), HI(UART_SIZE),
			  LO(UART_SIZE));
		fdt_cells(&f, "interrupts", 3, 0, UART_SPI + i, 4);
		fdt_cells(&f, "clocks", 2, PHANDLE_CLK, PHANDLE_CLK);
		fdt_strs(&f, "clock-names", "uartclk\napb_pclk");
		fdt_end(&f);
	}

	fdt_end(&f);
	fdt_u32(&f, FDT_END);

	/* Header, an empty memory reservation map, structure, strings. */
	total = 40 + 16 + f.len + f.slen;
	if (total > DTB_MAX)
		die("the device tree outgrew its %d bytes", DTB_MAX);
	memcpy(out + 40 + 16 + f.len, f.strings, f.slen);
	memset(out + 40, 0, 16);
	put32(out + 0, 0xd00dfeed);
	put32(out + 4, total);
	put32(out + 8, 40 + 16);		/* off_dt_struct */
	put32(out + 12, 40 + 16 + f.len);	/* off_dt_strings */
	put32(out + 16, 40);			/* off_mem_rsvmap */
	put32(out + 20, 17);			/* version */
	put32(out + 24, 16);			/* last_comp_version */
	put32(out + 28, 0);			/* boot_cpuid_phys */
	put32(out + 32, f.slen);		/* size_dt_strings */
	put32(out + 36, f.len);			/* size_dt_struct */
	return total;
}

/* ---- The PL011 UARTs: output only ----------------------------------- */

static pthread_mutex_t uart_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char line[512];
	size_t len;
} uarts[NR_UARTS];

static void uart_flush(int n)
{
	printf("guest: %.*s\n", (int)uarts[n].len, uarts[n].line);
	fflush(stdout);
	uarts[n].len = 0;
}

static void uart_putc(int n, char c)
{
	pthread_mutex_lock(&uart_lock);
	if (c == '\n' || uarts[n].len == sizeof(uarts[n].line))
		uart_flush(n);
	if (c != '\n' && c != '\r')
		uarts[n].line[uarts[n].len++] = c;
	pthread_mutex_unlock(&uart_lock);
}

/* The PrimeCell identification registers, at 0xfe0 to 0xffc: a PL011. */
static const uint8_t pl011_id[8] = {
	0x11, 0x10, 0x14, 0x00, 0x0d, 0xf0, 0x05, 0xb1
};

static void uart_mmio(struct kvm_run *run)
{
	int n = (run->mmio.phys_addr - UART_BASE) / UART_SIZE;
	uint64_t off = (run->mmio.phys_addr - UART_BASE) % UART_SIZE;
	uint32_t val = 0;

	if (run->mmio.is_write) {
		if (off == 0x000)	/* UARTDR */
			uart_putc(n, run->mmio.data[0]);
		return;
	}
	if (off == 0x018)		/* UARTFR: TX FIFO empty, RX empty */
		val = 0x90;
	else if (off >= 0xfe0 && off <= 0xffc && !(off & 3))
		val = pl011_id[(off - 0xfe0) / 4];
	memset(run->mmio.data, 0, sizeof(run->mmio.data));
	memcpy(run->mmio.data, &val,
	       run->mmio.len < 4 ? run->mmio.len : 4);
}

/* ---- vCPUs ----------------------------------------------------------- */

struct vcpu {
	int id, fd;
	struct kvm_run *run;
	pthread_t thread;
};

static struct vcpu vcpus[MAX_CPUS];
static size_t run_size;

static void set_reg(int fd, uint64_t id, uint64_t val, const char *what)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uintptr_t)&val };

	xioctl(fd, KVM_SET_ONE_REG, &reg, what);
}

#define CORE_REG(x) (KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | \
		     KVM_REG_ARM_CORE_REG(x))

/*
 * --refuse-set: KVM's vendor hypervisor service as a broken hypervisor
 * would give it (ARM_SMCCC_VENDOR_HYP_KVM_FEATURES_FUNC_ID and functions
 * 66 and 67, include/linux/arm-smccc.h).
 */
#define KVM_FEATURES_FUNC_ID	0x86000000U
#define MEM_MODEL_GET_FUNC_ID	0xc6000042U
#define MEM_MODEL_SET_FUNC_ID	0xc6000043U

static void refuse_set_filter(void)
{
	static const uint32_t funcs[] = { KVM_FEATURES_FUNC_ID,
					  MEM_MODEL_GET_FUNC_ID,
					  MEM_MODEL_SET_FUNC_ID };
	struct kvm_smccc_filter filter = {
		.nr_functions = 1, .action = KVM_SMCCC_FILTER_FWD_TO_USER,
	};
	struct kvm_device_attr attr = {
		.group = KVM_ARM_VM_SMCCC_CTRL,
		.attr = KVM_ARM_VM_SMCCC_FILTER,
		.addr = (uintptr_t)&filter,
	};

	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		filter.base = funcs[i];
		xioctl(vm_fd, KVM_SET_DEVICE_ATTR, &attr,
		       "--refuse-set: KVM_ARM_VM_SMCCC_FILTER");
	}
	printf(TAG "--refuse-set: the VMM offers the guest KVM's memory model service, and refuses every SET\n");
}

static void answer_hypercall(struct vcpu *v, struct kvm_run *run)
{
	/* x0 to x3: KVM's features (its own two, then 66 and 67), or GET. */
	uint64_t x[4] = { 0, 0, 0, 0 };

	switch (run->hypercall.nr) {
	case KVM_FEATURES_FUNC_ID:
		x[0] = 0x3;
		x[2] = 0xc;
		break;
	case MEM_MODEL_GET_FUNC_ID:
		break;
	case MEM_MODEL_SET_FUNC_ID:
		x[0] = (uint64_t)-1;
		printf(TAG "--refuse-set: vCPU %d: SET refused\n", v->id);
		break;
	default:
		die("vCPU %d: a hypercall %#llx that the VMM did not ask for",
		    v->id, (unsigned long long)run->hypercall.nr);
	}
	for (int r = 0; r < 4; r++)
		set_reg(v->fd, CORE_REG(regs.regs[r]), x[r],
			"--refuse-set: the hypercall's result");
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	struct kvm_run *run = v->run;

	if (vcpu_threads_tso &&
	    prctl(PR_SET_MEM_MODEL, PR_SET_MEM_MODEL_TSO, 0, 0, 0))
		die("vCPU %d: --vcpu-threads-tso: PR_SET_MEM_MODEL(TSO): %s: the host cannot run this thread with TSO",
		    v->id, strerror(errno));
	for (;;) {
		if (ioctl(v->fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			die("vCPU %d: KVM_RUN: %s", v->id, strerror(errno));
		}
		switch (run->exit_reason) {
		case KVM_EXIT_MMIO:
			if (run->mmio.phys_addr >= UART_BASE &&
			    run->mmio.phys_addr < UART_BASE + NR_UARTS * UART_SIZE)
				uart_mmio(run);
			else if (!run->mmio.is_write)
				memset(run->mmio.data, 0,
				       sizeof(run->mmio.data));
			break;
		case KVM_EXIT_HYPERCALL:
			answer_hypercall(v, run);
			break;
		case KVM_EXIT_SYSTEM_EVENT:
			pthread_mutex_lock(&uart_lock);
			for (int i = 0; i < NR_UARTS; i++)
				if (uarts[i].len)
					uart_flush(i);
			pthread_mutex_unlock(&uart_lock);
			if (run->system_event.type == KVM_SYSTEM_EVENT_SHUTDOWN) {
				printf(TAG "the guest powered off\n");
				fflush(stdout);
				exit(0);
			}
			die("vCPU %d: the guest asked for system event %u, not a power-off",
			    v->id, run->system_event.type);
			break;
		default:
			die("vCPU %d: unexpected exit %u", v->id,
			    run->exit_reason);
		}
	}
	return NULL;
}

static void create_vcpu(struct vcpu *v, int id, int kvm_fd)
{
	struct kvm_vcpu_init init;

	v->id = id;
	v->fd = ioctl(vm_fd, KVM_CREATE_VCPU, (unsigned long)id);
	if (v->fd < 0)
		die("KVM_CREATE_VCPU %d: %s", id, strerror(errno));
	v->run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      v->fd, 0);
	if (v->run == MAP_FAILED)
		die("mmap of vCPU %d's kvm_run: %s", id, strerror(errno));
	xioctl(vm_fd, KVM_ARM_PREFERRED_TARGET, &init,
	       "KVM_ARM_PREFERRED_TARGET");
	init.features[0] |= 1u << KVM_ARM_VCPU_PSCI_0_2;
	if (id)
		init.features[0] |= 1u << KVM_ARM_VCPU_POWER_OFF;
	xioctl(v->fd, KVM_ARM_VCPU_INIT, &init, "KVM_ARM_VCPU_INIT");
	(void)kvm_fd;
}

#define ACTLR_EL1_ID	ARM64_SYS_REG(3, 0, 1, 0, 1)
#define MIDR_EL1_ID	ARM64_SYS_REG(3, 0, 0, 0, 0)
#define AIDR_EL1_ID	ARM64_SYS_REG(3, 1, 0, 0, 7)

/*
 * --stale-apple-tso: an Apple M1 (Icestorm) whose ACTLR_EL1 copy holds the
 * TSO bit, on every vCPU; the ID registers are the VM's, set through any.
 */
static void show_stale_apple_tso(void)
{
	struct kvm_one_reg reg;
	uint64_t actlr;

	set_reg(vcpus[0].fd, MIDR_EL1_ID, 0x611f0220,
		"--stale-apple-tso: MIDR_EL1");
	set_reg(vcpus[0].fd, AIDR_EL1_ID, 1 << 9,
		"--stale-apple-tso: AIDR_EL1");
	for (int c = 0; c < ncpus; c++) {
		reg.id = ACTLR_EL1_ID;
		reg.addr = (uintptr_t)&actlr;
		xioctl(vcpus[c].fd, KVM_GET_ONE_REG, &reg,
		       "--stale-apple-tso: KVM_GET_ONE_REG(ACTLR_EL1)");
		set_reg(vcpus[c].fd, ACTLR_EL1_ID, actlr | 2,
			"--stale-apple-tso: ACTLR_EL1 with bit 1");
	}
	printf(TAG "--stale-apple-tso: the guest sees an Apple M1 whose ACTLR_EL1 holds the TSO bit\n");
}

/* ---- Saving and restoring ------------------------------------------- */

/*
 * The state file, a line each: "mem-model-vmm-state 1", "mem-model
 * MODEL", "cpus N", then "reg VCPU ID BYTES" for each register, BYTES its
 * value in hex, in memory order. Lines after the first three that start
 * with '#' are comments.
 */
#define STATE_MAGIC	"mem-model-vmm-state 1"

/* Why KVM_SET_ONE_REG of a saved register that carries the model failed. */
static const char *refused_because(uint64_t id)
{
	switch (id) {
	case KVM_REG_ARM_VCPU_MEM_MODEL:
		return "this VM has no per-vCPU memory model to restore (KVM_REG_ARM_VCPU_MEM_MODEL)";
	case KVM_REG_ARM_VENDOR_HYP_BMAP_2:
		return "the saved hypervisor services (KVM_REG_ARM_VENDOR_HYP_BMAP_2) do not match this VM's memory model";
	}
	return NULL;
}

static void save_state(const char *path)
{
	struct kvm_reg_list probe = { .n = 0 }, *list;
	uint8_t val[256];
	FILE *f = fopen(path, "w");
	int n = 0;

	if (!f)
		die("--save %s: %s", path, strerror(errno));
	fprintf(f, STATE_MAGIC "\nmem-model %s\ncpus %d\n",
		mem_model ? mem_model : "none", ncpus);
	for (int c = 0; c < ncpus; c++) {
		probe.n = 0;
		if (!ioctl(vcpus[c].fd, KVM_GET_REG_LIST, &probe) ||
		    errno != E2BIG)
			die("KVM_GET_REG_LIST: %s", strerror(errno));
		list = calloc(1, sizeof(*list) + probe.n * sizeof(uint64_t));
		if (!list)
			die("out of memory");
		list->n = probe.n;
		xioctl(vcpus[c].fd, KVM_GET_REG_LIST, list, "KVM_GET_REG_LIST");
		for (uint64_t i = 0; i < list->n; i++) {
			uint64_t id = list->reg[i];
			size_t size = 1UL << ((id & KVM_REG_SIZE_MASK) >>
					      KVM_REG_SIZE_SHIFT);
			struct kvm_one_reg reg = { .id = id,
						   .addr = (uintptr_t)val };

			if (size > sizeof(val))
				die("vCPU %d: register %#llx is %zu bytes", c,
				    (unsigned long long)id, size);
			xioctl(vcpus[c].fd, KVM_GET_ONE_REG, &reg,
			       "KVM_GET_ONE_REG");
			fprintf(f, "reg %d %#llx ", c, (unsigned long long)id);
			for (size_t b = 0; b < size; b++)
				fprintf(f, "%02x", val[b]);
			fputc('\n', f);
			n++;
		}
		free(list);
	}
	if (fclose(f))
		die("--save %s: %s", path, strerror(errno));
	printf(TAG "saved memory model %s, %d vCPUs, %d registers to %s\n",
	       mem_model ? mem_model : "none", ncpus, n, path);
}

/* The first pass: the model (unless --mem-model replaced it), the vCPUs. */
static FILE *restore_header(const char *path)
{
	static char model[32];
	char line[128];
	FILE *f = fopen(path, "r");

	if (!f)
		die("--restore %s: %s", path, strerror(errno));
	if (!fgets(line, sizeof(line), f) || strcmp(line, STATE_MAGIC "\n"))
		die("--restore %s: not a state file of this VMM", path);
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "mem-model %31s", model) != 1 ||
	    !fgets(line, sizeof(line), f) ||
	    sscanf(line, "cpus %d", &ncpus) != 1 || ncpus < 1 ||
	    ncpus > MAX_CPUS)
		die("--restore %s: no 'mem-model' and 'cpus' lines", path);
	if (mem_model && strcmp(mem_model, model))
		printf(TAG "--restore %s: memory model %s replaces the saved %s\n",
		       path, mem_model, model);
	else
		mem_model = model;
	return f;
}

/* The second pass: every register, once the vCPUs exist. */
static void restore_regs(FILE *f, const char *path)
{
	char line[1200], hex[1100];
	uint8_t val[256];
	unsigned long long id;
	int c, n = 0;

	while (fgets(line, sizeof(line), f)) {
		struct kvm_one_reg reg = { .addr = (uintptr_t)val };
		size_t size, len;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "reg %d %llx %1099s", &c, &id, hex) != 3 ||
		    c < 0 || c >= ncpus)
			die("--restore %s: bad line '%.60s'", path, line);
		size = 1UL << ((id & KVM_REG_SIZE_MASK) >> KVM_REG_SIZE_SHIFT);
		len = strlen(hex);
		if (size > sizeof(val) || len != 2 * size)
			die("--restore %s: register %#llx: %zu hex digits for %zu bytes",
			    path, id, len, size);
		for (size_t b = 0; b < size; b++)
			sscanf(hex + 2 * b, "%2hhx", &val[b]);
		reg.id = id;
		if (ioctl(vcpus[c].fd, KVM_SET_ONE_REG, &reg)) {
			const char *why = refused_because(id);

			die("--restore %s refused: vCPU %d: KVM_SET_ONE_REG(register %#llx, bytes %s): %s%s%s",
			    path, c, id, hex, strerror(errno),
			    why ? ": " : "", why ? why : "");
		}
		n++;
	}
	fclose(f);
	printf(TAG "restored memory model %s, %d vCPUs, %d registers from %s\n",
	       mem_model, ncpus, n, path);
}

/* ---- Loading --------------------------------------------------------- */

static void *read_file(const char *path, size_t *size)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", path, strerror(errno));
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die("%s: %s", path, strerror(errno));
	close(fd);
	*size = st.st_size;
	return p;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mem-model-vmm [--cpus N] [--mem MIB] [--cmdline TEXT]\n"
		"                     [--mem-model none|tso|tso-per-vcpu] [--vcpu-threads-tso]\n"
		"                     [--save FILE | --restore FILE] [--no-run]\n"
		"                     [--stale-apple-tso] [--refuse-set] IMAGE INITRD\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct kvm_userspace_memory_region region = { 0 };
	struct kvm_create_device gic = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	uint64_t ram_size, kernel, dtb, initrd, text_offset, image_size;
	uint64_t gicd = GICD_BASE, gicr = GICR_BASE;
	struct kvm_device_attr attr = { 0 };
	size_t kernel_len, initrd_len;
	const uint8_t *image;
	const void *initrd_data;
	FILE *state = NULL;
	uint8_t *ram;
	int kvm_fd, i;
	char *end;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--vcpu-threads-tso") ||
		    !strcmp(argv[i], "--no-run") ||
		    !strcmp(argv[i], "--stale-apple-tso") ||
		    !strcmp(argv[i], "--refuse-set")) {
			*(argv[i][2] == 'v' ? &vcpu_threads_tso :
			  argv[i][2] == 'n' ? &no_run :
			  argv[i][2] == 'r' ? &refuse_set : &stale_apple_tso) = 1;
			i--;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--cpus")) {
			ncpus = strtol(argv[i + 1], &end, 10);
			if (*end || ncpus < 1 || ncpus > MAX_CPUS)
				die("--cpus takes 1 to %d, not '%s'", MAX_CPUS,
				    argv[i + 1]);
		} else if (!strcmp(argv[i], "--mem")) {
			mem_mib = strtoul(argv[i + 1], &end, 10);
			if (*end || mem_mib < 64 || mem_mib > 4096)
				die("--mem takes 64 to 4096 (MiB), not '%s'",
				    argv[i + 1]);
		} else if (!strcmp(argv[i], "--cmdline")) {
			cmdline = argv[i + 1];
		} else if (!strcmp(argv[i], "--mem-model")) {
			mem_model = argv[i + 1];
		} else if (!strcmp(argv[i], "--save")) {
			save_file = argv[i + 1];
		} else if (!strcmp(argv[i], "--restore")) {
			restore_file = argv[i + 1];
		} else {
			usage();
		}
	}
	if (argc - i != 2 || (save_file && restore_file))
		usage();
	if (restore_file)
		state = restore_header(restore_file);

	image = read_file(argv[i], &kernel_len);
	initrd_data = read_file(argv[i + 1], &initrd_len);
	/* The arm64 Image header: text_offset at 8, image_size at 16. */
	if (kernel_len < 64 || memcmp(image + 56, "ARM\x64", 4))
		die("%s is not an arm64 Image", argv[i]);
	text_offset = le64(image + 8);
	image_size = le64(image + 16);
	if (!image_size)
		image_size = kernel_len;

	ram_size = (uint64_t)mem_mib << 20;
	kernel = RAM_BASE + text_offset;
	dtb = RAM_BASE + ram_size - (2 << 20);
	initrd = (dtb - initrd_len) & ~0xfffULL;
	if (kernel + image_size > initrd)
		die("%lu MiB is too little for the kernel (%llu bytes) and the initramfs (%zu)",
		    mem_mib, (unsigned long long)image_size, initrd_len);

	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0)
		die("/dev/kvm: %s", strerror(errno));
	vm_fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm_fd < 0)
		die("KVM_CREATE_VM: %s", strerror(errno));
	run_size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (mem_model)
		set_mem_model(kvm_fd);
	if (stale_apple_tso) {
		struct kvm_enable_cap cap = {
			.cap = KVM_CAP_ARM_WRITABLE_IMP_ID_REGS
		};

		xioctl(vm_fd, KVM_ENABLE_CAP, &cap,
		       "--stale-apple-tso: KVM_ENABLE_CAP(KVM_CAP_ARM_WRITABLE_IMP_ID_REGS)");
	}

	ram = mmap(NULL, ram_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ram == MAP_FAILED)
		die("%lu MiB of guest memory: %s", mem_mib, strerror(errno));
	region.guest_phys_addr = RAM_BASE;
	region.memory_size = ram_size;
	region.userspace_addr = (uintptr_t)ram;
	xioctl(vm_fd, KVM_SET_USER_MEMORY_REGION, &region,
	       "KVM_SET_USER_MEMORY_REGION");
	memcpy(ram + (kernel - RAM_BASE), image, kernel_len);
	memcpy(ram + (initrd - RAM_BASE), initrd_data, initrd_len);
	make_dtb(ram + (dtb - RAM_BASE), ram_size, initrd, initrd_len);

	xioctl(vm_fd, KVM_CREATE_DEVICE, &gic, "KVM_CREATE_DEVICE (GICv3)");
	for (i = 0; i < ncpus; i++)
		create_vcpu(&vcpus[i], i, kvm_fd);
	attr.group = KVM_DEV_ARM_VGIC_GRP_ADDR;
	attr.attr = KVM_VGIC_V3_ADDR_TYPE_DIST;
	attr.addr = (uintptr_t)&gicd;
	xioctl(gic.fd, KVM_SET_DEVICE_ATTR, &attr, "the GIC distributor's address");
	attr.attr = KVM_VGIC_V3_ADDR_TYPE_REDIST;
	attr.addr = (uintptr_t)&gicr;
	xioctl(gic.fd, KVM_SET_DEVICE_ATTR, &attr, "the GIC redistributors' address");
	attr.group = KVM_DEV_ARM_VGIC_GRP_CTRL;
	attr.attr = KVM_DEV_ARM_VGIC_CTRL_INIT;
	attr.addr = 0;
	xioctl(gic.fd, KVM_SET_DEVICE_ATTR, &attr, "KVM_DEV_ARM_VGIC_CTRL_INIT");

	/* The boot protocol: x0 the device tree, x1 to x3 zero. */
	set_reg(vcpus[0].fd, CORE_REG(regs.pc), kernel, "the boot vCPU's PC");
	set_reg(vcpus[0].fd, CORE_REG(regs.regs[0]), dtb, "the boot vCPU's x0");
	if (stale_apple_tso)
		show_stale_apple_tso();
	if (refuse_set)
		refuse_set_filter();
	if (state)
		restore_regs(state, restore_file);
	if (save_file) {
		save_state(save_file);
		return 0;
	}
	if (no_run) {
		printf(TAG "the VM is ready; --no-run: not running it\n");
		return 0;
	}

	printf(TAG "%d vCPUs, %lu MiB, kernel at 0x%llx, initramfs at 0x%llx (%zu bytes)\n",
	       ncpus, mem_mib, (unsigned long long)kernel,
	       (unsigned long long)initrd, initrd_len);
	fflush(stdout);
	for (i = 0; i < ncpus; i++)
		if (pthread_create(&vcpus[i].thread, NULL, vcpu_thread,
				   &vcpus[i]))
			die("creating vCPU %d's thread failed", i);
	pthread_join(vcpus[0].thread, NULL);
	return 1;
}
