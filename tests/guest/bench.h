/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark's programs share (mem-model-bench.c,
 * mem-model-vm-bench.c): instructions under QEMU's -icount shift=0, the
 * emulated Apple CPU's ACTLR access counters, and the line each workload
 * prints:
 *
 *   mem-model-bench: WORKLOAD n=N instr=I actlr-reads=R actlr-writes=W models=ok|refused
 */
#ifndef MEM_MODEL_BENCH_H
#define MEM_MODEL_BENCH_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mem-model.h"

static bool have_counters;

static inline uint64_t actlr_reads(void)
{
	return have_counters ? apple_actlr_reads() : 0;
}

static inline uint64_t actlr_writes(void)
{
	return have_counters ? apple_actlr_writes() : 0;
}

/* Instructions, under -icount shift=0. */
static inline uint64_t instr(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Unmeasured iterations before the measured ones. */
static inline long warmup(long n)
{
	return n / 4 + 1;
}

struct sample {
	uint64_t instr, reads, writes;
};

static inline void sample(struct sample *s)
{
	s->reads = actlr_reads();
	s->writes = actlr_writes();
	s->instr = instr();
}

static inline void report(const char *name, long n, const struct sample *a,
		   const struct sample *b, bool models)
{
	char r[32] = "-", w[32] = "-";

	if (have_counters) {
		snprintf(r, sizeof(r), "%.3f", (double)(b->reads - a->reads) / n);
		snprintf(w, sizeof(w), "%.3f", (double)(b->writes - a->writes) / n);
	}
	printf("mem-model-bench: %s n=%ld instr=%.1f actlr-reads=%s actlr-writes=%s models=%s\n",
	       name, n, (double)(b->instr - a->instr) / n, r, w,
	       models ? "ok" : "refused");
	fflush(stdout);
}

static inline void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("mem-model-bench: sched_setaffinity");
		exit(1);
	}
}

/* ROUNDS, the one argument of both programs: exits 2 without it. */
static inline long bench_rounds(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 0;

	if (rounds < 1) {
		fprintf(stderr, "usage: %s ROUNDS\n", argv[0]);
		exit(2);
	}
	return rounds;
}

#endif
