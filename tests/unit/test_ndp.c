// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests for the Neighbour Discovery responder
 *
 * Messages from the guest are crafted byte by byte and handed over in heap
 * buffers of their exact length, so that ASan catches any read past them.
 */
#include <stdlib.h>

#include "unit.h"
#include "ndp/ndp.h"

#define RA_FULL_LEN	112	/* 16 + SLLA, MTU, PIO, RDNSS, DNSSL */
#define NA_FULL_LEN	32
#define OUT_SIZE	2048

static const uint8_t mac[6] = { 0x02, 0x6e, 0x73, 0x68, 0x69, 0x6d };
static struct conf conf;

/**
 * conf_setup() - fill the shared configuration with the reference pod
 * @state:	cmocka state, unused
 *
 * Return: 0
 */
static int conf_setup(void **state)
{
	(void)state;
	unit_conf(&conf);
	/* NDP serves IPv6 alone */
	conf.v4 = false;
	return 0;
}

/**
 * reply() - run ndp_reply() on a copy of a message of exactly its length
 * @src:	IPv6 source text
 * @dst:	IPv6 destination text
 * @msg:	ICMPv6 message
 * @len:	its length
 * @out:	output buffer, OUT_SIZE bytes
 * @rdst:	reply destination, filled in
 *
 * Return: what ndp_reply() returned
 */
static size_t reply(const char *src, const char *dst, const uint8_t *msg,
		    size_t len, uint8_t *out, struct in6_addr *rdst)
{
	struct in6_addr s = unit_a6(src), d = unit_a6(dst);
	uint8_t *copy = malloc(len ? len : 1);
	struct pkt p = { .data = copy, .len = len };
	size_t ret;

	assert_non_null(copy);
	memcpy(copy, msg, len);
	ret = ndp_reply(&conf, &s, &d, &p, out, OUT_SIZE, rdst);
	free(copy);
	return ret;
}

/**
 * put_slla() - append a Source Link-Layer Address option
 * @b:		where to write 8 bytes
 *
 * Return: 8
 */
