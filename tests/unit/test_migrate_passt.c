// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of passt's device state, read and written
 *
 * A netshim destination reads passt's stream (version 2, as passt 2025-05
 * to 2026 write it) as untrusted input: cut short anywhere, of a version
 * range without 2, with records or sockets that cannot be, more
 * connections than --max-tcp, or bytes after its end, it is refused with
 * its reason; a good one gives the guest its addresses back and resets its
 * connections towards it with the sequence numbers the guest expects (no
 * repair helper here).  The streams are laid out byte by byte as passt's
 * migrate.c, flow.c and tcp.c write them (struct migrate_header, struct
 * migrate_seen_addrs_v2, struct tcp_tap_transfer and _ext), not by
 * netshim's writer; and what netshim writes by default is passt's stream,
 * ending where passt stops reading.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "migrate_ctx.h"
#include "unit.h"
#include "netshim/ctx.h"
#include "net/flow.h"
#include "daemon/migrate.h"
#include "link/link.h"
#include "link/queue.h"
#include "tcp/tcp.h"

static struct ctx ctx;

/* header() - passt's header: magic, version, oldest compatible version */
static void header(uint32_t version, uint32_t compat)
{
	uint64_t m = htobe64(PASST_MAGIC);

	len = 0;
	put(&m, 8);
	put32(version);
	put32(compat);
}

/* addrs() - the guest's addresses as passt saw them */
static void addrs(void)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	struct in6_addr a6 = unit_a6("2001:db8:1::77");
	struct in6_addr ll = unit_a6("fe80::5054:ff:fe12:3456");
	struct in_addr a4 = unit_a4("203.0.113.2");

	put(&a6, 16);
	put(&ll, 16);
	put(&a4, 4);
	put(mac, 6);
}

/* side() - one flowside: ports in host order, as passt copies them */
static void side(const char *o, uint16_t oport, const char *e, uint16_t eport)
{
	struct in6_addr oa = unit_a6(o), ea = unit_a6(e);

	put(&oa, 16);
	put(&ea, 16);
	put(&oport, 2);
	put(&eport, 2);
}

/**
 * rec() - one struct tcp_tap_transfer
 * @gport:	the guest's port
 * @tap_first:	the guest's side first (the guest opened it), else second
 * @ws:		the guest's window scale
 * @events:	passt's events
 */
static void rec(uint16_t gport, bool tap_first, uint8_t ws, uint8_t events)
{
	put8(tap_first ? 2 : 1);
	put8(tap_first ? 1 : 2);
	if (!tap_first)
		side("::ffff:203.0.113.2", 40000 + gport, "::ffff:198.51.100.7",
		     80);
	side("::ffff:198.51.100.7", 80, "::ffff:203.0.113.2", gport);
	if (tap_first)
		side("::ffff:203.0.113.2", 40000 + gport, "::ffff:198.51.100.7",
		     80);
	put8(0);		/* retries */
	put8(ws);
	put8(8);
	put8(events);
	put32(1460);		/* MSS */
	put32(4096);		/* sndbuf >> 8 */
	put8(0);
	put8(0);
	put16(1000);		/* the guest's window, unscaled */
	put16(500);
	put32(5000 + gport);	/* next to the guest */
	put32(4000 + gport);	/* its last ACK */
	put32(1000);		/* next from it */
	put32(1000);
	put32(999);
}

/**
 * ext() - one struct tcp_tap_transfer_ext, and its queues
 * @state:	TCP state (0: the source could not read the socket)
 * @sndq:	send queue bytes (written)
 * @notsent:	of which not sent
 * @rcvq:	receive queue bytes (written)
 * @ws:		window scales
 */
static void ext(uint8_t state, uint32_t sndq, uint32_t notsent, uint32_t rcvq,
		uint8_t ws)
{
	static const uint8_t q[64];
	int i;

	put32(7000);		/* send queue starts */
	put32(9000);		/* receive queue starts */
	put32(sndq);
	put32(notsent);
	put32(rcvq);
	put32(1460);
	put32(12345);
	for (i = 0; i < 5; i++)
		put32(65535);
	put8(ws);
	put8(ws);
	put8(state);
	put8(TCPI_OPT_WSCALE | TCPI_OPT_TIMESTAMPS);
	if (!state)
		return;
	if (sndq + rcvq <= sizeof(q))	/* else refused before they are read */
		put(q, sndq + rcvq);
}

