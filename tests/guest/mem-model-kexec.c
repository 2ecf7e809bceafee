// SPDX-License-Identifier: GPL-2.0
/*
 * The kexec test, for the emulated Apple CPU of qemu/ (x-apple-tso=on): no
 * TSO may outlive the kernel that set it.
 *
 *   mem-model-kexec go IMAGE INITRD
 *
 * sets TSO on a thread pinned to each online CPU and checks the oracle
 * register says so, then, from a TSO thread, loads IMAGE and INITRD with
 * kexec_file_load() and kexecs into IMAGE with the command line
 * "console=... panic=-1 mm_kexec=check", which makes the guest's init run
 *
 *   mem-model-kexec check
 *
 * in the new kernel: every present CPU must be online, and on each of them
 * the oracle must read 0 (DEFAULT) and PR_GET_MEM_MODEL must return
 * DEFAULT, or fail with EINVAL if the new kernel has no such prctl. The
 * last line is
 *
 *   mem-model-kexec: result PASS|FAIL <what>
 *
 * "go" prints a FAIL result only if it cannot kexec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mem-model.h"

#define TAG "mem-model-kexec: "
#define MAX_CPUS 64
#define LINUX_REBOOT_CMD_KEXEC 0x45584543

static int fail(const char *what)
{
	printf(TAG "result FAIL %s\n", what);
	fflush(stdout);
	return 1;
}

/* The CPUs of a sysfs list such as "0-3,5", into cpus[]; their number. */
static int read_cpu_list(const char *path, int *cpus)
{
	char buf[256], *tok, *save;
	int n = 0, a, b;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (tok = strtok_r(buf, ",\n", &save); tok;
	     tok = strtok_r(NULL, ",\n", &save)) {
		if (sscanf(tok, "%d-%d", &a, &b) != 2)
			b = a = atoi(tok);
		for (; a <= b && n < MAX_CPUS; a++)
			cpus[n++] = a;
	}
	return n;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* A thread on one CPU: TSO, seen by the oracle, then it waits there. */
struct holder {
	pthread_t thread;
	int cpu;
	volatile int state;	/* 0 running, 1 holding TSO, -1 failed */
};

static void *hold_tso(void *arg)
{
	struct holder *h = arg;

	if (pin(h->cpu) ||
	    prctl(PR_SET_MEM_MODEL, PR_SET_MEM_MODEL_TSO, 0, 0, 0) ||
	    apple_tso_oracle() != 1) {
		h->state = -1;
		return NULL;
	}
	h->state = 1;
	for (;;)
		pause();
	return NULL;
}

static int go(const char *image, const char *initrd)
{
	static struct holder holders[MAX_CPUS];
	static const char cmdline[] =
		"console=ttyAMA0 panic=-1 mm_kexec=check";
	int cpus[MAX_CPUS], n, i, kfd, ifd;
	char what[96];

	if (!apple_regs_present())
		return fail("no oracle register: not the emulated Apple CPU");
	n = read_cpu_list("/sys/devices/system/cpu/online", cpus);
	if (n < 1)
		return fail("cannot read the online CPUs");
	for (i = 0; i < n; i++) {
		holders[i].cpu = cpus[i];
		if (pthread_create(&holders[i].thread, NULL, hold_tso,
				   &holders[i]))
			return fail("pthread_create");
		while (holders[i].state == 0)
			sched_yield();
		if (holders[i].state < 0) {
			snprintf(what, sizeof(what),
				 "CPU%d: no TSO before the kexec", cpus[i]);
			return fail(what);
		}
	}
	printf(TAG "TSO set and seen on %d CPUs\n", n);

	if (prctl(PR_SET_MEM_MODEL, PR_SET_MEM_MODEL_TSO, 0, 0, 0) ||
	    prctl(PR_GET_MEM_MODEL, 0, 0, 0, 0) != PR_SET_MEM_MODEL_TSO ||
	    apple_tso_oracle() != 1)
		return fail("the kexecing thread could not set TSO");

	kfd = open(image, O_RDONLY);
	ifd = open(initrd, O_RDONLY);
	if (kfd < 0 || ifd < 0)
		return fail("cannot open the image or the initrd");
	if (syscall(SYS_kexec_file_load, kfd, ifd, sizeof(cmdline), cmdline,
		    0UL)) {
		snprintf(what, sizeof(what), "kexec_file_load: %s",
			 strerror(errno));
		return fail(what);
	}
	printf(TAG "loaded %s, kexec from a TSO thread\n", image);
	fflush(stdout);
	sync();
	reboot(LINUX_REBOOT_CMD_KEXEC);
	snprintf(what, sizeof(what), "reboot(KEXEC): %s", strerror(errno));
	return fail(what);
}

static int check(void)
{
	int online[MAX_CPUS], present[MAX_CPUS];
	int n, np, i, get, bad = 0;
	char what[96];

	if (!apple_regs_present())
		return fail("no oracle register: not the emulated Apple CPU");
	n = read_cpu_list("/sys/devices/system/cpu/online", online);
	np = read_cpu_list("/sys/devices/system/cpu/present", present);
	if (n < 1 || n != np) {
		snprintf(what, sizeof(what),
			 "%d of %d present CPUs online after the kexec", n, np);
		return fail(what);
	}
	for (i = 0; i < n; i++) {
		unsigned long o;

		if (pin(online[i])) {
			snprintf(what, sizeof(what), "cannot run on CPU%d: %s",
				 online[i], strerror(errno));
			return fail(what);
		}
		o = apple_tso_oracle();
		errno = 0;
		get = prctl(PR_GET_MEM_MODEL, 0, 0, 0, 0);
		printf(TAG "CPU%d: oracle %lu, GET %d%s%s\n", online[i], o,
		       get, get < 0 ? " " : "", get < 0 ? strerror(errno) : "");
		if (o != 0 || (get < 0 ? errno != EINVAL :
			       get != PR_SET_MEM_MODEL_DEFAULT))
			bad++;
	}
	if (bad) {
		snprintf(what, sizeof(what),
			 "%d of %d CPUs not DEFAULT after the kexec", bad, n);
		return fail(what);
	}
	printf(TAG "result PASS %d CPUs DEFAULT after the kexec\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "go"))
		return go(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "check"))
		return check();
	fprintf(stderr, "usage: mem-model-kexec go IMAGE INITRD | check\n");
	return 2;
}