static size_t put_slla(uint8_t *b)
{
	static const uint8_t guest[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

	b[0] = 1;
	b[1] = 1;
	memcpy(b + 2, guest, sizeof(guest));
	return 8;
}

/**
 * make_rs() - craft a Router Solicitation
 * @b:		buffer, at least 16 bytes
 * @slla:	append a Source Link-Layer Address option
 *
 * Return: message length
 */
static size_t make_rs(uint8_t *b, bool slla)
{
	memset(b, 0, 8);
	b[0] = 133;
	return 8 + (slla ? put_slla(b + 8) : 0);
}

/**
 * make_ns() - craft a Neighbour Solicitation
 * @b:		buffer, at least 32 bytes
 * @target:	target address text
 * @slla:	append a Source Link-Layer Address option
 *
 * Return: message length
 */
static size_t make_ns(uint8_t *b, const char *target, bool slla)
{
	struct in6_addr t = unit_a6(target);

	memset(b, 0, 24);
	b[0] = 135;
	memcpy(b + 8, &t, 16);
	return 24 + (slla ? put_slla(b + 24) : 0);
}

/**
 * check_na() - check a Neighbour Advertisement from netshim
 * @na:		the advertisement
 * @len:	its length
 * @target:	expected target address text
 */
static void check_na(const uint8_t *na, size_t len, const char *target)
{
	struct in6_addr t = unit_a6(target);

	assert_int_equal(len, NA_FULL_LEN);
	assert_int_equal(na[0], 136);
	assert_int_equal(na[1], 0);
	assert_int_equal(rd16(na + 2), 0);
	assert_int_equal(rd32(na + 4), 0xe0000000);	/* R, S, O */
	assert_memory_equal(na + 8, &t, 16);
	assert_int_equal(na[24], 2);
	assert_int_equal(na[25], 1);
	assert_memory_equal(na + 26, mac, 6);
}

/**
 * find_opt() - find an option in an RA
 * @ra:		the RA
 * @len:	its length
 * @type:	option type
 *
 * Return: offset of the first option of @type, or 0 if there is none
 */
static size_t find_opt(const uint8_t *ra, size_t len, uint8_t type)
{
	size_t off = 16;

	while (off + 2 <= len && ra[off + 1]) {
		if (ra[off] == type)
			return off;
		off += ra[off + 1] * 8;
	}
	return 0;
}

/* The reference RA, every byte of it */
static void test_ra_bytes(void **state)
{
	static const uint8_t dnssl_names[16] = {
		7, 'n', 'e', 't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0,
		0, 0
	};
	struct in6_addr prefix = unit_a6("2001:db8:1::"), dns = unit_a6("2001:db8:1::1");
	uint8_t ra[OUT_SIZE];
	size_t len;

	(void)state;
	memset(ra, 0xaa, sizeof(ra));
	len = ndp_ra_build(&conf, ra, sizeof(ra));
	assert_int_equal(len, RA_FULL_LEN);

	assert_int_equal(ra[0], 134);
	assert_int_equal(ra[1], 0);
	assert_int_equal(rd16(ra + 2), 0);
	assert_int_equal(ra[4], 64);
	assert_int_equal(ra[5], 0xc0);			/* M, O */
	assert_int_equal(rd16(ra + 6), 65535);
	assert_int_equal(rd32(ra + 8), 0);
	assert_int_equal(rd32(ra + 12), 0);

	/* options in a fixed order: SLLA, MTU, PIO, RDNSS, DNSSL */
	assert_int_equal(ra[16], 1);
	assert_int_equal(ra[17], 1);
	assert_memory_equal(ra + 18, mac, 6);

	assert_int_equal(ra[24], 5);
	assert_int_equal(ra[25], 1);
	assert_int_equal(rd16(ra + 26), 0);
	assert_int_equal(rd32(ra + 28), 1500);

	assert_int_equal(ra[32], 3);
	assert_int_equal(ra[33], 4);
	assert_int_equal(ra[34], 64);
	assert_int_equal(ra[35], 0xc0);			/* L, A */
	assert_int_equal(rd32(ra + 36), 0xffffffff);
	assert_int_equal(rd32(ra + 40), 0xffffffff);
	assert_int_equal(rd32(ra + 44), 0);
	assert_memory_equal(ra + 48, &prefix, 16);

	assert_int_equal(ra[64], 25);
	assert_int_equal(ra[65], 3);
	assert_int_equal(rd16(ra + 66), 0);
	assert_int_equal(rd32(ra + 68), 0xffffffff);
	assert_memory_equal(ra + 72, &dns, 16);

	assert_int_equal(ra[88], 31);
	assert_int_equal(ra[89], 3);
	assert_int_equal(rd16(ra + 90), 0);
	assert_int_equal(rd32(ra + 92), 0xffffffff);
	assert_memory_equal(ra + 96, dnssl_names, sizeof(dnssl_names));

	assert_int_equal(ra[RA_FULL_LEN], 0xaa);	/* untouched */
}

/* IPv6 off, NDP off or RAs off: nothing to advertise */
static void test_ra_disabled(void **state)
{
	uint8_t ra[OUT_SIZE];

	(void)state;
	conf.v6 = false;
	assert_int_equal(ndp_ra_build(&conf, ra, sizeof(ra)), 0);
	conf.v6 = true;
	conf.no_ndp = true;
	assert_int_equal(ndp_ra_build(&conf, ra, sizeof(ra)), 0);
	conf.no_ndp = false;
	conf.no_ra = true;
	assert_int_equal(ndp_ra_build(&conf, ra, sizeof(ra)), 0);
}

/* Every output size short of the full RA gives 0, and no write past it */
static void test_ra_small_buffer(void **state)
{
	size_t size;

	(void)state;
	for (size = 0; size <= RA_FULL_LEN; size++) {
		uint8_t *out = malloc(size ? size : 1);
		size_t len;

		assert_non_null(out);
		len = ndp_ra_build(&conf, out, size);
		assert_int_equal(len, size == RA_FULL_LEN ? RA_FULL_LEN : 0);
		free(out);
	}
}

/* No resolvers, no search list, MTU too small for IPv6: options left out */
static void test_ra_optional_options(void **state)
{
	uint8_t ra[OUT_SIZE];
	size_t len;

	(void)state;
	conf.n_dns6 = 0;
	conf.n_search = 0;
	conf.mtu = 1279;
	len = ndp_ra_build(&conf, ra, sizeof(ra));
	assert_int_equal(len, 16 + 8 + 32);
	assert_int_equal(ra[16], 1);
	assert_int_equal(ra[24], 3);

	conf.mtu = 1280;
	len = ndp_ra_build(&conf, ra, sizeof(ra));
	assert_int_equal(len, 16 + 8 + 8 + 32);
	assert_int_equal(rd32(ra + find_opt(ra, len, 5) + 4), 1280);

	conf.mtu = 65536;	/* 32-bit field: still advertised */
	len = ndp_ra_build(&conf, ra, sizeof(ra));
	assert_int_equal(rd32(ra + find_opt(ra, len, 5) + 4), 65536);
}

/* Whatever the pod's prefix length, the guest gets the /64 holding its
 * address, on-link and autonomous: RFC 4862 5.5.3 forms an address only
 * where prefix and 64-bit interface identifier make 128 bits, and a pod with
 * a /128 (common in clusters) would leave a SLAAC guest without one.
 */
static void test_ra_prefix_not_64(void **state)
{
	struct in6_addr want;
	uint8_t ra[OUT_SIZE];
	size_t len, pio;

	(void)state;
	conf.addr6 = unit_a6("2001:db8:1:ff:abcd::2");
	conf.prefix6 = 61;
	len = ndp_ra_build(&conf, ra, sizeof(ra));
	pio = find_opt(ra, len, 3);
	assert_int_not_equal(pio, 0);
	assert_int_equal(ra[pio + 2], 64);
	assert_int_equal(ra[pio + 3], 0xc0);		/* L and A */
	want = unit_a6("2001:db8:1:ff::");
	assert_memory_equal(ra + pio + 16, &want, 16);

	conf.prefix6 = 128;
	len = ndp_ra_build(&conf, ra, sizeof(ra));
	pio = find_opt(ra, len, 3);
	assert_int_equal(ra[pio + 2], 64);
	assert_int_equal(ra[pio + 3], 0xc0);
	assert_memory_equal(ra + pio + 16, &want, 16);

	conf.prefix6 = 0;	/* nothing sensible to advertise */
	len = ndp_ra_build(&conf, ra, sizeof(ra));
	assert_int_equal(find_opt(ra, len, 3), 0);
	assert_int_equal(ra[5], 0xc0);
}

/* Several resolvers and domains; names that aren't valid DNS are skipped */
static void test_ra_dns_lists(void **state)
{
	static const uint8_t names[] = {
		1, 'a', 0,
		3, 'e', 'x', 'a', 3, 'c', 'o', 'm', 0,	/* trailing dot */
		7, 'n', 'e', 't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0,
	};
	struct in6_addr d1 = unit_a6("2001:db8:1::1"), d2 = unit_a6("2001:db8:2::53");
	uint8_t ra[OUT_SIZE];
	size_t len, off, units;

	(void)state;
	conf.n_dns6 = 2;
	conf.dns6[1] = d2;
	conf.n_search = 6;
	strcpy(conf.search[0], "a");
	strcpy(conf.search[1], "exa.com.");
	strcpy(conf.search[2], "bad..label");
	memset(conf.search[3], 'x', 64);	/* 64-byte label */
	conf.search[3][64] = '\0';
	strcpy(conf.search[4], "");
	strcpy(conf.search[5], "netshim.test");

	len = ndp_ra_build(&conf, ra, sizeof(ra));
	off = find_opt(ra, len, 25);
	assert_int_equal(ra[off + 1], 5);
	assert_memory_equal(ra + off + 8, &d1, 16);
	assert_memory_equal(ra + off + 24, &d2, 16);

	off = find_opt(ra, len, 31);
	assert_int_not_equal(off, 0);
	units = (8 + sizeof(names) + 7) / 8;
	assert_int_equal(ra[off + 1], units);
	assert_int_equal(off + units * 8, len);
	assert_memory_equal(ra + off + 8, names, sizeof(names));
	for (off += 8 + sizeof(names); off < len; off++)
		assert_int_equal(ra[off], 0);

	conf.n_search = 1;
	strcpy(conf.search[0], ".");	/* the root is no search domain */
	len = ndp_ra_build(&conf, ra, sizeof(ra));
	assert_int_equal(find_opt(ra, len, 31), 0);
}

/* Long search lists are cut so the RA fits one minimum-MTU packet */
static void test_ra_dnssl_fits_min_mtu(void **state)
{
	uint8_t ra[OUT_SIZE];
	size_t len, off;
	int i;

	(void)state;
	conf.n_search = CONF_MAX_SEARCH;
	for (i = 0; i < CONF_MAX_SEARCH; i++) {
		char *s = conf.search[i];

		/* 63.63.63.61: 253 characters, 255 bytes on the wire */
		memset(s, 'a' + i, 253);
		s[63] = s[127] = s[191] = '.';
		s[253] = '\0';
	}
	len = ndp_ra_build(&conf, ra, sizeof(ra));
	assert_true(len <= 1280 - 40);
	off = find_opt(ra, len, 31);
	assert_int_equal(off, 88);
	/* four names fit after 88 bytes of other options, a fifth does not */
	assert_int_equal(ra[off + 1], (8 + 4 * 255 + 7) / 8);
	assert_int_equal(len, off + ra[off + 1] * 8);
	assert_int_equal(ra[off + 8], 63);
	assert_int_equal(ra[off + 9], 'a');
	assert_int_equal(ra[off + 8 + 3 * 255 + 1], 'd');
}

/* RS from a link-local address: RA sent back to it */
static void test_rs_reply(void **state)
{
	uint8_t rs[16], out[OUT_SIZE], ra[OUT_SIZE];
	struct in6_addr rdst, want = unit_a6("fe80::5054:ff:fe12:3456");
	size_t len;

	(void)state;
	len = reply("fe80::5054:ff:fe12:3456", "ff02::2", rs,
		    make_rs(rs, true), out, &rdst);
	assert_int_equal(len, RA_FULL_LEN);
	assert_int_equal(ndp_ra_build(&conf, ra, sizeof(ra)), len);
	assert_memory_equal(out, ra, len);
	assert_memory_equal(&rdst, &want, 16);

	len = reply("fe80::5054:ff:fe12:3456", "ff02::2", rs,
		    make_rs(rs, false), out, &rdst);
	assert_int_equal(len, RA_FULL_LEN);
}

/* RS from ::: RA to all nodes, but only without a link-layer address */
static void test_rs_unspecified(void **state)
{
	struct in6_addr rdst, want = unit_a6("ff02::1");
	uint8_t rs[16], out[OUT_SIZE];

	(void)state;
	assert_int_equal(reply("::", "ff02::2", rs, make_rs(rs, false), out,
			       &rdst), RA_FULL_LEN);
	assert_memory_equal(&rdst, &want, 16);

	assert_int_equal(reply("::", "ff02::2", rs, make_rs(rs, true), out,
			       &rdst), 0);
}

/* RS with a bad code, too short, or with broken options: ignored */
static void test_rs_malformed(void **state)
{
	uint8_t rs[32], out[OUT_SIZE];
	struct in6_addr rdst;
	size_t len;

	(void)state;
	len = make_rs(rs, true);
	rs[1] = 1;
	assert_int_equal(reply("fe80::2", "ff02::2", rs, len, out, &rdst), 0);

	make_rs(rs, true);
	assert_int_equal(reply("fe80::2", "ff02::2", rs, 7, out, &rdst), 0);

	rs[9] = 0;					/* zero length */
	assert_int_equal(reply("fe80::2", "ff02::2", rs, len, out, &rdst), 0);

	rs[9] = 2;					/* 16 bytes in 8 */
	assert_int_equal(reply("fe80::2", "ff02::2", rs, len, out, &rdst), 0);

	make_rs(rs, true);
	rs[16] = 14;					/* lone type byte */
	assert_int_equal(reply("fe80::2", "ff02::2", rs, 17, out, &rdst), 0);

	rs[17] = 1;					/* now complete */
	memset(rs + 18, 0, 6);
	assert_int_equal(reply("fe80::2", "ff02::2", rs, 24, out, &rdst),
			 RA_FULL_LEN);
}

/* NS for the gateway, by address resolution and by NUD */
static void test_ns_gateway(void **state)
{
	struct in6_addr rdst, want = unit_a6("fe80::2");
	uint8_t ns[32], out[OUT_SIZE];
	size_t len;

	(void)state;
	memset(&rdst, 0, sizeof(rdst));
	len = reply("fe80::2", "ff02::1:ff00:1", ns,
		    make_ns(ns, "fe80::1", true), out, &rdst);
	check_na(out, len, "fe80::1");
	assert_memory_equal(&rdst, &want, 16);

	len = reply("fe80::2", "fe80::1", ns, make_ns(ns, "fe80::1", false),
		    out, &rdst);
	check_na(out, len, "fe80::1");
}

/* NS for any other host, on the prefix or not: netshim answers for it */
static void test_ns_other_host(void **state)
{
	struct in6_addr rdst, want = unit_a6("2001:db8:1::2");
	uint8_t ns[32], out[OUT_SIZE];
	size_t len;

	(void)state;
	len = reply("2001:db8:1::2", "ff02::1:ff00:99", ns,
		    make_ns(ns, "2001:db8:1::99", true), out, &rdst);
	check_na(out, len, "2001:db8:1::99");
	assert_memory_equal(&rdst, &want, 16);

	len = reply("2001:db8:1::2", "2001:db8:7::abcd:1234", ns,
		    make_ns(ns, "2001:db8:7::abcd:1234", false), out, &rdst);
	check_na(out, len, "2001:db8:7::abcd:1234");

	len = reply("fe80::2", "ff02::1:ff12:3456", ns,
		    make_ns(ns, "fe80::5054:ff:fe12:3456", true), out, &rdst);
	check_na(out, len, "fe80::5054:ff:fe12:3456");
}

/* Duplicate Address Detection probes are never answered */
static void test_ns_dad(void **state)
{
	uint8_t ns[32], out[OUT_SIZE];
	struct in6_addr rdst;

	(void)state;
	assert_int_equal(reply("::", "ff02::1:ff00:2", ns,
			       make_ns(ns, "2001:db8:1::2", false), out,
			       &rdst), 0);
	assert_int_equal(reply("::", "ff02::1:ff12:3456", ns,
			       make_ns(ns, "fe80::5054:ff:fe12:3456", false),
			       out, &rdst), 0);
	assert_int_equal(reply("::", "ff02::1:ff00:1", ns,
			       make_ns(ns, "fe80::1", false), out, &rdst), 0);
	assert_int_equal(reply("::", "ff02::1:ff00:99", ns,
			       make_ns(ns, "2001:db8:1::99", false), out,
			       &rdst), 0);
}

/**
 * dad() - run ndp_dad_probe() on a copy of a message of exactly its length
 * @src:	IPv6 source text
 * @dst:	IPv6 destination text
 * @msg:	ICMPv6 message
 * @len:	its length
 * @target:	probed address, filled in
 *
 * Return: what ndp_dad_probe() returned
 */
static bool dad(const char *src, const char *dst, const uint8_t *msg,
		size_t len, struct in6_addr *target)
{
	struct in6_addr s = unit_a6(src), d = unit_a6(dst);
	uint8_t *copy = malloc(len ? len : 1);
	struct pkt p = { .data = copy, .len = len };
	bool ret;

	assert_non_null(copy);
	memcpy(copy, msg, len);
	ret = ndp_dad_probe(&s, &d, &p, target);
	free(copy);
	return ret;
}

/* RFC 4862 5.4.2: a probe comes from ::, goes to the target's solicited-node
 * group and carries no source link-layer option; it names the address the
 * guest is about to use, whatever way the guest made it
 */
static void test_dad_probe(void **state)
{
	struct in6_addr t, want = unit_a6("2001:db8:1:0:5054:ff:fe12:3456");
	uint8_t ns[32];
	size_t len;

	(void)state;
	len = make_ns(ns, "2001:db8:1:0:5054:ff:fe12:3456", false);
	assert_true(dad("::", "ff02::1:ff12:3456", ns, len, &t));
	assert_memory_equal(&t, &want, 16);

	/* Not a probe: a source address, an option, the wrong group,
	 * unicast to the target, cut short, or another message type
	 */
	assert_false(dad("fe80::2", "ff02::1:ff12:3456", ns, len, &t));
	assert_false(dad("::", "ff02::1:ff12:3457", ns, len, &t));
	assert_false(dad("::", "2001:db8:1:0:5054:ff:fe12:3456", ns, len, &t));
	assert_false(dad("::", "ff02::1:ff12:3456", ns, len - 1, &t));
	len = make_ns(ns, "2001:db8:1:0:5054:ff:fe12:3456", true);
	assert_false(dad("::", "ff02::1:ff12:3456", ns, len, &t));
	len = make_ns(ns, "2001:db8:1:0:5054:ff:fe12:3456", false);
	ns[0] = 136;
	assert_false(dad("::", "ff02::1:ff12:3456", ns, len, &t));
}

/* The guest's own addresses belong to the guest */
static void test_ns_own_address(void **state)
{
	uint8_t ns[32], out[OUT_SIZE];
	struct in6_addr rdst;

	(void)state;
	assert_int_equal(reply("fe80::2", "ff02::1:ff00:2", ns,
			       make_ns(ns, "2001:db8:1::2", true), out,
			       &rdst), 0);
	assert_int_equal(reply("2001:db8:1::2", "2001:db8:1::2", ns,
			       make_ns(ns, "2001:db8:1::2", false), out,
			       &rdst), 0);
	assert_int_equal(reply("fe80::2", "ff02::1:ff00:2", ns,
			       make_ns(ns, "fe80::2", true), out, &rdst), 0);
}

/* Multicast and unspecified targets, multicast sources: no answer */
static void test_ns_bad_target(void **state)
{
	uint8_t ns[32], out[OUT_SIZE];
	struct in6_addr rdst;

	(void)state;
	assert_int_equal(reply("fe80::2", "ff02::1", ns,
			       make_ns(ns, "ff02::1", true), out, &rdst), 0);
	assert_int_equal(reply("fe80::2", "ff02::1:ff00:1", ns,
			       make_ns(ns, "ff02::1:ff00:1", true), out,
			       &rdst), 0);
	assert_int_equal(reply("fe80::2", "ff02::1:ff00:0", ns,
			       make_ns(ns, "::", true), out, &rdst), 0);
	assert_int_equal(reply("ff02::2", "ff02::1:ff00:1", ns,
			       make_ns(ns, "fe80::1", true), out, &rdst), 0);
}

/* NS sent somewhere else than the target or its solicited-node group */
static void test_ns_wrong_destination(void **state)
{
	uint8_t ns[32], out[OUT_SIZE];
	struct in6_addr rdst;

	(void)state;
	assert_int_equal(reply("fe80::2", "ff02::1", ns,
			       make_ns(ns, "fe80::1", true), out, &rdst), 0);
	assert_int_equal(reply("fe80::2", "ff02::1:ff00:5", ns,
			       make_ns(ns, "fe80::1", true), out, &rdst), 0);
	assert_int_equal(reply("fe80::2", "ff05::1:ff00:1", ns,
			       make_ns(ns, "fe80::1", true), out, &rdst), 0);
	assert_int_equal(reply("fe80::2", "fe80::9", ns,
			       make_ns(ns, "fe80::1", true), out, &rdst), 0);
}

/* NS with a bad code, too short, or with broken options: ignored */
static void test_ns_malformed(void **state)
{
	uint8_t ns[48], out[OUT_SIZE];
	struct in6_addr rdst;
	size_t len;

	(void)state;
	len = make_ns(ns, "fe80::1", true);
	ns[1] = 1;
	assert_int_equal(reply("fe80::2", "fe80::1", ns, len, out, &rdst), 0);

	make_ns(ns, "fe80::1", true);
	assert_int_equal(reply("fe80::2", "fe80::1", ns, 23, out, &rdst), 0);

	ns[25] = 0;
	assert_int_equal(reply("fe80::2", "fe80::1", ns, len, out, &rdst), 0);

	ns[25] = 3;
	assert_int_equal(reply("fe80::2", "fe80::1", ns, len, out, &rdst), 0);

	/* a valid option followed by a zero-length one */
	make_ns(ns, "fe80::1", true);
	memset(ns + 32, 0, 16);
	ns[32] = 14;
	assert_int_equal(reply("fe80::2", "fe80::1", ns, 40, out, &rdst), 0);
	ns[33] = 2;
	assert_int_equal(reply("fe80::2", "fe80::1", ns, 48, out, &rdst),
			 NA_FULL_LEN);
}

/* NA, RA, Redirect, echo and empty messages get no reply here */
static void test_other_types(void **state)
{
	static const uint8_t types[] = { 0, 1, 128, 129, 134, 136, 137, 255 };
	uint8_t msg[32], out[OUT_SIZE];
	struct in6_addr rdst;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(types); i++) {
		make_ns(msg, "fe80::1", true);
		msg[0] = types[i];
		assert_int_equal(reply("fe80::2", "fe80::1", msg, 32, out,
				       &rdst), 0);
	}
	assert_int_equal(reply("fe80::2", "fe80::1", msg, 0, out, &rdst), 0);
}

