// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests for the guest's source addresses and inbound target
 *
 * Expectations from RFC 4862 (SLAAC), RFC 7217 (stable-privacy), RFC 4941
 * (temporary addresses) and RFC 4291 (address types): a guest may speak
 * from any address it can form in the advertised /64, never from outside.
 */
#include "unit.h"
#include "net/fwd.h"
#include "net/gaddr.h"
#include "netshim/inany.h"
#include "net/ip.h"
#include "net/outbound.h"

static struct ctx ctx;

/**
 * src6() - gaddr_src6_ok() for an address literal
 * @s:		address text
 * @proto:	upper-layer protocol
 *
 * Return: what gaddr_src6_ok() returned
 */
static bool src6(const char *s, uint8_t proto)
{
	struct in6_addr a = unit_a6(s);

	return gaddr_src6_ok(&ctx.conf, &a, proto);
}

/**
 * ctx_setup() - the reference pod: 203.0.113.2/24, 2001:db8:1::2/64
 * @state:	cmocka state, unused
 *
 * Return: 0
 */
static int ctx_setup(void **state)
{
	(void)state;
	memset(&ctx, 0, sizeof(ctx));
	unit_conf(&ctx.conf);
	return 0;
}

/* EUI-64, stable-privacy, temporary and DHCPv6 addresses all qualify */
static void test_src6_prefix(void **state)
{
	(void)state;
	assert_true(src6("2001:db8:1::2", IPPROTO_TCP));	/* DHCPv6 */
	assert_true(src6("2001:db8:1:0:5054:ff:fe12:3456", IPPROTO_TCP));
	assert_true(src6("2001:db8:1:0:8d3a:51c2:9e07:4b1f", IPPROTO_UDP));
	assert_true(src6("2001:db8:1:0:ffff:ffff:ffff:ffff", IPPROTO_ICMPV6_));
	assert_true(src6("fe80::5054:ff:fe12:3456", IPPROTO_UDP));
}

/* A pod with a /128 still gives the guest the /64 around its address */
static void test_src6_pod_128(void **state)
{
	(void)state;
	ctx.conf.prefix6 = 128;
	assert_true(src6("2001:db8:1:0:5054:ff:fe12:3456", IPPROTO_TCP));
	assert_false(src6("2001:db8:1:1::2", IPPROTO_TCP));
}

/* Nothing outside what the guest was given */
static void test_src6_refused(void **state)
{
	(void)state;
	assert_false(src6("2001:db8:1:1::2", IPPROTO_TCP));	/* next /64 */
	assert_false(src6("2001:db8:2::1", IPPROTO_TCP));
	assert_false(src6("2001:db8:1::", IPPROTO_TCP));	/* anycast */
	assert_false(src6("::1", IPPROTO_TCP));
	assert_false(src6("ff02::1", IPPROTO_ICMPV6_));
	assert_false(src6("::ffff:203.0.113.2", IPPROTO_TCP));
	assert_false(src6("::203.0.113.2", IPPROTO_TCP));
	/* The unspecified address only for DAD and MLD */
	assert_true(src6("::", IPPROTO_ICMPV6_));
	assert_false(src6("::", IPPROTO_UDP));
	assert_false(src6("::", IPPROTO_TCP));
	/* No IPv6 configured: only link-local */
	ctx.conf.v6 = false;
	assert_false(src6("2001:db8:1::2", IPPROTO_TCP));
	assert_true(src6("fe80::2", IPPROTO_ICMPV6_));
}

/* IPv4: the guest's address, and 0.0.0.0 only to a DHCP server */
static void test_src4(void **state)
{
	(void)state;
	assert_true(gaddr_src4_ok(&ctx.conf, unit_a4("203.0.113.2"),
				  IPPROTO_TCP, -1));
	assert_false(gaddr_src4_ok(&ctx.conf, unit_a4("203.0.113.3"),
				   IPPROTO_TCP, -1));
	assert_true(gaddr_src4_ok(&ctx.conf, unit_a4("0.0.0.0"), IPPROTO_UDP, 67));
	assert_false(gaddr_src4_ok(&ctx.conf, unit_a4("0.0.0.0"), IPPROTO_UDP, 53));
	assert_false(gaddr_src4_ok(&ctx.conf, unit_a4("0.0.0.0"), IPPROTO_TCP,
				   -1));
	ctx.conf.v4 = false;
	assert_false(gaddr_src4_ok(&ctx.conf, unit_a4("203.0.113.2"),
				   IPPROTO_TCP, -1));
}

/* Inbound goes to the assigned address until the guest uses another, then
 * to the last one it used; a new guest starts afresh
 */
