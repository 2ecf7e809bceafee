// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the test guest: mount the pseudo file systems, run the
 * mem-model probe, the benchmark if the kernel command line asks for it
 * (mm_bench=ROUNDS; on a KVM host, its vCPU exits first), the two client
 * protocols that trust the probe's answer (fex-protocol,
 * rosetta-protocol), the oracle test if asked for (mm_oracle=SECONDS,
 * mm_oracle_min=CHECKS, mm_oracle_mode=none|floor), and the kselftest
 * collections it names (mm_tests=a,b; a test alone as COLLECTION:TEST,
 * mm_tests=a,kvm:arm64/hypercalls), print KTAP on the console, power
 * off (x86_64: reset). mm_kexec=go kexecs into /kexec/Image
 * (tests/guest/mem-model-kexec.c), whose init then runs with
 * mm_kexec=check. mm_settle=SECONDS waits that long after the start line,
 * before anything else runs. mm_pin=N pins PID 1 to CPU N before it runs
 * anything, so that every program it starts runs there too (it inherits
 * the affinity); a pin that fails prints an error line, and the rest runs
 * unpinned.
 *
 * mm_vm=FLAGS makes this kernel a KVM host: it boots /vm/Image with
 * /vm/initramfs.cpio as a guest with tests/guest/mem-model-vmm.c, given
 * FLAGS ('+' for a space); once the guest's programs start, the oracle
 * test, if asked for, runs its stress here on the host, niced, until the
 * guest has powered off. The guest's
 * init gets mm_vm_tests, mm_vm_oracle, mm_vm_oracle_min,
 * mm_vm_oracle_mode and mm_vm_bench as its mm_tests, mm_oracle,
 * mm_oracle_min, mm_oracle_mode and mm_bench; mm_vm_cmdline=NAME=VALUE adds one parameter of the
 * guest's own (the VMM's declaration arm64.mem_model=tso for a whole-TSO VM).
 * The guest's console lines start with "guest: ".
 * mm_vm_before=RUNS runs the VMM before that, once for each of RUNS
 * (',' between runs, '+' for a space), and prints each run's exit
 * status; mm_vm=none boots no guest after them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
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

