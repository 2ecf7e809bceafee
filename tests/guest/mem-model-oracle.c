// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware-state oracle test, for the emulated Apple CPU of qemu/
 * (x-apple-tso=on). The CPU's own TSO bit, read from the EL0 oracle
 * register, must equal the model of the thread reading it: after SET and
 * GET, after migration, in threads and children, after exec, across CPU
 * hotplug, and under a stress of more threads than CPUs. GET must always
 * agree with the last SET that succeeded. Kernel threads and the idle
 * thread may keep whatever model the CPU ran ("lazy"): the next user
 * thread must find its own, after a sleep, after a kworker ran on its CPU,
 * and after an exec (DEFAULT) on a CPU that last ran TSO.
 *
 *   mem-model-oracle SECONDS MIN_CHECKS [none|floor]
 *
 * runs the cases, then the stress for SECONDS at least, and on until it
 * has made MIN_CHECKS checks: a slow or busy host makes it run longer, not
 * fail. It fails if it has not made them within STRESS_BOUND times
 * SECONDS (a timeout, said as one). SECONDS 0 runs the stress until a
 * SIGTERM, and on until MIN_CHECKS, STRESS_AFTER_TERM seconds at the
 * most. With "none", the system must offer this program no
 * TSO (a guest whose VM did not opt in): every SET(TSO) must fail with
 * EINVAL, GET must say DEFAULT, and every CPU's bit must read 0, in the
 * same cases and stress. With "floor", the firmware left TSO on for
 * everybody: every CPU's bit must read 1 whatever the thread's model,
 * while SET and GET work per thread as on Apple's TSO (SET(TSO) returns
 * 0, GET gives the thread's own model).
 * Every line starts with "mem-model-oracle: "; the last one is
 *
 *   mem-model-oracle: result PASS|FAIL checks=C mismatches=M get-disagreements=D
 *
 * with the figures of the stress. "--exec-check" is for the exec case.
 * Last, on every CPU, no write to ACTLR_EL1 or ACTLR_EL2, by anyone, may
 * have tried to change another bit than TSO (the emulated CPU counts
 * them): only the TSO bit is anyone's to change, a guest's above all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
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

#define TAG "mem-model-oracle: "
#define MAX_CPUS 64
#define MAX_REPORTS 10

static inline int oracle(void)
{
	return (int)apple_tso_oracle();
}

struct figures {
	long checks, mismatches, disagreements, errors, sets;
};

static int ncpus;
static int cpus[MAX_CPUS];	/* the CPUs online at the start */
/*
 * An always-TSO system, such as a VM that its hypervisor runs with TSO:
 * SET(TSO) succeeds and GET stays DEFAULT. Every CPU's bit must then read
 * 1, whatever model the thread asked for.
 */
static bool always_tso;
/* The "none" mode: no TSO for this program, every CPU's bit reads 0. */
static bool no_tso;
/*
 * The "floor" mode: TSO left on for everybody, every CPU's bit reads 1;
 * SET and GET per thread, as where the bit follows the thread.
 */
static bool floor_tso;
static int case_failed;
static int reports;

/* One line, written in one call: threads and forked children share it. */
static void say(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%s", TAG);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDOUT_FILENO, line, n) < 0)
		_exit(3);
}

static int set_model(int model)
{
	return prctl(PR_SET_MEM_MODEL, model, 0, 0, 0);
}

static int get_model(void)
{
	return prctl(PR_GET_MEM_MODEL, 0, 0, 0, 0);
}

/* The bit a CPU must show while it runs a thread of this model. */
static int bit_for(int model)
{
	return always_tso || floor_tso ? 1 : no_tso ? 0 : model;
}

/* One check: the CPU's bit against the thread's model. */
static void check(struct figures *f, int model, const char *where)
{
	int hw = oracle();

	f->checks++;
	if (hw == bit_for(model))
		return;
	f->mismatches++;
	if (__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED) < MAX_REPORTS)
		say("  mismatch: %s: thread model %d, CPU%d runs %d", where,
		    model, sched_getcpu(), hw);
}

