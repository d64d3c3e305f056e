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

/**
 * send_fds() - send one byte and descriptors of /dev/null over a socket
 * @s:		socket
 * @n:		how many descriptors
 */
static void send_fds(int s, int n)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { "x", 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = CMSG_SPACE(sizeof(int) * n) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int i, fd;

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
	for (i = 0; i < n; i++) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		memcpy(CMSG_DATA(cm) + i * sizeof(int), &fd, sizeof(int));
	}
	assert_int_equal(sendmsg(s, &mh, 0), 1);
	for (i = 0; i < n; i++) {
		memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
		close(fd);
	}
}

/**
 * recv_take() - receive one message and take its descriptors
 * @s:		socket
 * @fds:	array
 * @n:		descriptors in it, updated
 * @max:	room in it
 *
 * Return: what unix_fds_take() returned
 */
static int recv_take(int s, int *fds, unsigned int *n, unsigned int max)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} u;
	char b;
	struct iovec iov = { &b, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };

	assert_int_equal(recvmsg(s, &mh, MSG_CMSG_CLOEXEC), 1);
	return unix_fds_take(&mh, fds, n, max);
}

/* Descriptors appended while they fit; past the room, closed and refused */
static void test_fds_take(void **state)
{
	unsigned int n = 0, i;
	int sv[2], fds[4];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	send_fds(sv[0], 3);
	assert_int_equal(recv_take(sv[1], fds, &n, 4), 0);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++)
		assert_true(fcntl(fds[i], F_GETFD) >= 0);

	send_fds(sv[0], 2);
	errno = 0;
	assert_int_equal(recv_take(sv[1], fds, &n, 4), -1);
	assert_int_equal(errno, EPROTO);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++)
		close(fds[i]);

	/* A message with no descriptors takes none */
	assert_int_equal(write(sv[0], "y", 1), 1);
	n = 0;
	assert_int_equal(recv_take(sv[1], fds, &n, 4), 0);
	assert_int_equal(n, 0);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect_at),
		cmocka_unit_test(test_fds_take),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
