// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - local flows joined with splice(), on real loopback sockets
 *
 * What a user of a forwarded local port expects from a plain TCP proxy:
 * every byte arrives, in order, both ways at once; one side's FIN reaches
 * the other while the other direction goes on (half-close); a reset
 * reaches the other side as a reset; a receiver that stops reading stops
 * the sender (the proxy does not buffer without bound); a target that
 * refuses the connection makes the client's connection reset.
 */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "netshim/ctx.h"
#include "tcp/splice.h"

static struct ctx ctx;

/**
 * setup() - an event loop and a pipe pool for four pairs
 * @state:	unused
 *
 * Return: 0
 */
static int setup(void **state)
{
	(void)state;
	if (!ctx.epfd) {
		/* The splice path itself: the sockmap one is tested end to end
		 * (tests/integration/t_netns_splice.sh with --bpf require)
		 */
		ctx.conf.bpf = CONF_BPF_OFF;
		ctx.epfd = epoll_create1(EPOLL_CLOEXEC);
		assert_true(ctx.epfd >= 0);
		assert_int_equal(splice_init(&ctx, 4), 0);
	}
	return 0;
}

/**
 * pump() - one turn of the event loop
 * @ms:		longest wait
 */
static void pump(int ms)
{
	struct epoll_event ev[16];
	int n, i;

	n = epoll_wait(ctx.epfd, ev, 16, ms);
	for (i = 0; i < n; i++) {
		assert_int_equal(ev[i].data.u64 >> 32, EPREF_SPLICE);
		splice_ready(&ctx, (uint32_t)ev[i].data.u64, ev[i].events);
	}
}

/**
 * listener() - a listening socket on a free port of 127.0.0.1
 * @port:	set to the port
 *
 * Return: the socket
 */
static int listener(uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &sl), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/**
 * connect_to() - a non-blocking connect to 127.0.0.1
 * @port:	port
 *
 * Return: the socket, connecting or connected
 */
static int connect_to(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	assert_true(fd >= 0);
	assert_true(!connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
		    errno == EINPROGRESS);
	return fd;
}

/**
 * joined() - a client and a server with netshim's pair in between
 * @cl:		set to the client's socket (non-blocking)
 * @srv:	set to the server's socket (non-blocking)
 */
static void joined(int *cl, int *srv)
{
	uint16_t p1, p2;
	int l1 = listener(&p1), l2 = listener(&p2), a, b;

	*cl = connect_to(p1);
	a = accept4(l1, NULL, NULL, SOCK_NONBLOCK);
	assert_true(a >= 0);
	b = connect_to(p2);
	assert_int_equal(splice_join(&ctx, a, b, true), 0);
	*srv = accept4(l2, NULL, NULL, SOCK_NONBLOCK);
	assert_true(*srv >= 0);
	close(l1);
	close(l2);
}

/**
 * pattern() - the byte at an offset of a test stream
 * @seed:	stream
 * @off:	offset
 *
 * Return: the byte
 */
static uint8_t pattern(unsigned int seed, size_t off)
{
	uint64_t x = (off / 8 + 1) * 0x9e3779b97f4a7c15ULL ^ seed;

	x ^= x >> 29;
	return (uint8_t)(x >> ((off % 8) * 8));
}

/**
 * send_some() - write the next bytes of a stream, as many as go
 * @fd:		socket
 * @seed:	stream
 * @off:	bytes sent so far, advanced
 * @total:	stream length
 */
static void send_some(int fd, unsigned int seed, size_t *off, size_t total)
{
	uint8_t buf[65536];
	size_t i, len = total - *off > sizeof(buf) ? sizeof(buf) :
						      total - *off;
	ssize_t n;

	for (i = 0; i < len; i++)
		buf[i] = pattern(seed, *off + i);
	n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n > 0)
		*off += (size_t)n;
}

/**
 * recv_some() - read what arrived, checking every byte
 * @fd:		socket
 * @seed:	stream
 * @off:	bytes received so far, advanced
 *
 * Return: what recv() returned
 */
static ssize_t recv_some(int fd, unsigned int seed, size_t *off)
{
	uint8_t buf[65536];
	ssize_t n, i;

	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	for (i = 0; i < n; i++)
		if (buf[i] != pattern(seed, *off + i))
			fail_msg("byte %zu of stream %u differs", *off + i,
				 seed);
	if (n > 0)
		*off += (size_t)n;
	return n;
}