static void check_get(struct figures *f, int model, const char *where)
{
	int got = get_model();

	if (got == (always_tso || no_tso ? PR_SET_MEM_MODEL_DEFAULT : model))
		return;
	f->disagreements++;
	if (__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED) < MAX_REPORTS)
		say("  GET disagrees: %s: last SET %d, GET %d (%s)", where,
		    model, got, got < 0 ? strerror(errno) : "-");
}

static void must_set(struct figures *f, int model, const char *where)
{
	f->sets++;
	if (no_tso && model == PR_SET_MEM_MODEL_TSO) {
		/* Refused, with EINVAL, and nothing changed. */
		if (set_model(model) < 0 && errno == EINVAL)
			return;
		f->errors++;
		if (__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED) < MAX_REPORTS)
			say("  SET(TSO) on a system without TSO: %s: %s", where,
			    errno == EINVAL ? "succeeded" : strerror(errno));
		return;
	}
	if (set_model(model) == 0)
		return;
	f->errors++;
	if (__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED) < MAX_REPORTS)
		say("  SET(%d) failed: %s: %s", model, where, strerror(errno));
}

static bool bad(const struct figures *f)
{
	return f->mismatches || f->disagreements || f->errors;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu < 0) {
		for (int i = 0; i < ncpus; i++)
			CPU_SET(cpus[i], &set);
	} else {
		CPU_SET(cpu, &set);
	}
	return sched_setaffinity(0, sizeof(set), &set);
}

#define NAP_NS 50000

/* Sleep ns nanoseconds: the CPU may run its idle thread meanwhile. */
static void nap(long ns)
{
	struct timespec t = { ns / 1000000000, ns % 1000000000 };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/*
 * Reading /proc/sys/vm/stat_refresh runs schedule_on_each_cpu(): a work
 * item queued on every online CPU's bound kworker, and a flush_work() that
 * blocks the reader until each has run. Opened once, by main().
 */
#define KWORKER_TRIGGER "/proc/sys/vm/stat_refresh"
static int kworker_fd = -1;

/* Run a kworker on every CPU, ours included, while this thread waits. */
static bool run_kworkers(struct figures *f, const char *where)
{
	char c;

	if (pread(kworker_fd, &c, 1, 0) >= 0)
		return true;
	f->errors++;
	if (__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED) < MAX_REPORTS)
		say("  %s: read " KWORKER_TRIGGER ": %s", where,
		    strerror(errno));
	return false;
}

/* This thread's context switches: voluntary, or of either kind. */
static long switches(bool involuntary_too)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nvcsw + (involuntary_too ? ru.ru_nivcsw : 0);
}

/*
 * Sleep until this thread has blocked at least once: a sleep that ends
 * before the thread gets to block (a slow or single-stepped CPU) is
 * followed by one twice as long, up to about a quarter of a second.
 */
static void nap_blocked(struct figures *f, long ns, const char *where)
{
	long before = switches(false);

	for (; ns < 256 * 1000 * 1000; ns *= 2) {
		nap(ns);
		if (switches(false) != before)
			return;
	}
	f->errors++;
	say("  %s: the thread never blocked in nanosleep()", where);
}

/*
 * Run the kworkers until this thread has left its CPU at least once:
 * blocked in flush_work(), or preempted by the kworker it woke.
 */
static void kworkers_switched(struct figures *f, const char *where)
{
	for (int i = 0; i < 8; i++) {
		long before = switches(true);

		if (!run_kworkers(f, where))
			return;
		if (switches(true) != before)
			return;
	}
	f->errors++;
	say("  %s: the thread never left its CPU to a kworker", where);
}

static void report_case(int n, const char *name, const struct figures *f,
			const char *skip)
{
	if (skip) {
		say("ok %d %s # SKIP %s", n, name, skip);
		return;
	}
	if (bad(f))
		case_failed = 1;
	say("%s %d %s (checks=%ld mismatches=%ld get-disagreements=%ld errors=%ld)",
	    bad(f) ? "not ok" : "ok", n, name, f->checks, f->mismatches,
	    f->disagreements, f->errors);
}

/* Case: SET, then the bit; GET, then the bit again. */
static void case_set_get(struct figures *f)
{
	static const int models[] = { 1, 0, 1, 1, 0, 0 };

	for (unsigned int i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		must_set(f, models[i], "set_get");
		check(f, models[i], "after SET");
		check_get(f, models[i], "set_get");
		check(f, models[i], "after GET");
	}
}