/* With NDP or IPv6 off nothing is answered; with RAs off NS still is */
static void test_reply_disabled(void **state)
{
	uint8_t msg[32], out[OUT_SIZE];
	struct in6_addr rdst;

	(void)state;
	conf.no_ra = true;
	assert_int_equal(reply("fe80::2", "ff02::2", msg, make_rs(msg, true),
			       out, &rdst), 0);
	assert_int_equal(reply("fe80::2", "fe80::1", msg,
			       make_ns(msg, "fe80::1", true), out, &rdst),
			 NA_FULL_LEN);
	conf.no_ndp = true;
	assert_int_equal(reply("fe80::2", "fe80::1", msg,
			       make_ns(msg, "fe80::1", true), out, &rdst), 0);
	conf.no_ndp = false;
	conf.v6 = false;
	assert_int_equal(reply("fe80::2", "fe80::1", msg,
			       make_ns(msg, "fe80::1", true), out, &rdst), 0);
}

/* A reply that doesn't fit the output buffer is not sent */
static void test_reply_small_buffer(void **state)
{
	struct in6_addr s = unit_a6("fe80::2"), d = unit_a6("fe80::1"), rdst;
	uint8_t msg[32], out[NA_FULL_LEN];
	struct pkt p = { .data = msg };

	(void)state;
	p.len = make_ns(msg, "fe80::1", true);
	assert_int_equal(ndp_reply(&conf, &s, &d, &p, out, NA_FULL_LEN - 1,
				   &rdst), 0);
	assert_int_equal(ndp_reply(&conf, &s, &d, &p, out, NA_FULL_LEN,
				   &rdst), NA_FULL_LEN);

	d = unit_a6("ff02::2");
	p.len = make_rs(msg, true);
	assert_int_equal(ndp_reply(&conf, &s, &d, &p, out, sizeof(out),
				   &rdst), 0);
}