/* good() - a stream with two connections: one the source could not read,
 * one established with bytes queued both ways
 */
static void good(void)
{
	header(2, 2);
	addrs();
	put32(2);
	rec(1, true, 7, 0x04);
	rec(2, false, 7, 0x04);
	ext(0, 0, 0, 0, 7);
	ext(TCP_ESTABLISHED, 20, 5, 30, 7);
}

/**
 * load() - hand the state to migrate_load() through a pipe, as QEMU does,
 *	    then clear what it opened, as a VMM that goes away does
 * @n:		bytes of it
 *
 * Return: what migrate_load() returns
 */
static int load(size_t n)
{
	int p[2], rc;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(write(p[1], st, n), (ssize_t)n);
	close(p[1]);
	rc = migrate_load(&ctx, p[0]);
	close(p[0]);
	tcp_guest_gone(&ctx);
	flow_guest_gone(&ctx);
	return rc;
}

/* clear() - forget the guest and what was queued for it */
static void clear(void)
{
	ctx.link.tx.head = ctx.link.tx.tail = 0;
	ctx.guest_mac_known = ctx.gaddr6_known = ctx.gaddr6_ll_known = false;
	ctx.cnt.tcp_migrated_reset = 0;
}

static int setup(void **state)
{
	(void)state;
	migrate_ctx_setup(&ctx);
	return 0;
}

/**
 * next_rst() - the next frame queued for the guest, a TCP reset over IPv4
 * @gport:	filled: its destination port
 *
 * Return: its sequence number
 */
static uint32_t next_rst(uint16_t *gport)
{
	struct tcphdr th;
	struct iphdr ip;
	uint8_t *f;
	size_t n;

	assert_true(lq_peek(&ctx.link.tx, &f, &n));
	assert_true(n >= 14 + sizeof(ip) + sizeof(th));
	memcpy(&ip, f + 14, sizeof(ip));	/* frames are not aligned */
	assert_int_equal(ip.protocol, IPPROTO_TCP);
	memcpy(&th, f + 14 + ip.ihl * 4, sizeof(th));
	assert_true(th.rst);
	*gport = ntohs(th.dest);
	lq_drop_head(&ctx.link.tx);
	return ntohl(th.seq);
}

/* A good stream: the guest's addresses back, both connections reset
 * towards it (no helper here), at the sequence number it expects next
 */
static void test_good(void **state)
{
	struct in6_addr a6 = unit_a6("2001:db8:1::77");
	struct in6_addr ll = unit_a6("fe80::5054:ff:fe12:3456");
	uint16_t port;
	int p[2];

	(void)state;
	clear();
	good();
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(write(p[1], st, len), (ssize_t)len);
	close(p[1]);
	assert_int_equal(migrate_load(&ctx, p[0]), 0);
	close(p[0]);
	assert_true(ctx.guest_mac_known);
	assert_int_equal(ctx.guest_mac[5], 0x56);
	assert_true(ctx.gaddr6_known);
	assert_memory_equal(&ctx.gaddr6_seen, &a6, 16);
	assert_true(ctx.gaddr6_ll_known);
	assert_memory_equal(&ctx.gaddr6_ll, &ll, 16);
	assert_int_equal(ctx.cnt.tcp_migrated_reset, 2);
	assert_int_equal(tcp_count(&ctx), 0);
	assert_int_equal(next_rst(&port), 5001);
	assert_int_equal(port, 1);
	assert_int_equal(next_rst(&port), 5002);
	assert_int_equal(port, 2);
	assert_false(lq_pending(&ctx.link.tx));
	clear();
}

/* Cut short anywhere: refused, as a stream that ends early; one byte
 * more than passt writes: refused too
 */
static void test_truncated(void **state)
{
	size_t n, full;

	(void)state;
	good();
	full = len;
	for (n = 0; n < full; n++) {
		clear();
		assert_int_equal(load(n), EPROTO);
	}
	clear();
	assert_int_equal(load(full), 0);
	put8(0);
	clear();
	assert_int_equal(load(len), EINVAL);
	clear();
}