/* Case: the model follows the thread to every CPU. */
static void case_migrate(struct figures *f)
{
	for (int model = 1; model >= 0; model--) {
		must_set(f, model, "migrate");
		for (int i = 0; i < ncpus; i++) {
			if (pin(cpus[i])) {
				f->errors++;
				say("  sched_setaffinity(CPU%d): %s", cpus[i],
				    strerror(errno));
				continue;
			}
			sched_yield();
			check(f, model, "after migration");
		}
	}
	pin(-1);
}

static void *thread_body(void *arg)
{
	struct figures *f = arg;

	check(f, 1, "new pthread inherits TSO");
	check_get(f, 1, "new pthread");
	must_set(f, 0, "pthread");
	check(f, 0, "pthread after SET");
	sched_yield();
	check(f, 0, "pthread after yield");
	return NULL;
}

/* Case: a pthread inherits the model and changes only its own. */
static void case_pthread(struct figures *f)
{
	pthread_t t;

	must_set(f, 1, "pthread parent");
	if (pthread_create(&t, NULL, thread_body, f)) {
		f->errors++;
		return;
	}
	for (int i = 0; i < 1000; i++)
		check(f, 1, "parent while the pthread runs");
	pthread_join(t, NULL);
	check(f, 1, "parent after join");
	check_get(f, 1, "parent after join");
	must_set(f, 0, "pthread parent");
}

/* Run fn in a child; the child sends back its figures. */
static void in_child(struct figures *f, void (*fn)(struct figures *))
{
	struct figures cf = { 0 };
	int fds[2], status;
	pid_t pid;

	if (pipe(fds)) {
		f->errors++;
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		f->errors++;
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		fn(&cf);
		if (write(fds[1], &cf, sizeof(cf)) != sizeof(cf))
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &cf, sizeof(cf)) != sizeof(cf))
		cf.errors++;
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		cf.errors++;
	f->checks += cf.checks;
	f->mismatches += cf.mismatches;
	f->disagreements += cf.disagreements;
	f->errors += cf.errors;
	f->sets += cf.sets;
}

static void fork_child(struct figures *f)
{
	check(f, 1, "forked child inherits TSO");
	check_get(f, 1, "forked child");
	must_set(f, 0, "forked child");
	check(f, 0, "forked child after SET");
}

/* Case: a forked child inherits the model; the parent keeps its own. */
static void case_fork(struct figures *f)
{
	must_set(f, 1, "fork parent");
	in_child(f, fork_child);
	check(f, 1, "parent after the child changed its model");
	must_set(f, 0, "fork parent");
}

/*
 * Exec this program with --exec-check: it exits 0 if it runs DEFAULT (on
 * an always-TSO system or a TSO floor, if its CPU's bit still reads 1).
 * With nap, the child sleeps first, keeping the model it inherited, so
 * that its CPU idles with it before the exec.
 */
static void exec_child(struct figures *f, bool nap_first, const char *where)
{
	pid_t pid;
	int status;

	f->checks++;
	pid = fork();
	if (pid == 0) {
		struct figures cf = { 0 };

		if (nap_first)
			nap_blocked(&cf, NAP_NS, where);
		if (cf.errors)
			_exit(3);
		execl("/proc/self/exe", "mem-model-oracle", "--exec-check",
		      bit_for(0) ? "always" : "switchable", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
		f->errors++;
		return;
	}
	if (WEXITSTATUS(status) == 1) {
		f->mismatches++;
		if (__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED) < MAX_REPORTS)
			say("  mismatch: %s: the exec'd program (model 0) sees its CPU's bit not %d",
			    where, bit_for(0));
	} else if (WEXITSTATUS(status) == 2) {
		f->disagreements++;
		if (__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED) < MAX_REPORTS)
			say("  GET disagrees: %s: the exec'd program's GET is not 0",
			    where);
	} else if (WEXITSTATUS(status)) {
		f->errors++;
	}
}

static int exec_check(bool always)
{
	if (oracle() != (always ? 1 : 0))
		return 1;
	if (get_model() != 0)
		return 2;
	return 0;
}

/* Case: exec resets the model, whatever the thread ran before. */
static void case_exec(struct figures *f)
{
	for (int i = 0; i < 4; i++) {
		must_set(f, 1, "exec");
		exec_child(f, false, "exec");
		check(f, 1, "parent after its child's exec");
	}
	must_set(f, 0, "exec");
}

