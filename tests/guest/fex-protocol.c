// SPDX-License-Identifier: GPL-2.0
/*
 * FEX-Emu's client protocol (its SetupTSOEmulation), which trusts the
 * answer and has no way to check it: GET; if it says DEFAULT, SET(TSO);
 * if that returns 0, the CPU gives x86's TSO in hardware and FEX turns
 * its own TSO emulation off for the whole process (conclusion "tso").
 * A GET that fails or says TSO already, or a SET that fails, and FEX
 * emulates TSO itself (conclusion "fallback"). Then this program checks
 * what FEX trusts:
 *
 * - 4 threads, started after the conclusion, inherit the model and never
 *   SET: each one's GET must give what the main thread's GET gives after
 *   the conclusion. With the conclusion "tso" and the emulated Apple
 *   CPU's oracle register (qemu/), each of them and the main thread read
 *   it 2000 times, moving between CPUs: a read of 0 is "weak";
 * - a forked child execs this program again ("--exec-child"): its GET
 *   must say DEFAULT, or, if the main thread's first GET failed, fail
 *   the same way.
 *
 * Every line starts with "fex-protocol: "; the last one is
 *
 *   fex-protocol: result PASS|FAIL conclusion=tso|fallback checks=C weak=W
 *
 * FAIL if a read was weak, a thread's GET disagreed, the exec'd child did
 * not start DEFAULT, or a call failed with another errno than EINVAL (a
 * kernel that refuses gives EINVAL) or returned what no model is. Without
 * the oracle, checks=0 weak=0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "protocol.h"

#define TAG "fex-protocol: "

/* The exec'd child's exit status: what its GET gave. */
enum { CHILD_DEFAULT, CHILD_TSO, CHILD_EINVAL, CHILD_OTHER_ERROR };

struct thread {
	pthread_t t;
	int id;
	struct call get;
	struct reads reads;
};

static bool read_it;	/* the conclusion is "tso" and the oracle exists */
static int failed;

static int child_status(const struct call *c)
{
	if (c->ret < 0)
		return c->err == EINVAL ? CHILD_EINVAL : CHILD_OTHER_ERROR;
	return c->ret == PR_SET_MEM_MODEL_DEFAULT ? CHILD_DEFAULT : CHILD_TSO;
}

static void expected(const char *what, const struct call *c, int max)
{
	if (!call_expected(TAG, what, c, max))
		failed = 1;
}

static void *thread_body(void *arg)
{
	struct thread *t = arg;
	char who[16];

	t->get = call_get();
	if (read_it) {
		snprintf(who, sizeof(who), "thread %d", t->id);
		read_oracle(&t->reads, TAG, who);
	}
	return NULL;
}

/* The exec'd child: GET, as a new program starts. */
static int exec_child(void)
{
	struct call c = call_get();
	char b[64];

	say(TAG "exec'd child: GET %s", shown(&c, b, sizeof(b)));
	return child_status(&c);
}

/* Fork, exec this program, and judge what the child's GET gave. */
static void run_exec_child(const struct call *first)
{
	int want = first->ret < 0 ? child_status(first) : CHILD_DEFAULT;
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "fex-protocol", "--exec-child",
		      (char *)NULL);
		say(TAG "exec /proc/self/exe: %s", strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		failed = 1;
		say(TAG "fork or wait for the exec'd child: %s", strerror(errno));
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == want) {
		say(TAG "the exec'd child started %s, as it must",
		    want == CHILD_DEFAULT ? "DEFAULT" : "with GET failing as here");
		return;
	}
	failed = 1;
	say(TAG "the exec'd child did not start %s (exit status %d)",
	    want == CHILD_DEFAULT ? "DEFAULT" : "with GET failing as here",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(int argc, char **argv)
{
	struct thread threads[PROTO_THREADS];
	const char *conclusion = "fallback";
	struct reads total = { 0, 0 };
	char b[64], list[128] = "";
	struct call first, set, after;
	int started = 0, err;
	bool oracle;

	if (argc == 2 && !strcmp(argv[1], "--exec-child"))
		return exec_child();
	if (argc != 1) {
		fprintf(stderr, "usage: fex-protocol\n");
		return 2;
	}

	first = call_get();
	say(TAG "GET: %s", shown(&first, b, sizeof(b)));
	expected("GET", &first, PR_SET_MEM_MODEL_TSO);
	if (first.ret < 0) {
		say(TAG "conclusion fallback: GET failed: %s",
		    shown(&first, b, sizeof(b)));
	} else if (first.ret != PR_SET_MEM_MODEL_DEFAULT) {
		say(TAG "conclusion fallback: GET says %s at start",
		    first.ret == PR_SET_MEM_MODEL_TSO ? "TSO" : "no model it knows");
	} else {
		set = call_set_tso();
		say(TAG "SET(TSO): %s", shown(&set, b, sizeof(b)));
		expected("SET(TSO)", &set, 0);
		if (set.ret == 0) {
			conclusion = "tso";
			say(TAG "conclusion tso: hardware TSO, FEX's TSO emulation off");
		} else {
			say(TAG "conclusion fallback: SET(TSO) failed: %s",
			    shown(&set, b, sizeof(b)));
		}
	}
	after = call_get();
	say(TAG "GET after the conclusion: %s", shown(&after, b, sizeof(b)));
	expected("GET after the conclusion", &after, PR_SET_MEM_MODEL_TSO);

	oracle = oracle_present();
	read_it = oracle && !strcmp(conclusion, "tso");
	say(TAG "oracle: %s", !oracle ? "absent" : read_it ?
	    "present: every read must be 1" : "present, not read (no hardware TSO)");

	for (int i = 0; i < PROTO_THREADS; i++) {
		threads[i].id = i + 1;
		threads[i].reads = (struct reads){ 0, 0 };
		err = pthread_create(&threads[i].t, NULL, thread_body, &threads[i]);
		if (err) {
			failed = 1;
			say(TAG "pthread_create: %s", strerror(err));
			break;
		}
		started++;
	}
	if (read_it)
		read_oracle(&total, TAG, "main thread");
	for (int i = 0; i < started; i++) {
		size_t n = strlen(list);

		pthread_join(threads[i].t, NULL);
		snprintf(list + n, sizeof(list) - n, " %s",
			 shown(&threads[i].get, b, sizeof(b)));
		total.checks += threads[i].reads.checks;
		total.weak += threads[i].reads.weak;
		if (same_call(&threads[i].get, &after))
			continue;
		failed = 1;
		say(TAG "thread %d's GET disagrees with the main thread's",
		    threads[i].id);
	}
	say(TAG "%d threads' GET:%s (the main thread's: %s)", started, list,
	    shown(&after, b, sizeof(b)));
	if (read_it)
		say(TAG "oracle: %ld reads in %d threads, %ld weak", total.checks,
		    started + 1, total.weak);
	if (total.weak)
		failed = 1;

	run_exec_child(&first);

	say(TAG "result %s conclusion=%s checks=%ld weak=%ld",
	    failed ? "FAIL" : "PASS", conclusion, total.checks, total.weak);
	return failed;
}
