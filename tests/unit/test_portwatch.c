// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests for the listener watch of -t/-u/-T/-U auto
 *
 * What a user expects from "auto" (pasta's behaviour): a port is forwarded
 * while something listens on it on the far side and released when that
 * stops; a port we hold for the other direction is never taken; TCP lists
 * listening sockets only, UDP bound sockets that are not connected.
 */
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "net/portwatch.h"

static struct portset cur, seen, skip;

/**
 * sets_clear() - empty the three sets before each test
 * @state:	unused
 *
 * Return: 0
 */
static int sets_clear(void **state)
{
	(void)state;
	memset(&cur, 0, sizeof(cur));
	memset(&seen, 0, sizeof(seen));
	memset(&skip, 0, sizeof(skip));
	return 0;
}

/**
 * changes() - list every change as "+port" or "-port", space separated
 * @buf:	output
 * @size:	its size
 *
 * Return: @buf
 */
static const char *changes(char *buf, size_t size)
{
	unsigned int from = 0;
	size_t len = 0;
	bool bind;
	int p;

	buf[0] = 0;
	while ((p = portwatch_next_change(&cur, &seen, &skip, from,
					  &bind)) >= 0) {
		len += snprintf(buf + len, size - len, "%s%c%d",
				len ? " " : "", bind ? '+' : '-', p);
		assert_true(len < size);
		from = (unsigned int)p + 1;
	}
	return buf;
}

static void test_nothing_changes(void **state)
{
	char b[256];

	(void)state;
	assert_string_equal(changes(b, sizeof(b)), "");
	portset_add(&cur, 80);
	portset_add(&seen, 80);
	assert_string_equal(changes(b, sizeof(b)), "");
}

static void test_appear_and_go(void **state)
{
	char b[256];

	(void)state;
	portset_add(&seen, 8080);
	portset_add(&seen, 22);
	portset_add(&cur, 53);
	portset_add(&cur, 22);
	/* 22 stays, 53 went away, 8080 came */
	assert_string_equal(changes(b, sizeof(b)), "-53 +8080");
}

static void test_edges(void **state)
{
	char b[256];

	(void)state;
	portset_add(&seen, 1);
	portset_add(&seen, 63);
	portset_add(&seen, 64);
	portset_add(&seen, 65535);
	portset_add(&cur, 127);
	portset_add(&cur, 128);
	assert_string_equal(changes(b, sizeof(b)),
			    "+1 +63 +64 -127 -128 +65535");
}

static void test_skip_own_other_direction(void **state)
{
	char b[256];

	(void)state;
	/* our own -T listener on 5000 shows up in the scan of the pod */
	portset_add(&seen, 5000);
	portset_add(&skip, 5000);
	portset_add(&seen, 5001);
	assert_string_equal(changes(b, sizeof(b)), "+5001");
	/* and one we forward that became ours the other way is released */
	portset_add(&cur, 5000);
	portset_add(&cur, 5001);
	assert_string_equal(changes(b, sizeof(b)), "-5000");
}

static void test_from_inside_a_word(void **state)
{
	bool bind = false;

	(void)state;
	portset_add(&seen, 70);
	portset_add(&seen, 75);
	assert_int_equal(portwatch_next_change(&cur, &seen, &skip, 71, &bind),
			 75);
	assert_true(bind);
	assert_int_equal(portwatch_next_change(&cur, &seen, &skip, 76, &bind),
			 -1);
	assert_int_equal(portwatch_next_change(&cur, &seen, &skip, 65536,
					       &bind), -1);
}

/**
 * bound_socket() - a socket bound to a free port of the loopback
 * @type:	SOCK_STREAM (then listening) or SOCK_DGRAM
 * @v6:		::1 rather than 127.0.0.1
 * @port:	set to the port the kernel chose
 *
 * Return: the socket
 */
static int bound_socket(int type, bool v6, uint16_t *port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr *sa = v6 ? (struct sockaddr *)&a6 :
				   (struct sockaddr *)&a4;
	socklen_t sl = v6 ? sizeof(a6) : sizeof(a4);
	int fd = socket(v6 ? AF_INET6 : AF_INET, type, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, sa, sl), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, sa, &sl), 0);
	*port = ntohs(v6 ? a6.sin6_port : a4.sin_port);
	return fd;
}

