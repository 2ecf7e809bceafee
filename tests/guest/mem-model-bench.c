// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's guest side, for QEMU's -icount shift=0: guest time then
 * advances one nanosecond per executed instruction, so CLOCK_MONOTONIC
 * counts instructions (to the 16 ns tick of QEMU's generic timer).
 *
 *   mem-model-bench ROUNDS
 *
 * prints one line a workload:
 *
 *   mem-model-bench: WORKLOAD n=N instr=I actlr-reads=R actlr-writes=W models=ok|refused
 *
 * I is instructions per unit (per context switch, call, sleep, read or exec),
 * R and W the ACTLR_EL1 accesses per unit from the emulated Apple CPU's
 * counters (qemu/README.md), or "-" on other CPUs. "models" says whether
 * the kernel took the models the workload asks for.
 *
 * Workloads: switch-default, switch-tso, switch-mixed (a pipe ping-pong
 * between two threads on one CPU: both DEFAULT, both TSO, one each; a
 * round trip is two context switches), get (PR_GET_MEM_MODEL) and set
 * (PR_SET_MEM_MODEL to the model the thread already has), then two with
 * a kernel thread between two stretches of a TSO thread's user code, on
 * CPU0, ROUNDS / 4 times (at least once):
 *
 *   sleep-wake   the thread nanosleep()s 50 us (timer slack 1 ns): CPU0
 *                goes idle until the timer wakes the thread. I is per
 *                sleep and includes the 50000 ns slept: the idle time,
 *                skipped to the timer under sleep=off, still advances
 *                CLOCK_MONOTONIC, by the same for every kernel.
 *   tso-kworker  the thread reads /proc/sys/vm/stat_refresh, whose
 *                schedule_on_each_cpu() queues a work item on each CPU
 *                and waits for it: the thread blocks while a kworker runs
 *                it on CPU0. I is per read, work included.
 *
 * Each sleep must cost the thread at least one voluntary context switch,
 * and each read at least one context switch (getrusage(RUSAGE_THREAD));
 * if not, the workload does not measure what it says, and the program
 * says so and exits 1. A read counts an involuntary switch too: a kworker
 * that preempts the reader (at a tick under PREEMPT_LAZY, or at once under
 * CONFIG_PREEMPT) still runs on CPU0 in between. On a kernel that refuses
 * TSO they run DEFAULT, and say models=refused.
 *
 * Last, what an exec costs a TSO thread, whose model execve() resets to
 * DEFAULT, ROUNDS / 64 times (at least once):
 *
 *   exec         the TSO thread, on CPU0, fork()s a child that execve()s
 *                this program (/proc/self/exe) with the one argument
 *                "exec-child", and waitpid()s it. I is per exec: the fork,
 *                the exec, the child's exit and the wait.
 *
 * An exec child checks, at the top of main(), that PR_GET_MEM_MODEL says
 * DEFAULT (where the kernel has the prctl) and exits 0, or 1 if not; the
 * program says so and exits 1 if a child fails or its exec does. On a
 * kernel that refuses TSO the thread runs DEFAULT: models=refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mem-model.h"
#include "bench.h"

static bool set_model(int model)
{
	return prctl(PR_SET_MEM_MODEL, model, 0, 0, 0) == 0;
}

struct ponger {
	int in, out, model;
	long rounds;
	bool model_ok;
};

static void *pong(void *arg)
{
	struct ponger *p = arg;
	char c;

	pin_cpu0();
	p->model_ok = set_model(p->model);
	for (long i = 0; i < warmup(p->rounds) + p->rounds; i++) {
		if (read(p->in, &c, 1) != 1 || write(p->out, &c, 1) != 1) {
			perror("mem-model-bench: pong");
			exit(1);
		}
	}
	return NULL;
}

static void ping_pong(const char *name, int model_a, int model_b, long rounds)
{
	struct ponger p = { .model = model_b, .rounds = rounds };
	int ab[2], ba[2];
	struct sample s0, s1;
	pthread_t t;
	bool ok;
	char c = 0;

	if (pipe(ab) || pipe(ba)) {
		perror("mem-model-bench: pipe");
		exit(1);
	}
	p.in = ab[0];
	p.out = ba[1];
	ok = set_model(model_a);
	if (pthread_create(&t, NULL, pong, &p)) {
		fprintf(stderr, "mem-model-bench: pthread_create failed\n");
		exit(1);
	}
	/*
	 * A quarter more round trips first, unmeasured, so that both threads
	 * are on CPU0 and the first-time costs (faults, allocations) are paid.
	 */
	for (long i = 0; i < warmup(rounds) + rounds; i++) {
		if (i == warmup(rounds))
			sample(&s0);
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			perror("mem-model-bench: ping");
			exit(1);
		}
	}
	sample(&s1);
	pthread_join(t, NULL);
	report(name, 2 * rounds, &s0, &s1, ok && p.model_ok);
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	set_model(PR_SET_MEM_MODEL_DEFAULT);
}