/* Every truncation: a reply only where the cut falls on an option edge */
static void test_truncations(void **state)
{
	uint8_t rs[32], ns[48], out[OUT_SIZE];
	struct in6_addr rdst;
	size_t n, len;

	(void)state;
	make_rs(rs, true);
	memset(rs + 16, 0, 16);
	rs[16] = 14;
	rs[17] = 2;					/* 16-byte option */
	for (n = 0; n <= sizeof(rs); n++) {
		len = reply("fe80::2", "ff02::2", rs, n, out, &rdst);
		if (n == 8 || n == 16 || n == 32)
			assert_int_equal(len, RA_FULL_LEN);
		else
			assert_int_equal(len, 0);
	}

	make_ns(ns, "fe80::1", true);
	memset(ns + 32, 0, 16);
	ns[32] = 14;
	ns[33] = 2;
	for (n = 0; n <= sizeof(ns); n++) {
		len = reply("fe80::2", "ff02::1:ff00:1", ns, n, out, &rdst);
		if (n == 24 || n == 32 || n == 48)
			check_na(out, len, "fe80::1");
		else
			assert_int_equal(len, 0);
	}
}

/* Random bytes behind valid headers: never a crash or a wrong length */
static void test_random_options(void **state)
{
	uint8_t msg[96], out[OUT_SIZE];
	struct in6_addr rdst;
	unsigned int seed = 1;
	int i;

	(void)state;
	for (i = 0; i < 20000; i++) {
		size_t n, len, j;

		for (j = 0; j < sizeof(msg); j++)
			msg[j] = (uint8_t)rand_r(&seed);
		n = (size_t)rand_r(&seed) % (sizeof(msg) + 1);
		if (i & 1) {
			make_ns(msg, "fe80::1", false);
			len = reply("fe80::2", "fe80::1", msg, n, out, &rdst);
			assert_true(len == 0 || len == NA_FULL_LEN);
		} else {
			make_rs(msg, false);
			len = reply("fe80::2", "ff02::2", msg, n, out, &rdst);
			assert_true(len == 0 || len == RA_FULL_LEN);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ra_bytes, conf_setup),
		cmocka_unit_test_setup(test_ra_disabled, conf_setup),
		cmocka_unit_test_setup(test_ra_small_buffer, conf_setup),
		cmocka_unit_test_setup(test_ra_optional_options, conf_setup),
		cmocka_unit_test_setup(test_ra_prefix_not_64, conf_setup),
		cmocka_unit_test_setup(test_ra_dns_lists, conf_setup),
		cmocka_unit_test_setup(test_ra_dnssl_fits_min_mtu, conf_setup),
		cmocka_unit_test_setup(test_rs_reply, conf_setup),
		cmocka_unit_test_setup(test_rs_unspecified, conf_setup),
		cmocka_unit_test_setup(test_rs_malformed, conf_setup),
		cmocka_unit_test_setup(test_ns_gateway, conf_setup),
		cmocka_unit_test_setup(test_ns_other_host, conf_setup),
		cmocka_unit_test_setup(test_ns_dad, conf_setup),
		cmocka_unit_test_setup(test_dad_probe, conf_setup),
		cmocka_unit_test_setup(test_ns_own_address, conf_setup),
		cmocka_unit_test_setup(test_ns_bad_target, conf_setup),
		cmocka_unit_test_setup(test_ns_wrong_destination, conf_setup),
		cmocka_unit_test_setup(test_ns_malformed, conf_setup),
		cmocka_unit_test_setup(test_other_types, conf_setup),
		cmocka_unit_test_setup(test_reply_disabled, conf_setup),
		cmocka_unit_test_setup(test_reply_small_buffer, conf_setup),
		cmocka_unit_test_setup(test_truncations, conf_setup),
		cmocka_unit_test_setup(test_random_options, conf_setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
