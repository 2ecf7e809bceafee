/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the client-protocol programs share (fex-protocol.c,
 * rosetta-protocol.c): the prctl calls and what they returned, one line
 * of output at a time, and the oracle reads of a thread that concluded
 * hardware TSO. Define _GNU_SOURCE before including it.
 */
#ifndef MEM_MODEL_PROTOCOL_H
#define MEM_MODEL_PROTOCOL_H

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "mem-model.h"

/* The threads each program starts beside its main thread. */
#define PROTO_THREADS	4
/* The oracle reads of each thread that concluded hardware TSO. */
#define PROTO_READS	2000

/* What one prctl call returned, and its errno if it failed. */
struct call {
	int ret;
	int err;
};

static inline struct call call_get(void)
{
	struct call c;

	c.ret = prctl(PR_GET_MEM_MODEL, 0, 0, 0, 0);
	c.err = c.ret < 0 ? errno : 0;
	return c;
}

static inline struct call call_set_tso(void)
{
	struct call c;

	c.ret = prctl(PR_SET_MEM_MODEL, PR_SET_MEM_MODEL_TSO, 0, 0, 0);
	c.err = c.ret < 0 ? errno : 0;
	return c;
}

static inline bool same_call(const struct call *a, const struct call *b)
{
	return a->ret == b->ret && (a->ret >= 0 || a->err == b->err);
}

/* The return value, or the errno's name when the call failed. */
static inline const char *shown(const struct call *c, char *buf, size_t len)
{
	if (c->ret >= 0)
		snprintf(buf, len, "%d", c->ret);
	else if (c->err == EINVAL)
		snprintf(buf, len, "EINVAL");
	else
		snprintf(buf, len, "%s", strerror(c->err));
	return buf;
}

/* One line, written in one call: the threads and the children share it. */
static inline __attribute__((format(printf, 1, 2)))
void say(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDOUT_FILENO, line, n) < 0)
		_exit(3);
}

/* The oracle reads of some threads: the reads, and those that read 0. */
struct reads {
	long checks;
	long weak;
};

/*
 * A refusal is EINVAL and a success returns at most MAX: anything else
 * is said, under TAG, and is false.
 */
static inline bool call_expected(const char *tag, const char *what,
				 const struct call *c, int max)
{
	char b[64];

	if (c->ret < 0 ? c->err == EINVAL : c->ret <= max)
		return true;
	say("%sunexpected: %s gave %s (a kernel that refuses gives EINVAL)",
	    tag, what, shown(c, b, sizeof(b)));
	return false;
}

/* Whether the emulated Apple CPU's oracle register exists. */
static inline bool oracle_present(void)
{
#ifdef __aarch64__
	return apple_regs_present();
#else
	return false;
#endif
}

/*
 * PROTO_READS reads of the oracle by a thread that concluded hardware
 * TSO: each must be 1, on whatever CPU the thread runs. It yields or
 * sleeps now and then, so that it moves between CPUs. TAG and WHO name
 * it in the report of its first weak read.
 */
static inline void read_oracle(struct reads *r, const char *tag,
			       const char *who)
{
#ifdef __aarch64__
	const struct timespec nap = { 0, 20 * 1000 };
	bool told = false;

	for (int i = 0; i < PROTO_READS; i++) {
		r->checks++;
		if (!apple_tso_oracle()) {
			r->weak++;
			if (!told)
				say("%s%s: read %d of %d weak (0) on CPU%d", tag,
				    who, i + 1, PROTO_READS, sched_getcpu());
			told = true;
		}
		if (i % 64 == 63)
			nanosleep(&nap, NULL);
		else if (i % 8 == 7)
			sched_yield();
	}
#else
	(void)r;
	(void)tag;
	(void)who;
#endif
}

#endif