static int lazy_model;

/*
 * A child or pthread of the other model sleeps and meets kworkers on our
 * CPU, while we wait.
 */
static void lazy_other(struct figures *f)
{
	int other = !lazy_model;

	check(f, lazy_model, "lazy: child or pthread inherits the model");
	must_set(f, other, "lazy child or pthread");
	check(f, other, "lazy: child or pthread after SET");
	nap_blocked(f, NAP_NS, "lazy child or pthread");
	check(f, other, "lazy: child or pthread after sleeping");
	kworkers_switched(f, "lazy child or pthread");
	check(f, other, "lazy: child or pthread after kernel-thread work");
	check_get(f, other, "lazy child or pthread");
}

static void *lazy_thread(void *arg)
{
	lazy_other(arg);
	return NULL;
}

/*
 * Case: on one CPU, the idle thread and kworkers between user threads,
 * which may leave the CPU running the model of the last user thread. The
 * thread finds its own model after a sleep, after a kworker ran, after a
 * child, then a pthread (same mm), of the other model slept and met
 * kworkers there; a program that a TSO child execs after the CPU idled
 * with TSO finds DEFAULT. Children and pthreads inherit the pinning.
 */
static void case_lazy(struct figures *f)
{
	int cpu = cpus[ncpus - 1];
	pthread_t t;

	if (pin(cpu)) {
		f->errors++;
		say("  sched_setaffinity(CPU%d): %s", cpu, strerror(errno));
		return;
	}
	for (int model = 1; model >= 0; model--) {
		must_set(f, model, "lazy");
		check(f, model, "lazy: after SET");
		nap_blocked(f, NAP_NS, "lazy");
		check(f, model, "lazy: after sleeping");
		check_get(f, model, "lazy: after sleeping");
		kworkers_switched(f, "lazy");
		check(f, model, "lazy: after kernel-thread work");
		check_get(f, model, "lazy: after kernel-thread work");
		lazy_model = model;
		in_child(f, lazy_other);
		check(f, model, "lazy: after a child of the other model");
		check_get(f, model, "lazy: after a child of the other model");
		if (pthread_create(&t, NULL, lazy_thread, f)) {
			f->errors++;
			continue;
		}
		pthread_join(t, NULL);
		check(f, model, "lazy: after a pthread of the other model");
		check_get(f, model, "lazy: after a pthread of the other model");
	}
	for (int i = 0; i < 2; i++) {
		must_set(f, 1, "lazy exec");
		nap_blocked(f, NAP_NS, "lazy exec");
		check(f, 1, "lazy: TSO after sleeping, before the exec");
		exec_child(f, true, "lazy: exec after the CPU idled with TSO");
		check(f, 1, "lazy: parent after its child's exec");
	}
	must_set(f, 0, "lazy");
	pin(-1);
}

static int cpu_online_path(int cpu, char *buf, size_t len)
{
	snprintf(buf, len, "/sys/devices/system/cpu/cpu%d/online", cpu);
	return access(buf, W_OK);
}

static int set_online(int cpu, int on)
{
	char path[64];
	int fd, ret;

	cpu_online_path(cpu, path, sizeof(path));
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ret = write(fd, on ? "1" : "0", 1) == 1 ? 0 : -1;
	close(fd);
	return ret;
}

/* The CPUs that can go offline (CPU0 usually cannot). */
static int pluggable(int *out)
{
	char path[64];
	int n = 0;

	for (int i = 0; i < ncpus; i++)
		if (cpus[i] != 0 && !cpu_online_path(cpus[i], path, sizeof(path)))
			out[n++] = cpus[i];
	return n;
}

/*
 * Case: a CPU that goes offline and comes back runs the model of whatever
 * thread it runs: the register was reset while it was offline.
 */
