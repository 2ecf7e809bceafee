// SPDX-License-Identifier: GPL-2.0
/*
 * Rosetta for Linux's client protocol, which trusts the answer and has no
 * way to check it: it never calls GET. Each thread calls SET(TSO) as it
 * starts; one whose call returned 0 runs its translated x86 code as if
 * the CPU gave TSO in hardware, one whose call failed falls back to
 * emulating TSO itself. This program calls SET(TSO) in its main thread,
 * then starts 4 threads that each call SET(TSO) first. The conclusion is
 * "tso" if every call returned 0, "fallback" if every call failed, and
 * "mixed" otherwise. With the emulated Apple CPU's oracle register
 * (qemu/), every thread that got 0, the main thread too, reads it 2000
 * times, moving between CPUs: a read of 0 is "weak".
 *
 * Every line starts with "rosetta-protocol: "; the last one is
 *
 *   rosetta-protocol: result PASS|FAIL conclusion=tso|fallback|mixed checks=C weak=W
 *
 * FAIL if a read was weak or a call failed with another errno than
 * EINVAL (a kernel that refuses gives EINVAL) or returned what SET never
 * does. Without the oracle, checks=0 weak=0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "protocol.h"

#define TAG "rosetta-protocol: "

struct thread {
	pthread_t t;
	int id;
	struct call set;
	struct reads reads;
};

static bool oracle;
static int failed;

/* A refusal is EINVAL; a success returns 0. */
static void expected(const char *who, const struct call *c)
{
	char what[48];

	snprintf(what, sizeof(what), "%s's SET(TSO)", who);
	if (!call_expected(TAG, what, c, 0))
		failed = 1;
}

static void *thread_body(void *arg)
{
	struct thread *t = arg;
	char who[16];

	t->set = call_set_tso();
	if (t->set.ret == 0 && oracle) {
		snprintf(who, sizeof(who), "thread %d", t->id);
		read_oracle(&t->reads, TAG, who);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct thread threads[PROTO_THREADS];
	const char *conclusion = "mixed";
	struct reads total = { 0, 0 };
	char b[64], who[16], list[128] = "";
	int started = 0, readers = 0, ok, err;
	struct call main_set;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: rosetta-protocol\n");
		return 2;
	}

	oracle = oracle_present();
	main_set = call_set_tso();
	say(TAG "main thread's SET(TSO): %s", shown(&main_set, b, sizeof(b)));
	expected("the main thread", &main_set);
	say(TAG "oracle: %s", oracle ?
	    "present: every read of a thread that got 0 must be 1" : "absent");

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
	ok = main_set.ret == 0;
	if (ok && oracle) {
		read_oracle(&total, TAG, "main thread");
		readers++;
	}
	for (int i = 0; i < started; i++) {
		size_t n = strlen(list);

		pthread_join(threads[i].t, NULL);
		snprintf(list + n, sizeof(list) - n, " %s",
			 shown(&threads[i].set, b, sizeof(b)));
		snprintf(who, sizeof(who), "thread %d", threads[i].id);
		expected(who, &threads[i].set);
		if (threads[i].set.ret == 0) {
			ok++;
			readers += oracle;
		}
		total.checks += threads[i].reads.checks;
		total.weak += threads[i].reads.weak;
	}
	say(TAG "%d threads' SET(TSO):%s", started, list);

	if (ok == started + 1) {
		conclusion = "tso";
		say(TAG "conclusion tso: every caller got hardware TSO");
	} else if (!ok) {
		conclusion = "fallback";
		say(TAG "conclusion fallback: SET(TSO) failed: %s, in all %d callers",
		    shown(&main_set, b, sizeof(b)), started + 1);
	} else {
		say(TAG "conclusion mixed: %d of %d callers got hardware TSO, the others fell back",
		    ok, started + 1);
	}
	if (readers)
		say(TAG "oracle: %ld reads in %d threads, %ld weak", total.checks,
		    readers, total.weak);
	if (total.weak)
		failed = 1;

	say(TAG "result %s conclusion=%s checks=%ld weak=%ld",
	    failed ? "FAIL" : "PASS", conclusion, total.checks, total.weak);
	return failed;
}