static void calls(const char *name, int op, long n)
{
	struct sample s0, s1;
	bool ok = prctl(op, 0, 0, 0, 0) >= 0;

	for (long i = 0; i < warmup(n); i++)
		prctl(op, 0, 0, 0, 0);
	sample(&s0);
	for (long i = 0; i < n; i++)
		prctl(op, 0, 0, 0, 0);
	sample(&s1);
	report(name, n, &s0, &s1, ok);
}

/*
 * The calling thread's context switches so far: the voluntary ones, or
 * all of them. A reader that a tick preempts in favour of the kworker it
 * has just woken (PREEMPT_LAZY upgrades the kworker's lazy wake-up at the
 * tick) finds the work done and does not block: the kworker still ran on
 * its CPU in between, as an involuntary switch.
 */
static long context_switches(bool involuntary_too)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru)) {
		perror("mem-model-bench: getrusage");
		exit(1);
	}
	return ru.ru_nvcsw + (involuntary_too ? ru.ru_nivcsw : 0);
}

/* A workload whose unit did not switch the thread out measures nothing. */
static void must_have_switched(const char *name, long switches, long n,
			       const char *units, const char *what)
{
	if (switches >= n)
		return;
	printf("mem-model-bench: %s: only %ld context switches in %ld %s: no %s to measure\n",
	       name, switches, n, units, what);
	exit(1);
}

#define SLEEP_NS 50000

/* A TSO thread on CPU0 sleeps; CPU0 runs its idle thread meanwhile. */
static void sleep_wake(const char *name, long n)
{
	struct timespec t = { 0, SLEEP_NS };
	struct sample s0, s1;
	long v0 = 0, v1;
	bool ok;

	/* The default 50 us of slack would make each sleep last longer. */
	if (prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)) {
		perror("mem-model-bench: PR_SET_TIMERSLACK");
		exit(1);
	}
	ok = set_model(PR_SET_MEM_MODEL_TSO);
	for (long i = 0; i < warmup(n) + n; i++) {
		if (i == warmup(n)) {
			v0 = context_switches(false);
			sample(&s0);
		}
		if (nanosleep(&t, NULL)) {
			perror("mem-model-bench: nanosleep");
			exit(1);
		}
	}
	sample(&s1);
	v1 = context_switches(false);
	must_have_switched(name, v1 - v0, n, "sleeps", "idle interleaving");
	report(name, n, &s0, &s1, ok);
	set_model(PR_SET_MEM_MODEL_DEFAULT);
	prctl(PR_SET_TIMERSLACK, 0, 0, 0, 0);
}

/*
 * Reading /proc/sys/vm/stat_refresh (SMP, PROC_FS and SYSCTL; root) runs
 * schedule_on_each_cpu(): a work item queued on every online CPU's bound
 * kworker, and a flush_work() that blocks the reader until each has run.
 */
#define KWORKER_TRIGGER "/proc/sys/vm/stat_refresh"

/* A TSO thread on CPU0 waits while a kworker runs on CPU0. */
static void tso_kworker(const char *name, long n)
{
	int fd = open(KWORKER_TRIGGER, O_RDONLY | O_CLOEXEC);
	struct sample s0, s1;
	long v0 = 0, v1;
	bool ok;
	char c;

	if (fd < 0) {
		perror("mem-model-bench: " KWORKER_TRIGGER);
		exit(1);
	}
	ok = set_model(PR_SET_MEM_MODEL_TSO);
	for (long i = 0; i < warmup(n) + n; i++) {
		if (i == warmup(n)) {
			v0 = context_switches(true);
			sample(&s0);
		}
		if (pread(fd, &c, 1, 0) < 0) {
			perror("mem-model-bench: read " KWORKER_TRIGGER);
			exit(1);
		}
	}
	sample(&s1);
	v1 = context_switches(true);
	must_have_switched(name, v1 - v0, n, "iterations",
			   "kernel-thread interleaving");
	report(name, n, &s0, &s1, ok);
	set_model(PR_SET_MEM_MODEL_DEFAULT);
	close(fd);
}