static void test_both_ways_at_once(void **state)
{
	size_t total = 16 << 20, s1 = 0, r1 = 0, s2 = 0, r2 = 0;
	int cl, srv, i;

	(void)state;
	joined(&cl, &srv);
	for (i = 0; i < 100000 && (r1 < total || r2 < total); i++) {
		send_some(cl, 1, &s1, total);
		send_some(srv, 2, &s2, total);
		pump(10);
		recv_some(srv, 1, &r1);
		recv_some(cl, 2, &r2);
	}
	assert_int_equal(r1, total);
	assert_int_equal(r2, total);
	close(cl);
	close(srv);
	for (i = 0; i < 100 && splice_count(&ctx); i++)
		pump(10);
	assert_int_equal(splice_count(&ctx), 0);
}

static void test_half_close(void **state)
{
	size_t off = 0, got = 0;
	char buf[16];
	ssize_t n = -1;
	int cl, srv, i;

	(void)state;
	joined(&cl, &srv);
	send_some(cl, 3, &off, 1000);
	assert_int_equal(shutdown(cl, SHUT_WR), 0);
	/* The server sees the data, then end of stream */
	for (i = 0; i < 200 && n; i++) {
		pump(10);
		n = recv_some(srv, 3, &got);
	}
	assert_int_equal(got, 1000);
	assert_int_equal(n, 0);
	/* ...and can still answer, the other direction being open */
	assert_int_equal(send(srv, "late", 4, 0), 4);
	for (i = 0, n = -1; i < 200 && n < 0; i++) {
		pump(10);
		n = recv(cl, buf, sizeof(buf), MSG_DONTWAIT);
	}
	assert_int_equal(n, 4);
	assert_memory_equal(buf, "late", 4);
	assert_int_equal(splice_count(&ctx), 1);
	close(srv);
	for (i = 0, n = -1; i < 200 && n < 0; i++) {
		pump(10);
		n = recv(cl, buf, sizeof(buf), MSG_DONTWAIT);
	}
	assert_int_equal(n, 0);
	for (i = 0; i < 100 && splice_count(&ctx); i++)
		pump(10);
	assert_int_equal(splice_count(&ctx), 0);
	close(cl);
}

static void test_reset_reaches_the_other_side(void **state)
{
	struct linger l = { 1, 0 };
	char buf[16];
	ssize_t n = -1;
	int cl, srv, i;

	(void)state;
	joined(&cl, &srv);
	pump(10);
	assert_int_equal(setsockopt(cl, SOL_SOCKET, SO_LINGER, &l, sizeof(l)),
			 0);
	close(cl);
	errno = EAGAIN;
	for (i = 0; i < 200 && n < 0 && errno == EAGAIN; i++) {
		pump(10);
		n = recv(srv, buf, sizeof(buf), MSG_DONTWAIT);
	}
	assert_int_equal(n, -1);
	assert_int_equal(errno, ECONNRESET);
	assert_int_equal(splice_count(&ctx), 0);
	close(srv);
}

static void test_back_pressure(void **state)
{
	size_t total = 256 << 20, sent = 0, got = 0;
	int cl, srv, i;

	(void)state;
	joined(&cl, &srv);
	/* The server reads nothing: the client must be stopped once the
	 * socket buffers on the way and one pipe are full (the kernel grows
	 * the buffers for a while: a bound, not an exact figure)
	 */
	for (i = 0; i < 2000; i++) {
		send_some(cl, 4, &sent, total);
		pump(1);
	}
	assert_true(sent < 64 << 20);
	/* Once it reads, everything flows, intact */
	for (i = 0; i < 100000 && got < sent; i++) {
		pump(1);
		recv_some(srv, 4, &got);
	}
	assert_int_equal(got, sent);
	close(cl);
	close(srv);
	for (i = 0; i < 100 && splice_count(&ctx); i++)
		pump(10);
	assert_int_equal(splice_count(&ctx), 0);
}

static void test_refused_target(void **state)
{
	uint16_t p1, p2;
	int l1 = listener(&p1), l2 = listener(&p2), cl, a, i;
	char buf[4];
	ssize_t n = -1;

	(void)state;
	close(l2);		/* nothing listens there any more */
	cl = connect_to(p1);
	a = accept4(l1, NULL, NULL, SOCK_NONBLOCK);
	assert_true(a >= 0);
	assert_int_equal(splice_join(&ctx, a, connect_to(p2), true), 0);
	errno = EAGAIN;
	for (i = 0; i < 200 && n < 0 && errno == EAGAIN; i++) {
		pump(10);
		n = recv(cl, buf, sizeof(buf), MSG_DONTWAIT);
	}
	assert_int_equal(n, -1);
	assert_int_equal(errno, ECONNRESET);
	assert_int_equal(splice_count(&ctx), 0);
	close(cl);
	close(l1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_both_ways_at_once, setup),
		cmocka_unit_test_setup(test_half_close, setup),
		cmocka_unit_test_setup(test_reset_reaches_the_other_side,
				       setup),
		cmocka_unit_test_setup(test_back_pressure, setup),
		cmocka_unit_test_setup(test_refused_target, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
