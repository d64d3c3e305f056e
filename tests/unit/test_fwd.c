// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests for the ports -t forwards and where they go
 *
 * What a user expects: "all" and ranges keep passt's mapping (exclusions
 * win, a mapped range keeps its offsets); "auto" for a VM is every port
 * not excluded, to the same guest port, while in namespace mode it is
 * fwd_auto.c's (the namespace's listeners), not a blanket forward; and a
 * connection accepted on a socket that takes every port (sk_lookup) goes
 * to the guest port of the port the client asked for.
 */
#include "unit.h"

#include <stdio.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "netshim/conf.h"
#include "netshim/ctx.h"
#include "net/fwd.h"
#include "netshim/fwdspec.h"

static struct ctx c;

/**
 * spec() - a fresh -t spec from command line arguments
 * @args:	NULL-terminated list of -t arguments
 */
static void spec(const char *const *args)
{
	memset(&c.conf.tcp_fwd, 0, sizeof(c.conf.tcp_fwd));
	for (; *args; args++)
		assert_int_equal(fwdspec_parse(&c.conf.tcp_fwd, *args), 0);
}

/**
 * to() - guest port of a pod port, -1 if not forwarded
 * @port:	pod port
 *
 * Return: the guest port, or -1
 */
static int to(uint16_t port)
{
	uint16_t g = 0;

	if (!fwd_port_lookup(&c, &c.conf.tcp_fwd, port, &g))
		return -1;
	return g;
}

static void test_all_ranges(void **state)
{
	static const char *const a[] = { "all", "~5000-5009",
					 "40000-40009:6000-6009", NULL };

	(void)state;
	memset(&c, 0, sizeof(c));
	spec(a);
	assert_int_equal(to(0), -1);
	assert_int_equal(to(1), 1);
	assert_int_equal(to(4999), 4999);
	assert_int_equal(to(5000), -1);
	assert_int_equal(to(5009), -1);
	assert_int_equal(to(5010), 5010);
	assert_int_equal(to(40000), 6000);
	assert_int_equal(to(40009), 6009);
	assert_int_equal(to(65535), 65535);
}

/* "all" leaves the pod's ephemeral ports out (its outbound connections
 * and flows need them), as passt does; a rule naming one still forwards it,
 * and so does "all" where the range is unknown
 */
static void test_all_ephemeral(void **state)
{
	static const char *const a[] = { "all", "~5000", "40000:6000", NULL };
	static const char *const x[] = { "~22", NULL };
	char buf[256];

	(void)state;
	memset(&c, 0, sizeof(c));
	spec(a);
	assert_int_equal(to(40001), 40001);
	c.conf.tcp_fwd.eph_first = 32768;
	c.conf.tcp_fwd.eph_last = 60999;
	assert_int_equal(to(32767), 32767);
	assert_int_equal(to(32768), -1);
	assert_int_equal(to(40001), -1);
	assert_int_equal(to(60999), -1);
	assert_int_equal(to(61000), 61000);
	assert_int_equal(to(40000), 6000);
	assert_int_equal(to(5000), -1);
	fwdspec_format(&c.conf.tcp_fwd, buf, sizeof(buf));
	assert_string_equal(buf, "all, except 5000, 40000->6000, "
				 "except ephemeral 32768-60999");

	spec(x);
	c.conf.tcp_fwd.eph_first = 32768;
	c.conf.tcp_fwd.eph_last = 60999;
	assert_int_equal(to(22), -1);
	assert_int_equal(to(23), 23);
	assert_int_equal(to(50000), -1);
}

static void test_auto_vm(void **state)
{
	static const char *const a[] = { "auto", "~22", "8080:80", NULL };

	(void)state;
	memset(&c, 0, sizeof(c));
	spec(a);
	assert_int_equal(to(22), -1);
	assert_int_equal(to(80), 80);
	assert_int_equal(to(8080), 80);
	assert_int_equal(to(65535), 65535);
	assert_int_equal(to(0), -1);
}

static void test_auto_ns(void **state)
{
	static const char *const a[] = { "auto", NULL };

	(void)state;
	memset(&c, 0, sizeof(c));
	strcpy(c.conf.netns, "/run/netns/x");
	spec(a);
	/* The namespace's listeners decide (fwd_auto.c), not this */
	assert_int_equal(to(80), -1);
}

/**
 * accept_one() - a connection to a loopback listener, accepted
 * @lport:	set to the listener's port
 *
 * Return: the accepted socket
 */
static int accept_one(uint16_t *lport)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int l, cl, fd;

	l = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &sl), 0);
	*lport = ntohs(sa.sin_port);
	cl = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(cl, (struct sockaddr *)&sa, sizeof(sa)), 0);
	fd = accept(l, NULL, NULL);
	assert_true(fd >= 0);
	close(cl);
	close(l);
	return fd;
}

static void test_guest_port_any(void **state)
{
	static const char *const all[] = { "all", NULL };
	static const char *const none[] = { "1-2", NULL };
	struct fwd_listener l = { .fd = -1, .guest_port = 7, .any_port = true };
	struct in6_addr ta, want;
	char rule[64];
	uint16_t lport, g = 0;
	int fd;

	(void)state;
	memset(&c, 0, sizeof(c));
	fd = accept_one(&lport);

	/* The accepted socket's local port, mapped by the rules */
	spec(all);
	assert_int_equal(fwd_guest_port(&c, &l, fd, &g, &ta), 0);
	assert_int_equal(g, lport);
	assert_true(IN6_IS_ADDR_UNSPECIFIED(&ta));

	/* ...and refused where the rules do not forward it */
	spec(none);
	assert_int_equal(fwd_guest_port(&c, &l, fd, &g, &ta), -1);

	/* A rule's guest address, for a connection of its family only */
	snprintf(rule, sizeof(rule), "%u:198.51.100.7/80", lport);
	memset(&c.conf.tcp_fwd, 0, sizeof(c.conf.tcp_fwd));
	assert_int_equal(fwdspec_parse(&c.conf.tcp_fwd, rule), 0);
	assert_int_equal(fwd_guest_port(&c, &l, fd, &g, &ta), 0);
	assert_int_equal(g, 80);
	inet_pton(AF_INET6, "::ffff:198.51.100.7", &want);
	assert_memory_equal(&ta, &want, sizeof(want));
	l.v6 = true;
	assert_int_equal(fwd_guest_port(&c, &l, fd, &g, &ta), -1);

	/* A per-port listener forwards to its own guest port and address */
	l.any_port = false;
	l.to_addr = want;
	assert_int_equal(fwd_guest_port(&c, &l, fd, &g, &ta), 0);
	assert_int_equal(g, 7);
	assert_memory_equal(&ta, &want, sizeof(want));
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_ranges),
		cmocka_unit_test(test_all_ephemeral),
		cmocka_unit_test(test_auto_vm),
		cmocka_unit_test(test_auto_ns),
		cmocka_unit_test(test_guest_port_any),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