static void case_hotplug(struct figures *f, const char **skip)
{
	int hp[MAX_CPUS], n = pluggable(hp);

	if (!n) {
		*skip = "no CPU can go offline";
		return;
	}
	for (int i = 0; i < n; i++) {
		for (int model = 1; model >= 0; model--) {
			must_set(f, model, "hotplug");
			pin(hp[i]);
			check(f, model, "pinned before offline");
			if (set_online(hp[i], 0)) {
				f->errors++;
				say("  CPU%d offline: %s", hp[i], strerror(errno));
				continue;
			}
			check(f, model, "after our CPU went offline");
			if (set_online(hp[i], 1)) {
				f->errors++;
				say("  CPU%d online: %s", hp[i], strerror(errno));
				continue;
			}
			if (pin(hp[i])) {
				f->errors++;
				continue;
			}
			sched_yield();
			check(f, model, "back on the CPU that came online");
			check_get(f, model, "hotplug");
		}
	}
	pin(-1);
	must_set(f, 0, "hotplug");
}

/* The stress. */
static volatile int stop;

struct worker {
	pthread_t t;
	struct figures f;
	uint32_t seed;
	int id;
};

static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void *stress_worker(void *arg)
{
	struct worker *w = arg;
	struct figures *f = &w->f;
	int model = 0;

	for (unsigned long i = 0; !stop; i++) {
		uint32_t r = next_rand(&w->seed);
		long errors = f->errors;

		model = r & 1;
		must_set(f, model, "stress");
		if (f->errors != errors)
			continue;
		check(f, model, "stress, after SET");
		if (r & 2)
			sched_yield();
		check(f, model, "stress, later");
		check_get(f, model, "stress");
		check(f, model, "stress, after GET");
		if ((i & 63) == 0)
			pin((r >> 8) % 4 ? cpus[(r >> 12) % ncpus] : -1);
	}
	pin(-1);
	return NULL;
}

static void stress_child(struct figures *f)
{
	uint32_t seed = getpid() * 2654435761u;

	check(f, 1, "stress child inherits TSO");
	for (int i = 0; i < 200; i++) {
		int model = next_rand(&seed) & 1;

		must_set(f, model, "stress child");
		check(f, model, "stress child, after SET");
		sched_yield();
		check(f, model, "stress child, later");
		check_get(f, model, "stress child");
	}
}

/*
 * Forks and execs, with TSO set before each, while the workers run; every
 * other exec on a CPU that the TSO parent and child slept on just before.
 */
static void *stress_procs(void *arg)
{
	struct worker *w = arg;

	for (unsigned long i = 0; !stop; i++) {
		must_set(&w->f, 1, "stress procs");
		in_child(&w->f, stress_child);
		if (i & 1) {
			pin(cpus[next_rand(&w->seed) % ncpus]);
			nap(NAP_NS);
			check(&w->f, 1, "stress procs, after sleeping");
			exec_child(&w->f, true,
				   "stress, exec after TSO slept on its CPU");
			pin(-1);
		} else {
			exec_child(&w->f, false, "stress, exec");
		}
		check(&w->f, 1, "stress procs, after its children");
	}
	return NULL;
}

/*
 * Sets a random model, leaves its CPU to others with away(), and checks
 * the model before and after; now and then moves to another CPU.
 */
static void stress_away(struct worker *w, const char *name,
			bool (*away)(struct worker *w))
{
	struct figures *f = &w->f;
	char after_set[64], after_away[64];

	snprintf(after_set, sizeof(after_set), "%s, after SET", name);
	snprintf(after_away, sizeof(after_away), "%s, after its CPU ran others",
		 name);
	for (unsigned long i = 0; !stop; i++) {
		uint32_t r = next_rand(&w->seed);
		long errors = f->errors;
		int model = r & 1;

		must_set(f, model, name);
		if (f->errors != errors)
			continue;
		check(f, model, after_set);
		if (!away(w))
			break;
		check(f, model, after_away);
		check_get(f, model, name);
		if ((i & 15) == 0)
			pin((r >> 8) % 4 ? cpus[(r >> 12) % ncpus] : -1);
	}
	pin(-1);
}

/* A sleep: its CPU may go idle, or run others, meanwhile. */
static bool away_sleep(struct worker *w)
{
	nap(NAP_NS / 2 + next_rand(&w->seed) % (4 * NAP_NS));
	return true;
}

/* A wait for a kworker on each CPU, its own included. */
static bool away_kworker(struct worker *w)
{
	return run_kworkers(&w->f, "stress kworker");
}

static void *stress_sleeper(void *arg)
{
	stress_away(arg, "stress sleeper", away_sleep);
	return NULL;
}

