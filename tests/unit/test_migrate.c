// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the device state a migration's destination reads
 *
 * The destination reads the state from the front-end's pipe as untrusted
 * input (daemon/migrate.c, tcp/migrate.c, udp/migrate.c): a state that is
 * not netshim's, of another version, cut short anywhere, with an unknown
 * section, a malformed connection or UDP flow, more connections than
 * --max-tcp, more flows than --max-flows or bytes after its end is
 * refused with its reason, and nothing breaks; a good one gives the guest
 * its addresses back, resets its connections towards it (no repair helper
 * here) and opens its UDP flows again.  States are written byte by byte as the format in
 * migrate.c says, not by netshim's own writer.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "migrate_ctx.h"
#include "unit.h"
#include "netshim/ctx.h"
#include "net/flow.h"
#include "netshim/inany.h"
#include "daemon/migrate.h"
#include "link/link.h"
#include "tcp/tcp.h"
#include "udp/udp.h"

static struct ctx ctx;

/* header() - magic and a version */
static void header(uint32_t version)
{
	uint64_t m = htobe64(MIGRATE_MAGIC);

	len = 0;
	put(&m, 8);
	put32(version);
}

/* guest() - the guest section: MAC 52:54:00:12:34:56 and an IPv6 address */
static void guest(void)
{
	static const uint8_t g[24] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56,
				       0x03, 0, 0x20, 0x01, 0x0d, 0xb8, 0, 1,
				       0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };

	put16(1);
	put(g, sizeof(g));
}

/* conn() - one TCP record, v4, established, without a socket part
 * @state:	its state byte
 */
static void conn(uint8_t state)
{
	uint8_t r[44] = { 0 };
	struct in6_addr g = unit_a6("::ffff:203.0.113.2");
	struct in6_addr p = unit_a6("::ffff:198.51.100.7");

	memcpy(r, &g, 16);
	memcpy(r + 16, &p, 16);
	r[32] = 0xc0;		/* guest port 49152 */
	r[34] = 0;
	r[35] = 80;		/* remote port 80 */
	r[36] = state;
	r[37] = 7;
	r[38] = 8;
	r[43] = 0xb4;		/* MSS 1460: 0x05b4 */
	r[42] = 0x05;
	put(r, sizeof(r));
	put32(1000);		/* next from the guest */
	put32(5000);		/* next to it */
	put32(4000);		/* not acknowledged yet */
	put32(999);
	put32(65535);
	put32(0);		/* no socket part */
}

/* tcp() - the TCP section with n good records */
static void tcp(uint32_t n)
{
	put16(2);
	put32(n);
	while (n--)
		conn(4);
}

/* flow() - one UDP record: the guest's port 5312 to 127.0.0.1 (a connect()
 * that needs no route), remote port @rport
 * @rport:	remote port
 * @port:	the source's pod port
 * @flags:	flags byte
 * @six:	the remote address IPv6 (::1), the guest's staying IPv4
 */
static void flow(uint16_t rport, uint16_t port, uint8_t flags, bool six)
{
	uint8_t r[40] = { 0 };
	struct in6_addr g = unit_a6("::ffff:203.0.113.2");
	struct in6_addr p = unit_a6(six ? "::1" : "::ffff:127.0.0.1");

	memcpy(r, &g, 16);
	memcpy(r + 16, &p, 16);
	r[32] = 5312 >> 8;
	r[33] = 5312 & 0xff;
	r[34] = rport >> 8;
	r[35] = rport & 0xff;
	r[36] = port >> 8;
	r[37] = port & 0xff;
	r[38] = flags;
	r[39] = 0;
	put(r, sizeof(r));
}

/* udp() - the UDP section with n good outbound records */
static void udp(uint32_t n)
{
	put16(3);
	put32(n);
	while (n--)
		flow(9000 + n, 0, 0, false);
}

/* echo() - one ICMP echo record: the guest's identifier @gid to 127.0.0.1
 * (or ::1, with an IPv6 guest address when @six is 2)
 * @gid:	the guest's identifier
 * @id:		the source's identifier in the pod
 * @last:	the last byte, which must be 0
 * @six:	1: IPv6 remote for an IPv4 guest (malformed), 2: both IPv6
 */
static void echo(uint16_t gid, uint16_t id, uint8_t last, int six)
{
	uint8_t r[38] = { 0 };
	struct in6_addr g = unit_a6(six == 2 ? "2001:db8:1::2" :
				    "::ffff:203.0.113.2");
	struct in6_addr p = unit_a6(six ? "::1" : "::ffff:127.0.0.1");

	memcpy(r, &g, 16);
	memcpy(r + 16, &p, 16);
	r[32] = gid >> 8;
	r[33] = gid & 0xff;
	r[34] = id >> 8;
	r[35] = id & 0xff;
	r[36] = 64;
	r[37] = last;
	put(r, sizeof(r));
}

static void end(void)
{
	put16(0xffff);
}

