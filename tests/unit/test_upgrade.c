// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of what an upgrade in place moves descriptors with
 *
 * migio over a UNIX socket (netshim/migio.c): descriptors go with the
 * bytes, each as a mark in the stream, more of them than one message
 * carries; a mark whose descriptor did not come, and descriptors sent
 * without marks by a hostile writer, fail the stream instead of being
 * taken or leaked.  The pool the new netshim's set-up takes the old one's
 * sockets from (netshim/fdpool.c): by type, address and port, by path,
 * by kind; what is left is closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>

#include "unit.h"
#include "netshim/fdpool.h"
#include "netshim/inany.h"
#include "netshim/migio.h"

static struct migio out, in;

/**
 * same_file() - do two descriptors stand for the same open file
 * @a:		one
 * @b:		the other
 *
 * Return: true if their inodes are the same
 */
static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_ino == sb.st_ino &&
	       sa.st_dev == sb.st_dev;
}

/**
 * fd_open() - is a descriptor open
 * @fd:		descriptor
 *
 * Return: true if it is
 */
static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static void test_fds_round_trip(void **state)
{
	int sv[2], pipes[300][2], i, fd;
	uint32_t v;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* Room for all of it: written before it is read */
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &(int){ 1 << 20 },
		   sizeof(int));
	migio_init_sock(&out, sv[0]);
	for (i = 0; i < 300; i++) {
		assert_int_equal(pipe(pipes[i]), 0);
		assert_int_equal(migio_put_u32(&out, (uint32_t)i), 0);
		assert_int_equal(migio_put_fd(&out, pipes[i][0]), 0);
	}
	assert_int_equal(migio_put_u32(&out, 0xdead), 0);
	assert_int_equal(migio_flush(&out), 0);
	/* More than one message carries: several went */
	assert_int_equal(out.nfds_total, 300);

	migio_init_sock(&in, sv[1]);
	for (i = 0; i < 300; i++) {
		assert_int_equal(migio_get_u32(&in, &v), 0);
		assert_int_equal(v, (uint32_t)i);
		assert_int_equal(migio_get_fd(&in, &fd), 0);
		assert_true(fd != pipes[i][0] && same_file(fd, pipes[i][0]));
		close(fd);
		close(pipes[i][0]);
		close(pipes[i][1]);
	}
	assert_int_equal(migio_get_u32(&in, &v), 0);
	assert_int_equal(v, 0xdead);
	close(sv[0]);
	assert_true(migio_at_end(&in));
	close(sv[1]);
}

static void test_fd_mark_alone(void **state)
{
	uint8_t mark = MIGIO_FD_MARK;
	int sv[2], fd = 7;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* A writer's mark with no descriptor behind it */
	assert_int_equal(write(sv[0], &mark, 1), 1);
	migio_init_sock(&in, sv[1]);
	assert_int_equal(migio_get_fd(&in, &fd), -1);
	assert_int_equal(in.err, EPROTO);
	assert_int_equal(fd, -1);
	/* Not a socket: no descriptor can come */
	migio_init(&out, sv[0]);
	assert_int_equal(migio_put_fd(&out, 0), -1);
	assert_int_equal(out.err, EINVAL);
	close(sv[0]);
	close(sv[1]);
}

static void test_fd_without_mark(void **state)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 2)];
		struct cmsghdr align;
	} u;
	uint8_t bytes[2] = { 0x42, 0x43 };
	struct iovec iov = { bytes, sizeof(bytes) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int sv[2], p[2], fd, sent[2];
	uint8_t b;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(pipe(p), 0);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * 2);
	memcpy(CMSG_DATA(cm), p, sizeof(p));
	assert_int_equal(sendmsg(sv[0], &mh, 0), 2);

	migio_init_sock(&in, sv[1]);
	assert_int_equal(migio_get(&in, &b, 1), 0);
	assert_int_equal(b, 0x42);
	sent[0] = in.fds[0];
	sent[1] = in.fds[1];
	assert_true(fd_open(sent[0]) && fd_open(sent[1]));
	/* A byte that is no mark, where a descriptor was expected */
	assert_int_equal(migio_get_fd(&in, &fd), -1);
	assert_int_equal(in.err, EPROTO);
	/* What came and was not taken is closed, not leaked */
	migio_drop_fds(&in);
	assert_false(fd_open(sent[0]) || fd_open(sent[1]));
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

/**
 * bound() - a socket bound to 127.0.0.1, listening if a stream one
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @port:	set to its port
 *
 * Return: the socket
 */
static int bound(int type, uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr = { htonl(INADDR_LOOPBACK) } };
	socklen_t sl = sizeof(a);
	int fd = socket(AF_INET, type, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &sl), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static void test_fdpool(void **state)
{
	struct in6_addr lo = inany_from4((struct in_addr){
		htonl(INADDR_LOOPBACK) });
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	int tcp, udp, un, other, fd, left;
	uint16_t tport, uport, oport;
	char dir[] = "/tmp/netshim-fdpool-XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(su.sun_path, sizeof(su.sun_path), "%s/s", dir);
	tcp = bound(SOCK_STREAM, &tport);
	udp = bound(SOCK_DGRAM, &uport);
	other = bound(SOCK_STREAM, &oport);
	un = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(un, (struct sockaddr *)&su, sizeof(su)), 0);
	assert_int_equal(listen(un, 1), 0);

	assert_false(fdpool_on());
	assert_int_equal(fdpool_take_inet(SOCK_STREAM, &lo, tport), -1);
	assert_int_equal(fdpool_init(), 0);
	assert_true(fdpool_on());
	assert_int_equal(fdpool_put(FDPOOL_INET, tcp), 0);
	assert_int_equal(fdpool_put(FDPOOL_INET, udp), 0);
	assert_int_equal(fdpool_put(FDPOOL_UNIX, un), 0);
	assert_int_equal(fdpool_put(FDPOOL_INET, other), 0);
	/* Said to be what it is not: refused, and closed */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(fdpool_put(FDPOOL_UNIX, fd), -1);
	assert_false(fd_open(fd));

	/* By type, address and port; taken once */
	assert_int_equal(fdpool_take_inet(SOCK_DGRAM, &lo, tport), -1);
	assert_int_equal(fdpool_take_inet(SOCK_STREAM, &lo, tport), tcp);
	assert_int_equal(fdpool_take_inet(SOCK_STREAM, &lo, tport), -1);
	assert_int_equal(fdpool_take_inet(SOCK_DGRAM, &in6addr_loopback,
					  uport), -1);
	assert_int_equal(fdpool_take_inet(SOCK_DGRAM, &lo, uport), udp);
	/* A listener of any port the kernel picked (sk_lookup's) */
	assert_int_equal(fdpool_take_inet(SOCK_STREAM, &lo, 0), other);
	assert_int_equal(fdpool_take_unix("/tmp/nothing"), -1);
	assert_int_equal(fdpool_take_unix(su.sun_path), un);
	assert_int_equal(fdpool_take(FDPOOL_TAP), -1);

	/* What no room took is closed */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(fdpool_put(FDPOOL_TAP, fd), 0);
	left = (int)fdpool_drain();
	assert_int_equal(left, 1);
	assert_false(fd_open(fd));
	assert_false(fdpool_on());

	close(tcp);
	close(udp);
	close(other);
	close(un);
	unlink(su.sun_path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fds_round_trip),
		cmocka_unit_test(test_fd_mark_alone),
		cmocka_unit_test(test_fd_without_mark),
		cmocka_unit_test(test_fdpool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