static void test_inbound(void **state)
{
	struct in6_addr slaac = unit_a6("2001:db8:1:0:5054:ff:fe12:3456");
	struct in6_addr temp = unit_a6("2001:db8:1:0:8d3a:51c2:9e07:4b1f");
	struct in6_addr ll = unit_a6("fe80::5054:ff:fe12:3456");
	struct in6_addr other = unit_a6("2001:db8:9::1"), a;
	struct in_addr v4 = unit_a4("203.0.113.2");

	(void)state;
	a = gaddr_inbound(&ctx, true);
	assert_memory_equal(&a, &ctx.conf.addr6, 16);
	a = gaddr_inbound(&ctx, false);
	assert_true(inany_is4(&a));
	assert_memory_equal(&a.s6_addr[12], &v4, 4);

	gaddr_seen6(&ctx, &slaac);
	a = gaddr_inbound(&ctx, true);
	assert_memory_equal(&a, &slaac, 16);

	/* Link-local and foreign addresses never become the target */
	gaddr_seen6(&ctx, &ll);
	gaddr_seen6(&ctx, &other);
	a = gaddr_inbound(&ctx, true);
	assert_memory_equal(&a, &slaac, 16);

	gaddr_seen6(&ctx, &temp);
	a = gaddr_inbound(&ctx, true);
	assert_memory_equal(&a, &temp, 16);

	gaddr_reset(&ctx);
	a = gaddr_inbound(&ctx, true);
	assert_memory_equal(&a, &ctx.conf.addr6, 16);
}

/* Broadcasts: the limited one and the guest's subnet's; a /31 or /32
 * has none of its own
 */
static void test_bcast4(void **state)
{
	(void)state;
	assert_true(gaddr_bcast4(&ctx.conf, unit_a4("255.255.255.255")));
	assert_true(gaddr_bcast4(&ctx.conf, unit_a4("203.0.113.255")));
	assert_false(gaddr_bcast4(&ctx.conf, unit_a4("203.0.113.254")));
	assert_false(gaddr_bcast4(&ctx.conf, unit_a4("198.51.100.255")));
	ctx.conf.prefix4 = 31;
	assert_false(gaddr_bcast4(&ctx.conf, unit_a4("203.0.113.3")));
	assert_true(gaddr_bcast4(&ctx.conf, unit_a4("255.255.255.255")));
}

/* Local mode: no global address; inbound goes to the link-local address
 * the guest speaks from, and only there
 */
static void test_inbound_local(void **state)
{
	struct in6_addr ll = unit_a6("fe80::5054:ff:fe12:3456");
	struct in6_addr ll2 = unit_a6("fe80::1:2");
	struct in6_addr a;

	(void)state;
	gaddr_seen6_ll(&ctx, &ll);
	a = gaddr_inbound(&ctx, true);
	assert_memory_equal(&a, &ctx.conf.addr6, 16);

	memset(&ctx.conf.addr6, 0, sizeof(ctx.conf.addr6));
	ctx.conf.prefix6 = 0;
	gaddr_seen6_ll(&ctx, &ll);
	gaddr_seen6_ll(&ctx, &ll2);
	a = gaddr_inbound(&ctx, true);
	assert_memory_equal(&a, &ll, 16);
	gaddr_reset(&ctx);
	gaddr_seen6_ll(&ctx, &ll2);
	a = gaddr_inbound(&ctx, true);
	assert_memory_equal(&a, &ll2, 16);
}

/* Outside local mode too, the guest's link-local address is kept, for
 * inbound datagrams from netshim's own link-local address: the guest
 * answers those from it (RFC 6724, rule 2)
 */
static void test_inbound_ll(void **state)
{
	struct in6_addr ll = unit_a6("fe80::5054:ff:fe12:3456");
	struct in6_addr ll2 = unit_a6("fe80::1:2");
	struct in6_addr a;

	(void)state;
	a = gaddr_inbound_ll(&ctx);
	assert_memory_equal(&a, &ctx.conf.addr6, 16);
	gaddr_seen6_ll(&ctx, &ll);
	gaddr_seen6_ll(&ctx, &ll2);
	a = gaddr_inbound_ll(&ctx);
	assert_memory_equal(&a, &ll, 16);
	a = gaddr_inbound(&ctx, true);
	assert_memory_equal(&a, &ctx.conf.addr6, 16);
}

/**
 * peer() - fwd_inbound_peer() of an address literal
 * @s:		the client's address
 * @want:	what the guest should see it as
 *
 * Return: what fwd_inbound_peer() returned
 */
static bool peer(const char *s, const char *want)
{
	struct in6_addr a, w;
	bool r;

	if (strchr(s, ':')) {
		a = unit_a6(s);
		w = unit_a6(want);
	} else {
		a = inany_from4(unit_a4(s));
		w = inany_from4(unit_a4(want));
	}
	r = fwd_inbound_peer(&ctx, &a);
	assert_memory_equal(&a, &w, 16);
	return r;
}