static void test_scan_sees_listeners(void **state)
{
	struct portwatch pw;
	uint16_t t4, t6, u4, u6;
	int ft4, ft6, fu4, fu6;

	(void)state;
	assert_int_equal(portwatch_open(&pw), 0);
	ft4 = bound_socket(SOCK_STREAM, false, &t4);
	ft6 = bound_socket(SOCK_STREAM, true, &t6);
	fu4 = bound_socket(SOCK_DGRAM, false, &u4);
	fu6 = bound_socket(SOCK_DGRAM, true, &u6);

	assert_int_equal(portwatch_scan(&pw, IPPROTO_TCP, false, &seen), 0);
	assert_true(portset_has(&seen, t4));
	assert_true(portset_has(&seen, t6));
	assert_int_equal(portwatch_scan(&pw, IPPROTO_UDP, false, &skip), 0);
	assert_true(portset_has(&skip, u4));
	assert_true(portset_has(&skip, u6));

	/* Over the tap, only listeners on other addresses are reachable */
	assert_int_equal(portwatch_scan(&pw, IPPROTO_TCP, true, &cur), 0);
	assert_false(portset_has(&cur, t4));
	assert_false(portset_has(&cur, t6));
	assert_int_equal(portwatch_scan(&pw, IPPROTO_UDP, true, &cur), 0);
	assert_false(portset_has(&cur, u4));
	assert_false(portset_has(&cur, u6));

	close(ft4);
	close(fu6);
	assert_int_equal(portwatch_scan(&pw, IPPROTO_TCP, false, &seen), 0);
	assert_false(portset_has(&seen, t4));
	assert_true(portset_has(&seen, t6));
	assert_int_equal(portwatch_scan(&pw, IPPROTO_UDP, false, &skip), 0);
	assert_true(portset_has(&skip, u4));
	assert_false(portset_has(&skip, u6));
	close(ft6);
	close(fu4);
	close(pw.fd);
}

static void test_scan_any_address(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t sl = sizeof(a);
	struct portwatch pw;
	int fd;

	(void)state;
	assert_int_equal(portwatch_open(&pw), 0);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &sl), 0);
	/* 0.0.0.0 is reachable over the tap: kept either way */
	assert_int_equal(portwatch_scan(&pw, IPPROTO_TCP, true, &seen), 0);
	assert_true(portset_has(&seen, ntohs(a.sin_port)));
	close(fd);
	close(pw.fd);
}

static void test_scan_skips_non_listeners(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in l = a;
	socklen_t sl = sizeof(l);
	struct portwatch pw;
	uint16_t lport, uport;
	int lfd, cfd, ufd, afd;

	(void)state;
	assert_int_equal(portwatch_open(&pw), 0);
	lfd = bound_socket(SOCK_STREAM, false, &lport);
	ufd = bound_socket(SOCK_DGRAM, false, &uport);

	/* a connected TCP client's port and a connected UDP socket are
	 * conversations, not services
	 */
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_port = htons(lport);
	assert_int_equal(connect(cfd, (struct sockaddr *)&a, sizeof(a)), 0);
	afd = accept(lfd, NULL, NULL);
	assert_true(afd >= 0);
	assert_int_equal(getsockname(cfd, (struct sockaddr *)&l, &sl), 0);
	a.sin_port = htons(9);
	assert_int_equal(connect(ufd, (struct sockaddr *)&a, sizeof(a)), 0);

	assert_int_equal(portwatch_scan(&pw, IPPROTO_TCP, false, &seen), 0);
	assert_true(portset_has(&seen, lport));
	assert_false(portset_has(&seen, ntohs(l.sin_port)));
	assert_int_equal(portwatch_scan(&pw, IPPROTO_UDP, false, &seen), 0);
	assert_false(portset_has(&seen, uport));

	close(afd);
	close(cfd);
	close(lfd);
	close(ufd);
	close(pw.fd);
}

/* Our own listeners (sk_lookup's) are not the namespace's: a scan leaves
 * them out by socket, and still sees the others
 */
