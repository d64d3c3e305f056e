// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the seccomp filter kills a process that leaves the allow-list */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "netshim/isolate.h"

/**
 * run_filtered_bpf() - run @fn in a child under the filter, return its status
 * @fn:		what the child does after installing the filter
 * @vhost_user:	the filter of --vhost-user
 * @bpf_maps:	the filter of --bpf auto or require
 *
 * Return: wait status of the child
 */
static int run_filtered_bpf(void (*fn)(void), bool vhost_user,
			    bool bpf_maps)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		if (isolate_seccomp(vhost_user, bpf_maps))
			_exit(100);
		fn();
		syscall(SYS_exit_group, 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/**
 * run_filtered_as() - run @fn in a child under the filter, without bpf()
 * @fn:		what the child does after installing the filter
 * @vhost_user:	the filter of --vhost-user
 *
 * Return: wait status of the child
 */
static int run_filtered_as(void (*fn)(void), bool vhost_user)
{
	return run_filtered_bpf(fn, vhost_user, false);
}

/**
 * run_filtered() - run @fn in a child under the stream mode's filter
 * @fn:		what the child does after installing the filter
 *
 * Return: wait status of the child
 */
static int run_filtered(void (*fn)(void))
{
	return run_filtered_as(fn, false);
}

static void maps_memory(void)
{
	long p = syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == -1 || syscall(SYS_munmap, p, 4096))
		syscall(SYS_exit_group, 104);
}

/* mmap() and munmap() only for vhost-user, which maps guest memory */
static void test_mmap_vhost_user_only(void **state)
{
	int st;

	(void)state;
	st = run_filtered(maps_memory);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
	st = run_filtered_as(maps_memory, true);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void makes_a_socketpair(void)
{
	int fds[2];

	syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, fds);
}

static void opens_a_file(void)
{
	syscall(SYS_openat, AT_FDCWD, "/etc/passwd", O_RDONLY);
}

static void execs(void)
{
	char *argv[] = { "/bin/true", NULL };

	syscall(SYS_execve, "/bin/true", argv, NULL);
}

static void test_socketpair_kills(void **state)
{
	int st;

	(void)state;
	/* a socket call, but not one the loop makes */
	st = run_filtered(makes_a_socketpair);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}

static void test_open_kills(void **state)
{
	int st;

	(void)state;
	st = run_filtered(opens_a_file);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}

static void test_exec_kills(void **state)
{
	int st;

	(void)state;
	st = run_filtered(execs);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}

static void asks_outq(void)
{
	int outq;

	if (syscall(SYS_ioctl, STDERR_FILENO, SIOCOUTQ, &outq) < 0 &&
	    errno == ENOSYS)
		syscall(SYS_exit_group, 103);
}

static void asks_terminal_size(void)
{
	struct winsize ws;

	syscall(SYS_ioctl, STDERR_FILENO, TIOCGWINSZ, &ws);
}

/* ioctl() passes the filter for SIOCOUTQ only */
static void test_ioctl_outq_only(void **state)
{
	int st;

	(void)state;
	st = run_filtered(asks_outq);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	st = run_filtered(asks_terminal_size);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}

static void asks_inq(void)
{
	int inq;

	if (syscall(SYS_ioctl, STDERR_FILENO, SIOCINQ, &inq) < 0 &&
	    errno == ENOSYS)
		syscall(SYS_exit_group, 103);
}

/* SIOCINQ passes too: the sockmap path checks a receive queue is empty */
static void test_ioctl_inq(void **state)
{
	int st;

	(void)state;
	st = run_filtered(asks_inq);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void looks_up_map(void)
{
	union bpf_attr a;

	/* No such map: EBADF from the kernel, not a kill from the filter */
	memset(&a, 0, sizeof(a));
	a.map_fd = (unsigned int)-1;
	syscall(SYS_bpf, BPF_MAP_LOOKUP_ELEM, &a, sizeof(a));
	syscall(SYS_bpf, BPF_MAP_UPDATE_ELEM, &a, sizeof(a));
	syscall(SYS_bpf, BPF_MAP_DELETE_ELEM, &a, sizeof(a));
}

static void loads_program(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
}

static void creates_map(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
}

/* bpf() with --bpf auto|require: map element commands only; never with
 * --bpf off
 */
static void test_bpf_map_commands_only(void **state)
{
	int st;

	(void)state;
	st = run_filtered_bpf(looks_up_map, false, true);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	st = run_filtered_bpf(loads_program, false, true);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
	st = run_filtered_bpf(creates_map, true, true);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
	st = run_filtered(looks_up_map);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}

/* Without namespaces: a removed empty directory as root */
static void test_chroot_empty(void **state)
{
	int st, fd;
	pid_t pid;

	(void)state;
	if (geteuid())
		skip();
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (isolate_chroot())
			_exit(1);
		if (open("/etc/passwd", O_RDONLY) >= 0 || errno != ENOENT)
			_exit(2);
		fd = open("/new", O_WRONLY | O_CREAT, 0600);
		if (fd >= 0 || errno != ENOENT)
			_exit(3);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void writes_only(void)
{
	char b = 'x';

	if (syscall(SYS_write, STDERR_FILENO, &b, 0) < 0)
		syscall(SYS_exit_group, 102);
}

static void test_write_and_exit_allowed(void **state)
{
	int st;

	(void)state;
	st = run_filtered(writes_only);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_and_exit_allowed),
		cmocka_unit_test(test_socketpair_kills),
		cmocka_unit_test(test_open_kills),
		cmocka_unit_test(test_exec_kills),
		cmocka_unit_test(test_ioctl_outq_only),
		cmocka_unit_test(test_ioctl_inq),
		cmocka_unit_test(test_bpf_map_commands_only),
		cmocka_unit_test(test_mmap_vhost_user_only),
		cmocka_unit_test(test_chroot_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
