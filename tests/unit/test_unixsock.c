// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of UNIX sockets at a path: connecting to one in a
 * directory held open (client mode, --connect), as the VMM's socket comes,
 * goes and comes back
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "unit.h"
#include "netshim/unixsock.h"

/**
 * listen_at() - a listening socket at @dir/@name, as a VMM makes one
 * @dir:	directory
 * @name:	socket name
 *
 * Return: the socket
 */
static int listen_at(const char *dir, const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir, name);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	return fd;
}

/* Nothing there, something listening, a socket left by a VMM gone */
static void test_connect_at(void **state)
{
	char dir[] = "/tmp/netshim-unit-XXXXXX", path[64];
	char longname[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	int dfd, ls, fd, peer, fl;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);

	errno = 0;
	assert_int_equal(unix_connect_at(dfd, "vmm.sock"), -1);
	assert_int_equal(errno, ENOENT);

	ls = listen_at(dir, "vmm.sock");
	fd = unix_connect_at(dfd, "vmm.sock");
	assert_true(fd >= 0);
	fl = fcntl(fd, F_GETFL);
	assert_true(fl & O_NONBLOCK);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	peer = accept(ls, NULL, NULL);
	assert_true(peer >= 0);
	assert_int_equal(write(peer, "x", 1), 1);
	assert_int_equal(read(fd, path, 1), 1);
	close(peer);
	close(fd);

	/* The VMM was killed: its socket stays, nothing listens */
	close(ls);
	errno = 0;
	assert_int_equal(unix_connect_at(dfd, "vmm.sock"), -1);
	assert_int_equal(errno, ECONNREFUSED);

	/* A new VMM on the same path, as QEMU does: unlink, bind */
	snprintf(path, sizeof(path), "%s/vmm.sock", dir);
	assert_int_equal(unlink(path), 0);
	ls = listen_at(dir, "vmm.sock");
	fd = unix_connect_at(dfd, "vmm.sock");
	assert_true(fd >= 0);
	close(fd);
	close(ls);
	assert_int_equal(unlink(path), 0);

	/* A name too long for an address is refused, not cut */
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	errno = 0;
	assert_int_equal(unix_connect_at(dfd, longname), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	close(dfd);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