/**
 * load_keep() - hand the state to migrate_load() through a pipe, as QEMU
 *		 does, leaving what the state opened
 * @n:		bytes of it
 *
 * Return: what migrate_load() returns
 */
static int load_keep(size_t n)
{
	int p[2], rc;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(write(p[1], st, n), (ssize_t)n);
	close(p[1]);
	rc = migrate_load(&ctx, p[0]);
	close(p[0]);
	return rc;
}

/**
 * load() - as load_keep(), then clear what it opened, as a VMM that goes
 *	    away does, for the next state
 * @n:		bytes of it
 *
 * Return: what migrate_load() returns
 */
static int load(size_t n)
{
	int rc = load_keep(n);

	tcp_guest_gone(&ctx);
	flow_guest_gone(&ctx);
	ctx.link.tx.head = ctx.link.tx.tail = 0;
	ctx.guest_mac_known = ctx.gaddr6_known = false;
	return rc;
}

static int setup(void **state)
{
	(void)state;
	migrate_ctx_setup(&ctx);
	return 0;
}

/* A good state: the guest's addresses back, its connections reset */
static void test_good(void **state)
{
	(void)state;
	header(MIGRATE_VERSION);
	guest();
	tcp(2);
	end();
	ctx.cnt.tcp_migrated_reset = 0;
	assert_int_equal(migrate_load(&ctx, -1), EBADF);
	assert_int_equal(load_keep(len), 0);
	assert_true(ctx.guest_mac_known);
	assert_int_equal(ctx.guest_mac[5], 0x56);
	assert_true(ctx.gaddr6_known);
	assert_int_equal(ctx.cnt.tcp_migrated_reset, 2);
	/* Two resets queued for the guest */
	assert_true(ctx.link.tx.tail > ctx.link.tx.head);
	assert_int_equal(tcp_count(&ctx), 0);
	load(0);	/* clears */
}

/* Cut short anywhere: refused, as a stream that ends early */
static void test_truncated(void **state)
{
	size_t n, full;

	(void)state;
	header(MIGRATE_VERSION);
	guest();
	tcp(1);
	udp(1);
	put16(4);
	put32(1);
	echo(7, 0, 0, 0);
	end();
	full = len;
	for (n = 0; n < full; n++)
		assert_int_equal(load(n), EPROTO);
	assert_int_equal(load(full), 0);
}

/* Not netshim's, another version, flipped bits in the header */
static void test_header(void **state)
{
	(void)state;
	header(MIGRATE_VERSION + 1);
	end();
	assert_int_equal(load(len), ENOTSUP);
	header(0);
	end();
	assert_int_equal(load(len), ENOTSUP);
	header(MIGRATE_VERSION);
	end();
	st[0] ^= 0x40;
	assert_int_equal(load(len), EINVAL);
}

/* Sections and records that cannot be */
static void test_malformed(void **state)
{
	(void)state;
	header(MIGRATE_VERSION);
	put16(7);		/* no such section */
	end();
	assert_int_equal(load(len), EINVAL);

	header(MIGRATE_VERSION);
	tcp(0);
	end();
	put16(0);		/* after the end */
	assert_int_equal(load(len), EINVAL);

	header(MIGRATE_VERSION);
	put16(2);
	put32(1);
	conn(9);		/* no such TCP state */
	end();
	assert_int_equal(load(len), EINVAL);

	header(MIGRATE_VERSION);
	put16(2);
	put32(1);
	conn(4);
	len -= 4;
	put32(20);		/* a socket part shorter than its header */
	put(st, 20);
	end();
	assert_int_equal(load(len), EINVAL);

	header(MIGRATE_VERSION);
	put16(1);		/* a multicast MAC address for the guest */
	{
		uint8_t g[24] = { 0x01, 0, 0x5e, 0, 0, 1, 0x01 };

		put(g, sizeof(g));
	}
	end();
	assert_int_equal(load(len), EINVAL);
}

/* UDP flows open again; one to a -u port with no listener here does not */
static void test_udp(void **state)
{
	(void)state;
	header(MIGRATE_VERSION);
	udp(2);
	end();
	ctx.cnt.udp_migrated = 0;
	assert_int_equal(load_keep(len), 0);
	assert_int_equal(ctx.cnt.udp_migrated, 2);
	assert_int_equal(flow_count(&ctx), 2);
	load(0);
	assert_int_equal(flow_count(&ctx), 0);

	header(MIGRATE_VERSION);
	put16(3);
	put32(2);
	flow(53, 0, 1, false);	/* inbound, no -u listener */
	flow(53, 0, 0, false);
	end();
	ctx.cnt.udp_migrated = 0;
	assert_int_equal(load(len), 0);
	assert_int_equal(ctx.cnt.udp_migrated, 1);
}