/* Read as passt reads it: any version range that holds version 2 */
static void test_versions(void **state)
{
	static const struct { uint32_t v, compat; int rc; } h[] = {
		{ 2, 2, 0 }, { 3, 2, 0 }, { 3, 1, 0 }, { 1, 1, ENOTSUP },
		{ 3, 3, ENOTSUP }, { 2, 0, ENOTSUP }, { 0, 0, ENOTSUP },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
		header(h[i].v, h[i].compat);
		addrs();
		put32(0);
		clear();
		assert_int_equal(load(len), h[i].rc);
	}
	clear();
}

/* Records and sockets that cannot be */
static void test_malformed(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		header(2, 2);
		addrs();
		put32(1);
		rec(1, true, i == 0 ? 15 : 7, i == 1 ? 0x01 : 0x04);
		if (i == 2)	/* both sides the guest's */
			st[len - TCP_PASST_REC + 1] = 2;
		if (i == 3)	/* no such interface */
			st[len - TCP_PASST_REC] = 7;
		if (i == 4)	/* the guest's port 0 */
			memset(st + len - TCP_PASST_REC + 2 + 34, 0, 2);
		ext(i == 5 ? 12 : TCP_ESTABLISHED, 10, i == 6 ? 11 : 0, 0,
		    i == 7 ? 15 : 7);
		clear();
		assert_int_equal(load(len), EINVAL);
	}
	/* A queue longer than passt's 64 MiB */
	header(2, 2);
	addrs();
	put32(1);
	rec(1, true, 7, 0x04);
	ext(TCP_ESTABLISHED, (64U << 20) + 1, 0, 0, 7);
	clear();
	assert_int_equal(load(len), EINVAL);
	clear();
}

/* More connections than --max-tcp: refused before any is read */
static void test_too_many(void **state)
{
	(void)state;
	header(2, 2);
	addrs();
	put32(5);
	clear();
	assert_int_equal(load(len), EFBIG);
	header(2, 2);
	addrs();
	put32(0xffffffff);
	clear();
	assert_int_equal(load(len), EFBIG);
	clear();
}

/* Half-closed as passt moves them: reset here, at the sequence expected */
static void test_half_closed(void **state)
{
	uint16_t port;

	(void)state;
	header(2, 2);
	addrs();
	put32(1);
	rec(3, true, 7, 0x04 | 0x08);	/* the socket's FIN came */
	ext(TCP_CLOSE_WAIT, 0, 0, 4, 7);
	clear();
	assert_int_equal(load(len), 0);
	assert_int_equal(ctx.cnt.tcp_migrated_reset, 1);
	assert_int_equal(next_rst(&port), 5003);
	assert_int_equal(port, 3);
	clear();
}

/* What netshim writes by default is passt's stream, and nothing after
 * the point where passt stops reading; netshim reads it back
 */
static void test_written(void **state)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0xab, 0xcd, 0xef };
	struct in6_addr a6 = unit_a6("2001:db8:1::99");
	struct in_addr a4 = unit_a4("203.0.113.2");
	uint8_t out[256];
	uint64_t magic;
	int p[2];
	ssize_t n;

	(void)state;
	clear();
	assert_int_equal(ctx.conf.migrate_format, CONF_MIGRATE_PASST);
	memcpy(ctx.guest_mac, mac, 6);
	ctx.guest_mac_known = true;
	ctx.gaddr6_seen = a6;
	ctx.gaddr6_known = true;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(migrate_save(&ctx, p[1]), 0);
	close(p[1]);
	n = read(p[0], out, sizeof(out));
	close(p[0]);
	assert_int_equal(n, 16 + 42 + 4);
	memcpy(&magic, out, 8);
	assert_true(be64toh(magic) == PASST_MAGIC);
	assert_int_equal(out[11], 2);	/* version */
	assert_int_equal(out[15], 2);	/* compatible with version 2 */
	assert_memory_equal(out + 16, &a6, 16);
	assert_memory_equal(out + 48, &a4, 4);
	assert_memory_equal(out + 52, mac, 6);
	assert_int_equal(out[61], 0);	/* no connection */

	clear();
	memcpy(st, out, (size_t)n);
	assert_int_equal(load((size_t)n), 0);
	assert_true(ctx.guest_mac_known);
	assert_memory_equal(ctx.guest_mac, mac, 6);
	assert_memory_equal(&ctx.gaddr6_seen, &a6, 16);
	clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_half_closed),
		cmocka_unit_test(test_written),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