static pid_t start(char *const argv[], int niceness)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (niceness && nice(niceness) < 0)
			printf("init: nice: %s\n", strerror(errno));
		execv(argv[0], argv);
		printf("init: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int finish(pid_t pid)
{
	int status;

	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int run(char *const argv[])
{
	return finish(start(argv, 0));
}

/* mm_pin=N: PID 1, and so every program it starts, on CPU N alone. */
static void pin(const char *arg)
{
	cpu_set_t set;
	char *end;
	long cpu;

	cpu = strtol(arg, &end, 10);
	if (!*arg || *end || cpu < 0 || cpu >= CPU_SETSIZE) {
		printf("init: ERROR: mm_pin=%s is no CPU number: NOT pinned\n", arg);
		return;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		printf("init: ERROR: mm_pin=%s: sched_setaffinity(CPU%ld): %s: NOT pinned\n",
		       arg, cpu, strerror(errno));
		return;
	}
	printf("mem-model-harness: mm_pin: PID 1 and all it starts run on CPU%ld alone\n",
	       cpu);
}

/* Append " NAME=VALUE" to the guest's command line if VALUE is set. */
static void guest_param(char *cmd, size_t size, const char *name,
			const char *env)
{
	const char *val = getenv(env);
	size_t n = strlen(cmd);

	if (val)
		snprintf(cmd + n, size - n, " %s=%s", name, val);
}

/* Split FLAGS ('+' for a space) into ARGV after ARGC, up to MAX. */
static int vmm_args(char *flags, char **argv, int argc, int max)
{
	char *save, *tok;

	for (tok = strtok_r(flags, "+", &save); tok && argc < max;
	     tok = strtok_r(NULL, "+", &save))
		if (strcmp(tok, "default"))
			argv[argc++] = tok;
	return argc;
}

/*
 * The VM cells' runs of the VMM before the guest (save, restore, the
 * opt-ins a host must refuse): each with the guest's Image and
 * initramfs, its output passed through; the harness judges the exit
 * status.
 */
static void run_vmm_before(char *runs)
{
	char *save, *run_flags;

	for (run_flags = strtok_r(runs, ",", &save); run_flags;
	     run_flags = strtok_r(NULL, ",", &save)) {
		char *argv[32] = { "/usr/bin/mem-model-vmm" };
		char shown[256];
		int argc, rc;

		snprintf(shown, sizeof(shown), "%s", run_flags);
		argc = vmm_args(run_flags, argv, 1, 28);
		argv[argc++] = "/vm/Image";
		argv[argc++] = "/vm/initramfs.cpio";
		argv[argc] = NULL;
		rc = run(argv);
		printf("mem-model-harness: vmm run %s exit %d\n", shown, rc);
	}
}

/*
 * The VM cells: boot the guest with the VMM, FLAGS its options ('+' for
 * a space). The VMM's output passes through here, line by line: once the
 * guest's programs start, the host's oracle stress, if asked for, starts
 * too, and runs until the guest is done. The guest boots on an idle
 * host, as the boot-time self-tests of a debug kernel expect.
 */
static void run_vm(char *flags, const char *oracle_min)
{
	/*
	 * The guest kernel prints warnings and worse only: each character
	 * it prints is an exit to the VMM.
	 */
	static char cmd[512] = "console=ttyAMA0 panic=-1 loglevel=5";
	char *argv[32] = { "/usr/bin/mem-model-vmm" };
	int argc = 1, rc, fds[2];
	pid_t oracle = -1, vmm;
	char line[1024];
	FILE *out;

	guest_param(cmd, sizeof(cmd), "mm_tests", "mm_vm_tests");
	guest_param(cmd, sizeof(cmd), "mm_oracle", "mm_vm_oracle");
	guest_param(cmd, sizeof(cmd), "mm_oracle_min", "mm_vm_oracle_min");
	guest_param(cmd, sizeof(cmd), "mm_oracle_mode", "mm_vm_oracle_mode");
	guest_param(cmd, sizeof(cmd), "mm_bench", "mm_vm_bench");
	/* mm_vm_cmdline=NAME=VALUE: one more parameter, as it is. */
	if (getenv("mm_vm_cmdline"))
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s",
			 getenv("mm_vm_cmdline"));
	argc = vmm_args(flags, argv, argc, 26);
	argv[argc++] = "--cmdline";
	argv[argc++] = cmd;
	argv[argc++] = "/vm/Image";
	argv[argc++] = "/vm/initramfs.cpio";
	argv[argc] = NULL;

	if (pipe(fds)) {
		printf("init: pipe: %s\n", strerror(errno));
		return;
	}
	fflush(stdout);
	vmm = fork();
	if (vmm == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		execv(argv[0], argv);
		printf("init: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	out = fdopen(fds[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		fputs(line, stdout);
		fflush(stdout);
		/*
		 * Niced, so that its threads take the CPUs only when the
		 * vCPU threads leave them: they still interleave with the
		 * vCPUs on every CPU, and the guest does not crawl.
		 */
		if (oracle_min && oracle < 0 &&
		    !strcmp(line, "guest: mem-model-harness: start\n"))
			oracle = start((char *[]){ "/usr/bin/mem-model-oracle",
						   "0", (char *)oracle_min,
						   NULL }, 10);
	}
	if (out)
		fclose(out);
	rc = finish(vmm);
	printf("mem-model-harness: vmm exit %d\n", rc);
	if (oracle > 0) {
		kill(oracle, SIGTERM);
		finish(oracle);
	} else if (oracle_min) {
		printf("mem-model-harness: the guest's programs never started: no host oracle\n");
	}
}

int main(void)
{
	char *tests = getenv("mm_tests");
	char *oracle = getenv("mm_oracle");
	char *oracle_min = getenv("mm_oracle_min");
	char *bench = getenv("mm_bench");
	char *kexec = getenv("mm_kexec");
	char *mode = getenv("mm_oracle_mode");
	char *vm = getenv("mm_vm");
	char *vm_before = getenv("mm_vm_before");
	char *settle = getenv("mm_settle");
	char *pin_cpu = getenv("mm_pin");
	char *argv[64] = { "/bin/sh", "/kselftest/run_kselftest.sh" };
	int argc = 2, fd;
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
	/*
	 * A second UART is the programs' own (the VM cells' VMM gives the
	 * nested guest one): their lines then never mix with the kernel's.
	 */
	fd = open("/dev/ttyAMA1", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	/* Before anything runs: whatever it starts inherits the affinity. */
	if (pin_cpu)
		pin(pin_cpu);
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
	/* mm_settle=SECONDS: the harness changes how QEMU runs meanwhile. */
	if (settle) {
		fflush(stdout);
		sleep(atoi(settle));
	}
	run((char *[]){ "/usr/bin/mem-model-probe", NULL });
	/*
	 * The benchmark comes before every other program: threads that sleep
	 * and yield, as the protocols' do, leave the kernel in a state where
	 * every later context switch costs about 100 instructions more, on
	 * the base kernel as on the series. A KVM host (a kernel at EL2 with
	 * KVM) measures its vCPUs' exits too.
	 */
	if (bench && !access("/dev/kvm", F_OK))
		run((char *[]){ "/usr/bin/mem-model-vm-bench", bench, NULL });
	if (bench)
		run((char *[]){ "/usr/bin/mem-model-bench", bench, NULL });
	/* Two programs that trust the probe's answer, as their clients do. */
	run((char *[]){ "/usr/bin/fex-protocol", NULL });
	run((char *[]){ "/usr/bin/rosetta-protocol", NULL });
	if (vm_before)
		run_vmm_before(vm_before);
	/* The harness gives both or neither: its cell parser has the defaults. */
	if (oracle && !oracle_min) {
		printf("mem-model-harness: mm_oracle without mm_oracle_min: no oracle test\n");
		oracle = NULL;
	}
	if (vm && strcmp(vm, "none"))
		run_vm(vm, oracle ? oracle_min : NULL);
	else if (oracle && !vm)
		run((char *[]){ "/usr/bin/mem-model-oracle", oracle,
				oracle_min, mode, NULL });
	if (kexec && !strcmp(kexec, "go"))
		run((char *[]){ "/usr/bin/mem-model-kexec", "go",
				"/kexec/Image", "/kexec/initramfs.cpio", NULL });
	else if (kexec)
		run((char *[]){ "/usr/bin/mem-model-kexec", "check", NULL });

	if (tests) {
		for (tok = strtok(tests, ","); tok && argc < 62;
		     tok = strtok(NULL, ",")) {
			argv[argc++] = strchr(tok, ':') ? "-t" : "-c";
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