/* UDP records that cannot be */
static void test_udp_malformed(void **state)
{
	static const struct { uint16_t rport, port; uint8_t flags; bool six; }
	bad[] = {
		{ 0, 0, 0, false },	/* remote port 0 */
		{ 53, 0, 0x80, false },	/* unknown flag */
		{ 53, 4000, 1, false },	/* inbound, with a pod port */
		{ 53, 0, 0, true },	/* IPv4 guest, IPv6 remote */
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		header(MIGRATE_VERSION);
		put16(3);
		put32(1);
		flow(bad[i].rport, bad[i].port, bad[i].flags, bad[i].six);
		end();
		assert_int_equal(load(len), EINVAL);
	}
}

/**
 * ping_ok() - tell if this process may open ping sockets
 * @v6:		ICMPv6 rather than ICMP
 *
 * Return: true if it may (net.ipv4.ping_group_range holds its group)
 */
static bool ping_ok(bool v6)
{
	int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM,
			v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/**
 * ping_netns() - as root, a network namespace of the test's own where
 *		  ping sockets are allowed, its loopback up
 *
 * Return: the namespace the test came from, to go back to, or -1 if it
 * stays where it is (not root, or no namespace to be had)
 */
static int ping_netns(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int back, s, fd;

	if (geteuid())
		return -1;
	back = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (back < 0 || unshare(CLONE_NEWNET)) {
		if (back >= 0)
			close(back);
		return -1;
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(s >= 0);
	assert_int_equal(ioctl(s, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	assert_int_equal(ioctl(s, SIOCSIFFLAGS, &ifr), 0);
	close(s);
	fd = open("/proc/sys/net/ipv4/ping_group_range", O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0 2147483647", 12), 12);
	close(fd);
	return back;
}

/* Echo flows open again, with the source's identifier where it is free,
 * where the pod allows ping sockets at all (as root: in a namespace of
 * the test's own that does)
 */
static void test_icmp(void **state)
{
	uint16_t id4 = 40001, id6 = 40002;
	int back = ping_netns();
	unsigned int want = ping_ok(false) + ping_ok(true);
	uint32_t i;

	(void)state;
	if (back >= 0)
		assert_int_equal(want, 2);
	header(MIGRATE_VERSION);
	put16(4);
	put32(2);
	echo(7, id4, 0, 0);
	echo(8, id6, 0, 2);
	end();
	ctx.cnt.icmp_migrated = 0;
	assert_int_equal(load_keep(len), 0);
	assert_int_equal(ctx.cnt.icmp_migrated, want);
	assert_int_equal(flow_count(&ctx), want);
	for (i = 0; i < flow_end(&ctx); i++) {
		struct flow *f = flow_at(&ctx, i);
		struct sockaddr_storage sa;
		socklen_t sl = sizeof(sa);
		struct in6_addr a;
		uint16_t id;

		if (!f)
			continue;
		assert_int_equal(getsockname(f->fd, (struct sockaddr *)&sa,
					     &sl), 0);
		inany_from_sockaddr(&sa, &a, &id);
		assert_int_equal(id, f->gport == 7 ? id4 : id6);
		assert_int_equal(f->hop, 64);
	}
	load(0);
	assert_int_equal(flow_count(&ctx), 0);
	if (back >= 0) {
		assert_int_equal(setns(back, CLONE_NEWNET), 0);
		close(back);
	}
}

/* Echo records that cannot be, and more than --max-flows */
static void test_icmp_malformed(void **state)
{
	(void)state;
	header(MIGRATE_VERSION);
	put16(4);
	put32(1);
	echo(7, 0, 1, 0);	/* the last byte set */
	end();
	assert_int_equal(load(len), EINVAL);
	header(MIGRATE_VERSION);
	put16(4);
	put32(1);
	echo(7, 0, 0, 1);	/* IPv4 guest, IPv6 remote */
	end();
	assert_int_equal(load(len), EINVAL);
	header(MIGRATE_VERSION);
	put16(4);
	put32(5);
	end();
	assert_int_equal(load(len), EFBIG);
}

/* More connections than --max-tcp: refused before any is read */
static void test_too_many(void **state)
{
	(void)state;
	header(MIGRATE_VERSION);
	tcp(4);
	end();
	assert_int_equal(load(len), 0);
	header(MIGRATE_VERSION);
	put16(2);
	put32(5);
	end();
	assert_int_equal(load(len), EFBIG);
	header(MIGRATE_VERSION);
	put16(2);
	put32(0xffffffff);
	assert_int_equal(load(len), EFBIG);
	/* and more UDP flows than --max-flows */
	header(MIGRATE_VERSION);
	udp(4);
	end();
	assert_int_equal(load(len), 0);
	header(MIGRATE_VERSION);
	put16(3);
	put32(5);
	end();
	assert_int_equal(load(len), EFBIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_udp),
		cmocka_unit_test(test_udp_malformed),
		cmocka_unit_test(test_icmp),
		cmocka_unit_test(test_icmp_malformed),
		cmocka_unit_test(test_too_many),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
