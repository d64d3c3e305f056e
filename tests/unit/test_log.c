// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the log file
 *
 * As passt's: the file starts afresh with a first line naming netshim
 * and the PID; once full it loses its oldest lines, never grows beyond
 * its limit, keeps every line whole and the newest ones, and its first
 * line says when it was cut.  After a fork, the first line names the
 * daemon's PID and keeps what was logged before.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include "unit.h"
#include "netshim/log.h"

static char path[] = "/tmp/netshim-log-XXXXXX";
static char buf[65536];

/**
 * setup() - a log file holding a line of an earlier run
 * @state:	unused
 *
 * Return: 0
 */
static int setup(void **state)
{
	int fd;

	(void)state;
	strcpy(path, "/tmp/netshim-log-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "earlier\n", 8), 8);
	close(fd);
	return 0;
}

/**
 * teardown() - back to stderr, the file removed
 * @state:	unused
 *
 * Return: 0
 */
static int teardown(void **state)
{
	(void)state;
	log_open(NULL, true, false, false);
	log_set_size(0);
	unlink(path);
	return 0;
}

/**
 * slurp() - the log file's content in buf
 *
 * Return: its length
 */
static size_t slurp(void)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
	return (size_t)n;
}

/**
 * expect_first_line() - the first line names netshim and a PID
 * @pid:	the PID
 * @cut:	whether it says the file was cut
 */
static void expect_first_line(int pid, bool cut)
{
	char want[32], *nl = strchr(buf, '\n');

	assert_non_null(nl);
	*nl = '\0';
	assert_memory_equal(buf, "netshim ", 8);
	snprintf(want, sizeof(want), " (%d)", pid);
	assert_non_null(strstr(buf, want));
	assert_int_equal(!!strstr(buf, " - log truncated at "), cut);
	*nl = '\n';
}

/* A file found is started afresh, under its first line */
static void test_fresh(void **state)
{
	(void)state;
	log_open(path, false, false, false);
	info("first message");
	slurp();
	expect_first_line(getpid(), false);
	assert_null(strstr(buf, "earlier"));
	assert_non_null(strstr(buf, "netshim: first message\n"));
}

/* Full: the oldest lines go, the newest stay, every line whole */
static void test_cut(void **state)
{
	unsigned int i, last = 0, seen = 0;
	char *line;
	size_t n;

	(void)state;
	log_open(path, false, false, false);
	log_set_size(4096);
	for (i = 0; i < 1000; i++) {
		info("message %u", i);
		assert_true(slurp() <= 4096);
	}
	n = slurp();
	assert_true(n >= 2048);
	expect_first_line(getpid(), true);
	for (line = strchr(buf, '\n') + 1; *line;
	     line = strchr(line, '\n') + 1) {
		unsigned int m;

		assert_int_equal(sscanf(strstr(line, "netshim: ") + 9,
					"message %u", &m), 1);
		if (seen)
			assert_int_equal(m, last + 1);
		last = m;
		seen++;
	}
	assert_int_equal(last, 999);
	assert_true(seen > 40);
}

/* After a fork, the daemon's PID heads what was logged before */
static void test_forked(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	log_open(path, false, false, false);
	info("before the fork");
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		log_forked();
		info("in the daemon");
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && !WEXITSTATUS(status));
	slurp();
	expect_first_line(pid, false);
	assert_non_null(strstr(buf, "netshim: before the fork\n"));
	assert_non_null(strstr(buf, "netshim: in the daemon\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fresh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forked, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
