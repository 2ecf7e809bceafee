/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest programs share: the prctl ABI values (the same as the
 * series' uapi, for C libraries that lack them) and the test registers of
 * the emulated Apple CPU (qemu/README.md).
 */
#ifndef MEM_MODEL_GUEST_H
#define MEM_MODEL_GUEST_H

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#ifndef PR_GET_MEM_MODEL
#define PR_GET_MEM_MODEL		0x6d4d444c
#define PR_SET_MEM_MODEL		0x4d4d444c
#define PR_SET_MEM_MODEL_DEFAULT	0
#define PR_SET_MEM_MODEL_TSO		1
#endif

#ifdef __aarch64__
/* The oracle: 1 if the CPU executing the read runs EL0 with TSO, else 0. */
static inline uint64_t apple_tso_oracle(void)
{
	uint64_t v;

	asm volatile("mrs %0, S3_3_C15_C15_0" : "=r" (v));
	return v;
}

/* This vCPU's ACTLR_EL1 reads and writes by the guest. */
static inline uint64_t apple_actlr_reads(void)
{
	uint64_t v;

	asm volatile("mrs %0, S3_3_C15_C15_1" : "=r" (v));
	return v;
}

static inline uint64_t apple_actlr_writes(void)
{
	uint64_t v;

	asm volatile("mrs %0, S3_3_C15_C15_2" : "=r" (v));
	return v;
}

/*
 * This vCPU's ACTLR_EL1 and ACTLR_EL2 writes, by anyone, that would have
 * changed another implementation defined bit than TSO.
 */
static inline uint64_t apple_actlr_other_writes(void)
{
	uint64_t v;

	asm volatile("mrs %0, S3_3_C15_C15_3" : "=r" (v));
	return v;
}

static sigjmp_buf apple_regs_trap;

static inline void apple_regs_on_sigill(int sig)
{
	(void)sig;
	siglongjmp(apple_regs_trap, 1);
}

/* Whether the test registers exist, or a read traps as on other CPUs. */
static inline bool apple_regs_present(void)
{
	bool ok = false;

	signal(SIGILL, apple_regs_on_sigill);
	if (!sigsetjmp(apple_regs_trap, 1)) {
		apple_tso_oracle();
		ok = true;
	}
	signal(SIGILL, SIG_DFL);
	return ok;
}
#endif

#endif