static void *stress_kworker(void *arg)
{
	stress_away(arg, "stress kworker", away_kworker);
	return NULL;
}

/* Takes the pluggable CPUs offline and back, one at a time. */
static void *stress_hotplug(void *arg)
{
	struct worker *w = arg;
	int hp[MAX_CPUS], n = pluggable(hp);
	struct timespec pause = { 0, 20 * 1000 * 1000 };

	for (int i = 0; n && !stop; i++) {
		int cpu = hp[i % n];

		if (set_online(cpu, 0) == 0) {
			nanosleep(&pause, NULL);
			if (set_online(cpu, 1))
				w->f.errors++;
			w->f.sets++;	/* counts the cycles */
		}
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The checks the workers have made so far (read while they run). */
static long checks_so_far(struct worker *w, int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++)
		sum += __atomic_load_n(&w[i].f.checks, __ATOMIC_RELAXED);
	return sum;
}

/*
 * The stress: 2 * CPUs + 1 workers, and one thread each for the forks and
 * execs, the hotplug, the sleeps and the kworkers. It runs SECONDS, then
 * on until MIN_CHECKS, for STRESS_BOUND times SECONDS at the most; with
 * SECONDS 0, until a SIGTERM, then on until MIN_CHECKS, for
 * STRESS_AFTER_TERM seconds at the most.
 */
#define STRESS_EXTRA 4
#define STRESS_BOUND 12
#define STRESS_AFTER_TERM 60

static void run_stress(struct figures *total, int seconds, long min_checks)
{
	int nworkers = 2 * ncpus + 1;
	struct worker *w = calloc(nworkers + STRESS_EXTRA, sizeof(*w));
	struct timespec poll = { 0, 100 * 1000 * 1000 };
	double t0 = now(), deadline;
	long plugs = 0;

	for (int i = 0; i < nworkers + STRESS_EXTRA; i++) {
		void *(*fn)(void *) = stress_worker;

		if (i == nworkers)
			fn = stress_procs;
		else if (i == nworkers + 1)
			fn = stress_hotplug;
		else if (i == nworkers + 2)
			fn = stress_sleeper;
		else if (i == nworkers + 3)
			fn = stress_kworker;
		w[i].id = i;
		w[i].seed = 0x9e3779b9u * (i + 1);
		if (pthread_create(&w[i].t, NULL, fn, &w[i])) {
			say("  pthread_create: %s", strerror(errno));
			total->errors++;
		}
	}
	if (seconds) {
		sleep(seconds);
		deadline = t0 + (double)STRESS_BOUND * seconds;
	} else {
		sigset_t term;
		int sig;

		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigwait(&term, &sig);
		deadline = now() + STRESS_AFTER_TERM;
	}
	while (checks_so_far(w, nworkers + STRESS_EXTRA) < min_checks &&
	       now() < deadline)
		nanosleep(&poll, NULL);
	stop = 1;
	for (int i = 0; i < nworkers + STRESS_EXTRA; i++) {
		pthread_join(w[i].t, NULL);
		if (i == nworkers + 1) {
			plugs = w[i].f.sets;
			total->errors += w[i].f.errors;
			continue;
		}
		total->checks += w[i].f.checks;
		total->mismatches += w[i].f.mismatches;
		total->disagreements += w[i].f.disagreements;
		total->errors += w[i].f.errors;
		total->sets += w[i].f.sets;
	}
	say("stress: %d threads on %d CPUs, %.1fs, %ld SETs, %ld hotplug cycles",
	    nworkers + STRESS_EXTRA, ncpus, now() - t0, total->sets, plugs);
	free(w);
}

/* Case: no ACTLR write on any CPU tried to change another bit than TSO. */
static void case_other_bits(struct figures *f)
{
	for (int i = 0; i < ncpus; i++) {
		uint64_t n;

		if (pin(cpus[i])) {
			f->errors++;
			continue;
		}
		n = apple_actlr_other_writes();
		f->checks++;
		if (n) {
			f->mismatches++;
			say("  CPU%d: %llu ACTLR write(s) tried to change another bit than TSO",
			    cpus[i], (unsigned long long)n);
		}
	}
	pin(-1);
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"set_get", "migrate", "pthread", "fork", "exec", "hotplug",
		"lazy",
	};
	struct figures f, stress = { 0 };
	int seconds = 0;
	long min_checks = 0;
	char *end = "";
	sigset_t term;
	cpu_set_t set;
	int n = 0;

	if (argc > 1 && !strcmp(argv[1], "--exec-check"))
		return exec_check(argc > 2 && !strcmp(argv[2], "always"));
	if (argc > 2) {
		seconds = strtol(argv[1], &end, 10);
		if (!*end)
			min_checks = strtol(argv[2], &end, 10);
	}
	if (argc > 3) {
		no_tso = !strcmp(argv[3], "none");
		floor_tso = !strcmp(argv[3], "floor");
	}
	if (argc < 3 || *end || seconds < 0 || min_checks < 0 || argc > 4 ||
	    (argc > 3 && !no_tso && !floor_tso)) {
		fprintf(stderr, "usage: mem-model-oracle SECONDS MIN_CHECKS [none|floor]\n");
		return 2;
	}
	/* With SECONDS 0, the stress waits for a SIGTERM (sigwait()). */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL);

	if (!apple_regs_present()) {
		say("result FAIL: reading the oracle register S3_3_C15_C15_0 traps: not QEMU's emulated Apple CPU (x-apple-tso=on)");
		return 1;
	}

	if (no_tso) {
		say("a system without TSO for this program: every CPU's bit must read 0");
	} else if (set_model(PR_SET_MEM_MODEL_TSO)) {
		say("result FAIL: PR_SET_MEM_MODEL(TSO): %s: this kernel does not switch TSO on this CPU",
		    strerror(errno));
		return 1;
	} else {
		/* A floor's GET must follow the thread: the cases judge it. */
		always_tso = !floor_tso &&
			     get_model() == PR_SET_MEM_MODEL_DEFAULT;
		set_model(PR_SET_MEM_MODEL_DEFAULT);
	}
	if (always_tso)
		say("an always-TSO system: every CPU's bit must read 1");
	if (floor_tso)
		say("a TSO floor: every CPU's bit must read 1, GET and SET per thread");

	/* Sleeps as short as asked, in this thread and those it creates. */
	prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
	kworker_fd = open(KWORKER_TRIGGER, O_RDONLY | O_CLOEXEC);
	if (kworker_fd < 0)
		say("  " KWORKER_TRIGGER ": %s: no kernel-thread interleavings",
		    strerror(errno));

	sched_getaffinity(0, sizeof(set), &set);
	for (int i = 0; i < CPU_SETSIZE && ncpus < MAX_CPUS; i++)
		if (CPU_ISSET(i, &set))
			cpus[ncpus++] = i;
	if (seconds)
		say("%d CPUs online, stress for %ds and until %ld checks, %ds at most",
		    ncpus, seconds, min_checks, STRESS_BOUND * seconds);
	else
		say("%d CPUs online, stress until SIGTERM, at least %ld checks",
		    ncpus, min_checks);

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *skip = NULL;

		memset(&f, 0, sizeof(f));
		switch (i) {
		case 0: case_set_get(&f); break;
		case 1: case_migrate(&f); break;
		case 2: case_pthread(&f); break;
		case 3: case_fork(&f); break;
		case 4: case_exec(&f); break;
		case 5: case_hotplug(&f, &skip); break;
		case 6: case_lazy(&f); break;
		}
		report_case(++n, names[i], &f, skip);
	}

	run_stress(&stress, seconds, min_checks);
	report_case(++n, "stress", &stress, NULL);
	memset(&f, 0, sizeof(f));
	case_other_bits(&f);
	report_case(++n, "other-actlr-bits", &f, NULL);
	if (stress.checks < min_checks) {
		if (seconds)
			say("  stress: timeout: %ld checks in %ds, fewer than the %ld required",
			    stress.checks, STRESS_BOUND * seconds, min_checks);
		else
			say("  stress: timeout: %ld checks by %ds after SIGTERM, fewer than the %ld required",
			    stress.checks, STRESS_AFTER_TERM, min_checks);
		case_failed = 1;
	}
	say("result %s checks=%ld mismatches=%ld get-disagreements=%ld",
	    case_failed ? "FAIL" : "PASS", stress.checks, stress.mismatches,
	    stress.disagreements);
	return case_failed;
}