/*
 * The argument that makes this program an exec child: it checks its model
 * and exits, before anything else. An exit status of 127 says its exec
 * failed.
 */
#define EXEC_CHILD_ARG "exec-child"
#define EXEC_FAILED 127

/* An exec child: a TSO thread's exec must have given it DEFAULT. */
static int exec_child(void)
{
	int model = prctl(PR_GET_MEM_MODEL, 0, 0, 0, 0);

	/* A kernel without the prctl, such as the base, runs DEFAULT. */
	if (model == PR_SET_MEM_MODEL_DEFAULT || (model < 0 && errno == EINVAL))
		return 0;
	printf("mem-model-bench: exec: PR_GET_MEM_MODEL after exec returned %d (%s), not DEFAULT\n",
	       model, model < 0 ? strerror(errno) : "no error");
	return 1;
}

/* One exec: fork, execve() of @self as an exec child, exit and wait. */
static void exec_once(const char *name, const char *self)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("mem-model-bench: fork");
		exit(1);
	}
	if (!pid) {
		execve(self, (char *[]){ (char *)self, EXEC_CHILD_ARG, NULL },
		       environ);
		perror("mem-model-bench: execve");
		_exit(EXEC_FAILED);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("mem-model-bench: waitpid");
		exit(1);
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == EXEC_FAILED)
		printf("mem-model-bench: %s: the exec of %s failed\n", name, self);
	else if (WIFEXITED(status))
		printf("mem-model-bench: %s: the exec child exited %d\n", name,
		       WEXITSTATUS(status));
	else
		printf("mem-model-bench: %s: the exec child died of signal %d\n",
		       name, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	exit(1);
}

/*
 * A TSO thread on CPU0 execs a child, which runs on CPU0 too (it inherits
 * the affinity) while the thread waits. fork(), not vfork(): a vfork()ing
 * thread wakes up in the middle of the exec, when the child lets go of its
 * memory, and is runnable for the rest of the child's life; a fork()ing
 * one waits in waitpid(), or, if the child ran first, stays preempted
 * until a tick finds the child's slice used up. The exec reads ACTLR_EL1
 * once and writes it once (the child was TSO), and the switch from the
 * child, then DEFAULT, back to the TSO thread writes it once: each time
 * the thread runs in between costs two more writes.
 */
static void exec_tso(const char *name, long n, const char *self)
{
	struct sample s0, s1;
	bool ok;

	ok = set_model(PR_SET_MEM_MODEL_TSO);
	for (long i = 0; i < warmup(n) + n; i++) {
		if (i == warmup(n))
			sample(&s0);
		exec_once(name, self);
	}
	sample(&s1);
	report(name, n, &s0, &s1, ok);
	set_model(PR_SET_MEM_MODEL_DEFAULT);
}

/* This program's path, for the exec children: resolved once. */
static const char *self_path(const char *argv0)
{
	static char path[4096];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (len <= 0)
		return argv0;
	path[len] = 0;
	return path;
}

int main(int argc, char **argv)
{
	long rounds;

	if (argc == 2 && !strcmp(argv[1], EXEC_CHILD_ARG))
		return exec_child();
	rounds = bench_rounds(argc, argv);
	have_counters = apple_regs_present();
	pin_cpu0();
	set_model(PR_SET_MEM_MODEL_DEFAULT);

	ping_pong("switch-default", PR_SET_MEM_MODEL_DEFAULT,
		  PR_SET_MEM_MODEL_DEFAULT, rounds);
	ping_pong("switch-tso", PR_SET_MEM_MODEL_TSO, PR_SET_MEM_MODEL_TSO,
		  rounds);
	ping_pong("switch-mixed", PR_SET_MEM_MODEL_TSO,
		  PR_SET_MEM_MODEL_DEFAULT, rounds);
	calls("get", PR_GET_MEM_MODEL, 5 * rounds);
	calls("set", PR_SET_MEM_MODEL, 5 * rounds);
	sleep_wake("sleep-wake", rounds / 4 ? rounds / 4 : 1);
	tso_kworker("tso-kworker", rounds / 4 ? rounds / 4 : 1);
	exec_tso("exec", rounds / 64 ? rounds / 64 : 1, self_path(argv[0]));
	printf("mem-model-bench: done\n");
	return 0;
}
