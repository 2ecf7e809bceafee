// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the test guest: mount the pseudo file systems, run the
 * mem-model probe, the oracle test if the kernel command line asks for it
 * (mm_oracle=SECONDS, mm_oracle_min=CHECKS), the benchmark if it asks for
 * that (mm_bench=ROUNDS), and the kselftest collections it names
 * (mm_tests=a,b), print KTAP on the console, power off (x86_64: reset).
 * mm_kexec=go kexecs into /kexec/Image (tests/guest/mem-model-kexec.c),
 * whose init then runs with mm_kexec=check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void mnt(const char *src, const char *dst, const char *type)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, NULL) && errno != EBUSY)
		printf("init: mount %s on %s: %s\n", type, dst, strerror(errno));
}

static int run(char *const argv[])
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(argv[0], argv);
		printf("init: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int main(void)
{
	char *tests = getenv("mm_tests");
	char *oracle = getenv("mm_oracle");
	char *oracle_min = getenv("mm_oracle_min");
	char *bench = getenv("mm_bench");
	char *kexec = getenv("mm_kexec");
	char *argv[64] = { "/bin/sh", "/kselftest/run_kselftest.sh" };
	int argc = 2;
	char *tok;

	mnt("proc", "/proc", "proc");
	mnt("sysfs", "/sys", "sysfs");
	mnt("devtmpfs", "/dev", "devtmpfs");
	mnt("tmpfs", "/tmp", "tmpfs");
	/* devtmpfs has no such links; the kselftest runner writes to them. */
	symlink("/proc/self/fd", "/dev/fd");
	symlink("/proc/self/fd/0", "/dev/stdin");
	symlink("/proc/self/fd/1", "/dev/stdout");
	symlink("/proc/self/fd/2", "/dev/stderr");
	setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
	setenv("HOME", "/", 1);
	run((char *[]){ "/bin/busybox", "--install", "-s", NULL });
	/*
	 * The kselftest runner calls /usr/bin/timeout --foreground when it
	 * exists, which busybox's timeout does not take. Without it the
	 * runner runs each test unbounded; the cell's boot timeout still
	 * bounds the whole run.
	 */
	unlink("/usr/bin/timeout");

	printf("mem-model-harness: start\n");
	run((char *[]){ "/usr/bin/mem-model-probe", NULL });
	if (oracle)
		run((char *[]){ "/usr/bin/mem-model-oracle", oracle,
				oracle_min ? oracle_min : "100000", NULL });
	if (bench)
		run((char *[]){ "/usr/bin/mem-model-bench", bench, NULL });
	if (kexec && !strcmp(kexec, "go"))
		run((char *[]){ "/usr/bin/mem-model-kexec", "go",
				"/kexec/Image", "/kexec/initramfs.cpio", NULL });
	else if (kexec)
		run((char *[]){ "/usr/bin/mem-model-kexec", "check", NULL });

	if (tests) {
		for (tok = strtok(tests, ","); tok && argc < 62;
		     tok = strtok(NULL, ",")) {
			argv[argc++] = "-c";
			argv[argc++] = tok;
		}
		argv[argc] = NULL;
		run(argv);
	}

	printf("mem-model-harness: done\n");
	fflush(stdout);
	sync();
#ifdef __x86_64__
	/*
	 * The small x86_64 kernel has no ACPI to power off with; QEMU's
	 * -no-reboot turns the reset into an exit.
	 */
	reboot(RB_AUTOBOOT);
#else
	reboot(RB_POWER_OFF);
#endif
	return 0;
}