/* A client in the pod itself reaches the guest as passt 2026 presents it
 * (run side by side, UDP and TCP alike): 127.0.0.1 and the pod's address
 * from the gateway, ::1 and the pod's IPv6 address from the link-local
 * address of ours; any other client as it is
 */
static void test_inbound_peer(void **state)
{
	(void)state;
	assert_true(peer("127.0.0.1", "203.0.113.1"));
	assert_true(peer("127.0.0.53", "203.0.113.1"));
	assert_true(peer("203.0.113.2", "203.0.113.1"));
	assert_false(peer("203.0.113.1", "203.0.113.1"));
	assert_false(peer("198.51.100.9", "198.51.100.9"));
	assert_true(peer("::1", "fe80::1"));
	assert_true(peer("2001:db8:1::2", "fe80::1"));
	assert_false(peer("2001:db8:1::1", "2001:db8:1::1"));
	assert_false(peer("2001:db8:2::9", "2001:db8:2::9"));
}

/* reach() - outbound_reachable() of two addresses written as text */
static bool reach(const char *src, const char *dst)
{
	struct in6_addr s, d;

	if (strchr(dst, ':')) {
		s = unit_a6(src);
		d = unit_a6(dst);
	} else {
		s = inany_from4(unit_a4(src));
		d = inany_from4(unit_a4(dst));
	}
	return outbound_reachable(&ctx, &s, &d);
}

/* What has no meaning in the pod stays on the guest's link, TCP, UDP and
 * ICMP alike; local mode's fe80::1 stands for the pod's ::1
 */
static void test_reachable(void **state)
{
	(void)state;
	assert_true(reach("203.0.113.2", "198.51.100.1"));
	assert_true(reach("203.0.113.2", "203.0.113.1"));
	assert_false(reach("0.0.0.0", "198.51.100.1"));
	assert_false(reach("203.0.113.2", "224.0.0.251"));
	assert_false(reach("203.0.113.2", "255.255.255.255"));
	assert_false(reach("203.0.113.2", "203.0.113.255"));

	assert_true(reach("2001:db8:1::2", "2001:db8:2::1"));
	assert_false(reach("2001:db8:1::2", "ff02::fb"));
	assert_false(reach("fe80::5054:ff:fe12:3456", "fe80::1"));
	assert_false(reach("fe80::5054:ff:fe12:3456", "2001:db8:2::1"));
	assert_false(reach("2001:db8:1::2", "fe80::2"));

	ctx.conf.map_host_lo6 = true;
	ctx.conf.host_lo6 = unit_a6("fe80::1");
	assert_true(reach("fe80::5054:ff:fe12:3456", "fe80::1"));
	assert_false(reach("fe80::5054:ff:fe12:3456", "fe80::2"));
	assert_false(reach("fe80::5054:ff:fe12:3456", "ff02::1"));
}

/* Loopback of either family, as the pod's splice and inbound paths ask */
static void test_is_loopback(void **state)
{
	struct in6_addr a;

	(void)state;
	a = inany_from4(unit_a4("127.0.0.1"));
	assert_true(inany_is_loopback(&a));
	a = inany_from4(unit_a4("127.255.3.9"));
	assert_true(inany_is_loopback(&a));
	a = inany_from4(unit_a4("128.0.0.1"));
	assert_false(inany_is_loopback(&a));
	a = inany_from4(unit_a4("203.0.113.127"));
	assert_false(inany_is_loopback(&a));
	a = unit_a6("::1");
	assert_true(inany_is_loopback(&a));
	a = unit_a6("::127.0.0.1");	/* IPv4-compatible, not mapped */
	assert_false(inany_is_loopback(&a));
	a = unit_a6("2001:db8::1");
	assert_false(inany_is_loopback(&a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_src6_prefix, ctx_setup),
		cmocka_unit_test_setup(test_src6_pod_128, ctx_setup),
		cmocka_unit_test_setup(test_src6_refused, ctx_setup),
		cmocka_unit_test_setup(test_src4, ctx_setup),
		cmocka_unit_test_setup(test_inbound, ctx_setup),
		cmocka_unit_test_setup(test_bcast4, ctx_setup),
		cmocka_unit_test_setup(test_inbound_local, ctx_setup),
		cmocka_unit_test_setup(test_inbound_ll, ctx_setup),
		cmocka_unit_test_setup(test_inbound_peer, ctx_setup),
		cmocka_unit_test_setup(test_reachable, ctx_setup),
		cmocka_unit_test(test_is_loopback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