static void test_scan_skips_own_socket(void **state)
{
	struct sockset own_set;
	struct portwatch pw;
	uint16_t own, other, shared;
	int fown, fother, fshared4, fshared6;
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int one = 1;

	(void)state;
	assert_int_equal(sockset_init(&own_set, 4), 0);
	assert_int_equal(portwatch_open(&pw), 0);
	pw.own = &own_set;
	fown = bound_socket(SOCK_STREAM, false, &own);
	fother = bound_socket(SOCK_STREAM, true, &other);
	assert_int_equal(sockset_add(&own_set, sock_cookie(fown)), 0);

	assert_int_equal(portwatch_scan(&pw, IPPROTO_TCP, false, &seen), 0);
	assert_false(portset_has(&seen, own));
	assert_true(portset_has(&seen, other));

	assert_int_equal(sockset_add(&own_set, sock_cookie(fother)), 0);
	assert_int_equal(portwatch_scan(&pw, IPPROTO_TCP, false, &seen), 0);
	assert_false(portset_has(&seen, other));

	/* Ours on 127.0.0.1, someone else's on ::1, same port: the port is
	 * still someone else's (a forward bound to one address, a sidecar
	 * on another)
	 */
	fshared4 = bound_socket(SOCK_STREAM, false, &shared);
	assert_int_equal(sockset_add(&own_set, sock_cookie(fshared4)), 0);
	fshared6 = socket(AF_INET6, SOCK_STREAM, 0);
	assert_true(fshared6 >= 0);
	setsockopt(fshared6, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	a6.sin6_port = htons(shared);
	assert_int_equal(bind(fshared6, (struct sockaddr *)&a6, sizeof(a6)), 0);
	assert_int_equal(listen(fshared6, 1), 0);
	assert_int_equal(portwatch_scan(&pw, IPPROTO_TCP, false, &seen), 0);
	assert_true(portset_has(&seen, shared));
	close(fshared6);
	assert_int_equal(portwatch_scan(&pw, IPPROTO_TCP, false, &seen), 0);
	assert_false(portset_has(&seen, shared));

	/* Taken out of the set, a socket is listed again */
	sockset_del(&own_set, sock_cookie(fown));
	assert_int_equal(portwatch_scan(&pw, IPPROTO_TCP, false, &seen), 0);
	assert_true(portset_has(&seen, own));
	close(fown);
	close(fother);
	close(fshared4);
	close(pw.fd);
	free(own_set.slot);
}

/* Cookies whose home slots collide, in a set that wraps around */
static void test_sockset_collisions(void **state)
{
	struct sockset s;
	uint64_t k[12];
	unsigned int i, n = 0;
	uint64_t c;

	(void)state;
	assert_int_equal(sockset_init(&s, 8), 0);
	assert_int_equal(s.mask, 15);
	/* Twelve cookies sharing two home slots, one of them the last slot,
	 * so that probes wrap around the table
	 */
	for (c = 1; n < 12 && c < 1000000; c++) {
		uint32_t h = (uint32_t)((c * 0x9e3779b97f4a7c15ULL) >> 32) &
			     s.mask;

		if (h == 15 || (h == 14 && n % 2))
			k[n++] = c;
	}
	assert_int_equal(n, 12);
	for (i = 0; i < 7; i++)
		assert_int_equal(sockset_add(&s, k[i]), 0);
	/* At most half full */
	assert_int_equal(sockset_add(&s, k[7]), -1);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(sockset_add(&s, k[0]), 0);	/* already there */
	assert_int_equal(s.n, 7);
	for (i = 0; i < 7; i++)
		assert_true(sockset_has(&s, k[i]));
	assert_false(sockset_has(&s, k[8]));
	assert_false(sockset_has(&s, 0));
	assert_int_equal(sockset_add(&s, 0), -1);

	/* Remove from the middle of the chains: the rest stays reachable */
	sockset_del(&s, k[1]);
	sockset_del(&s, k[4]);
	sockset_del(&s, k[9]);		/* not there: nothing happens */
	assert_int_equal(s.n, 5);
	for (i = 0; i < 7; i++)
		assert_int_equal(sockset_has(&s, k[i]), i != 1 && i != 4);
	sockset_del(&s, k[0]);
	for (i = 0; i < 7; i++)
		assert_int_equal(sockset_has(&s, k[i]),
				 i != 0 && i != 1 && i != 4);
	free(s.slot);
}

/* Many adds and removes against a plain list of what should be there */
static void test_sockset_churn(void **state)
{
	static bool in[4096];
	struct sockset s;
	unsigned int i, n = 0, r = 12345;

	(void)state;
	memset(in, 0, sizeof(in));
	assert_int_equal(sockset_init(&s, 1000), 0);
	for (i = 0; i < 200000; i++) {
		uint64_t c;

		r = r * 1103515245 + 12345;
		c = (r >> 8) % 4095 + 1;
		if (in[c]) {
			sockset_del(&s, c);
			in[c] = false;
			n--;
		} else if (n < 1000) {
			assert_int_equal(sockset_add(&s, c), 0);
			in[c] = true;
			n++;
		}
		if (i % 997 == 0) {
			for (c = 1; c < 4096; c++)
				assert_int_equal(sockset_has(&s, c), in[c]);
		}
	}
	assert_int_equal(s.n, n);
	free(s.slot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_nothing_changes, sets_clear),
		cmocka_unit_test_setup(test_appear_and_go, sets_clear),
		cmocka_unit_test_setup(test_edges, sets_clear),
		cmocka_unit_test_setup(test_skip_own_other_direction,
				       sets_clear),
		cmocka_unit_test_setup(test_from_inside_a_word, sets_clear),
		cmocka_unit_test_setup(test_scan_sees_listeners, sets_clear),
		cmocka_unit_test_setup(test_scan_any_address, sets_clear),
		cmocka_unit_test_setup(test_scan_skips_non_listeners,
				       sets_clear),
		cmocka_unit_test_setup(test_scan_skips_own_socket, sets_clear),
		cmocka_unit_test(test_sockset_collisions),
		cmocka_unit_test(test_sockset_churn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
