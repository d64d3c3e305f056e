// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of IPv4 and IPv6 validation and layer-4 checksums
 *
 * Packets are built byte by byte, checksums with a byte-wise RFC 1071
 * reference independent of checksum.c, and every packet is parsed from a
 * heap buffer of its exact length, so that ASan reports any read past it.
 */
#include <stdlib.h>

#include "unit.h"
#include "netshim/ctx.h"
#include "netshim/inany.h"
#include "net/ip.h"
#include "link/link.h"

#define PKT_MAX		1024
#define EXT_HBH		0
#define EXT_ROUTING	43
#define EXT_FRAGMENT	44
#define EXT_DSTOPTS	60

/**
 * struct parsed - outcome of a parse, pointers turned into offsets
 * @rc:		return code
 * @m:		metadata filled in
 * @l4off:	offset of the layer-4 part in the packet
 * @l4len:	its length
 */
struct parsed {
	int rc;
	struct l4_meta m;
	size_t l4off, l4len;
};

/**
 * ref_sum() - RFC 1071 as written: 16-bit big-endian words, byte by byte
 * @b:		bytes
 * @len:	their number
 * @sum:	running sum to start from
 *
 * Return: the running sum, not folded
 */
static uint32_t ref_sum(const uint8_t *b, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	return sum;
}

/**
 * ref_fold() - fold a running sum into a checksum field value
 * @sum:	running sum
 *
 * Return: the checksum
 */
static uint16_t ref_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/**
 * ip4_build() - an IPv4 header, options as NOPs, right checksum
 * @b:		buffer, the header goes at its start
 * @ihl:	header length in 32-bit words (also written to the field)
 * @tot:	total length field
 * @frag:	flags and fragment offset field
 * @proto:	protocol
 */
static void ip4_build(uint8_t *b, unsigned int ihl, uint16_t tot,
		      uint16_t frag, uint8_t proto)
{
	struct in_addr s = unit_a4("203.0.113.10"), d = unit_a4("198.51.100.7");
	size_t hl = ihl < 5 ? 20 : ihl * 4;
	uint16_t c;

	memset(b, 1, hl);
	b[0] = (uint8_t)(0x40 | ihl);
	b[1] = 0;
	b[2] = tot >> 8;
	b[3] = tot & 0xff;
	b[4] = 0x12;
	b[5] = 0x34;
	b[6] = frag >> 8;
	b[7] = frag & 0xff;
	b[8] = 63;
	b[9] = proto;
	b[10] = 0;
	b[11] = 0;
	memcpy(b + 12, &s, 4);
	memcpy(b + 16, &d, 4);
	c = ref_fold(ref_sum(b, hl, 0));
	b[10] = c >> 8;
	b[11] = c & 0xff;
}

/**
 * ip6_build() - an IPv6 header
 * @b:		buffer, the header goes at its start
 * @plen:	payload length field
 * @nh:		next header
 */
static void ip6_build(uint8_t *b, uint16_t plen, uint8_t nh)
{
	struct in6_addr s = unit_a6("2001:db8:1::2"), d = unit_a6("2001:db8:2::7");

	b[0] = 0x60;
	b[1] = 0x01;
	b[2] = 0x23;
	b[3] = 0x45;
	b[4] = plen >> 8;
	b[5] = plen & 0xff;
	b[6] = nh;
	b[7] = 62;
	memcpy(b + 8, &s, 16);
	memcpy(b + 24, &d, 16);
}

/**
 * ext_put() - an extension header of @units 8-octet units
 * @b:		where it goes
 * @nh:		next header
 * @units:	length in 8-octet units, at least 1
 *
 * Return: its length in bytes
 */
static size_t ext_put(uint8_t *b, uint8_t nh, unsigned int units)
{
	memset(b, 0, units * 8);	/* Pad1 options, routing type 0 */
	b[0] = nh;
	b[1] = (uint8_t)(units - 1);
	return units * 8;
}

/**
 * parse_exact() - ip4_parse() or ip6_parse() on an exact heap copy
 * @v6:		IPv6 (else IPv4)
 * @b:		packet
 * @len:	its length (with any padding)
 *
 * Return: the outcome
 */
static struct parsed parse_exact(bool v6, const uint8_t *b, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct parsed r = { 0 };
	struct pkt p, l4 = { NULL, 0 };

	assert_non_null(copy);
	memcpy(copy, b, len);
	p.data = copy;
	p.len = len;
	r.rc = v6 ? ip6_parse(&p, &r.m, &l4) : ip4_parse(&p, &r.m, &l4);
	if (!r.rc) {
		assert_true(l4.data >= copy && l4.data + l4.len <= copy + len);
		r.l4off = (size_t)(l4.data - copy);
		r.l4len = l4.len;
	}
	free(copy);
	return r;
}

/**
 * assert_v4_meta() - addresses, protocol and TTL of ip4_build() packets
 * @m:		metadata
 * @proto:	expected protocol
 */
static void assert_v4_meta(const struct l4_meta *m, uint8_t proto)
{
	struct in6_addr s = inany_from4(unit_a4("203.0.113.10"));
	struct in6_addr d = inany_from4(unit_a4("198.51.100.7"));

	assert_memory_equal(&m->src, &s, 16);
	assert_memory_equal(&m->dst, &d, 16);
	assert_int_equal(m->proto, proto);
	assert_int_equal(m->hop, 63);
	assert_false(m->v6);
}

/**
 * test_ip4_valid() - a plain IPv4 packet: meta and layer 4 extracted
 * @state:	cmocka state, unused
 */
static void test_ip4_valid(void **state)
{
	uint8_t b[PKT_MAX];
	struct parsed r;

	(void)state;
	ip4_build(b, 5, 48, 0, IPPROTO_UDP);
	r = parse_exact(false, b, 48);
	assert_int_equal(r.rc, 0);
	assert_v4_meta(&r.m, IPPROTO_UDP);
	assert_int_equal(r.l4off, 20);
	assert_int_equal(r.l4len, 28);

	/* header only, no payload */
	ip4_build(b, 5, 20, 0, IPPROTO_TCP);
	r = parse_exact(false, b, 20);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.l4off, 20);
	assert_int_equal(r.l4len, 0);
}

/**
 * test_ip4_options() - IHL 6 to 15: layer 4 starts after the options
 * @state:	cmocka state, unused
 */
static void test_ip4_options(void **state)
{
	uint8_t b[PKT_MAX];
	unsigned int ihl;
	struct parsed r;

	(void)state;
	for (ihl = 6; ihl <= 15; ihl++) {
		ip4_build(b, ihl, (uint16_t)(ihl * 4 + 8), 0, IPPROTO_ICMP);
		r = parse_exact(false, b, ihl * 4 + 8);
		assert_int_equal(r.rc, 0);
		assert_v4_meta(&r.m, IPPROTO_ICMP);
		assert_int_equal(r.l4off, ihl * 4);
		assert_int_equal(r.l4len, 8);
	}
}

/**
 * test_ip4_padding_trimmed() - Ethernet padding is not layer-4 payload
 * @state:	cmocka state, unused
 */
static void test_ip4_padding_trimmed(void **state)
{
	uint8_t b[PKT_MAX];
	struct parsed r;

	(void)state;
	memset(b, 0xee, sizeof(b));
	ip4_build(b, 5, 28, 0, IPPROTO_UDP);
	r = parse_exact(false, b, 46);	/* minimum Ethernet payload */
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.l4off, 20);
	assert_int_equal(r.l4len, 8);
}

/**
 * test_ip4_bad_version() - anything but 4 in the version field
 * @state:	cmocka state, unused
 */
static void test_ip4_bad_version(void **state)
{
	uint8_t b[PKT_MAX];
	unsigned int v;

	(void)state;
	for (v = 0; v < 16; v++) {
		if (v == 4)
			continue;
		ip4_build(b, 5, 40, 0, IPPROTO_UDP);
		b[0] = (uint8_t)(v << 4 | 5);
		assert_int_equal(parse_exact(false, b, 40).rc, -1);
	}
}

/**
 * test_ip4_short_ihl() - IHL 0 to 4 cannot hold a header
 * @state:	cmocka state, unused
 *
 * The checksum is right over 20 bytes, so only the IHL is wrong.
 */
static void test_ip4_short_ihl(void **state)
{
	uint8_t b[PKT_MAX];
	unsigned int ihl;

	(void)state;
	for (ihl = 0; ihl < 5; ihl++) {
		ip4_build(b, ihl, 40, 0, IPPROTO_UDP);
		assert_int_equal(parse_exact(false, b, 40).rc, -1);
	}
}

/**
 * test_ip4_total_length() - beyond the frame, or shorter than the header
 * @state:	cmocka state, unused
 */
static void test_ip4_total_length(void **state)
{
	uint8_t b[PKT_MAX];

	(void)state;
	ip4_build(b, 5, 41, 0, IPPROTO_UDP);
	assert_int_equal(parse_exact(false, b, 40).rc, -1);
	ip4_build(b, 5, 0xffff, 0, IPPROTO_UDP);
	assert_int_equal(parse_exact(false, b, 40).rc, -1);

	ip4_build(b, 5, 19, 0, IPPROTO_UDP);
	assert_int_equal(parse_exact(false, b, 40).rc, -1);
	ip4_build(b, 5, 0, 0, IPPROTO_UDP);
	assert_int_equal(parse_exact(false, b, 40).rc, -1);
	ip4_build(b, 6, 20, 0, IPPROTO_UDP);
	assert_int_equal(parse_exact(false, b, 40).rc, -1);
	ip4_build(b, 15, 59, 0, IPPROTO_UDP);
	assert_int_equal(parse_exact(false, b, 80).rc, -1);
	/* options beyond the frame */
	ip4_build(b, 15, 60, 0, IPPROTO_UDP);
	assert_int_equal(parse_exact(false, b, 40).rc, -1);
}

/**
 * test_ip4_bad_checksum() - any flipped header bit gives -3
 * @state:	cmocka state, unused
 */
static void test_ip4_bad_checksum(void **state)
{
	uint8_t b[PKT_MAX];
	size_t i;

	(void)state;
	ip4_build(b, 6, 40, 0, IPPROTO_UDP);
	assert_int_equal(parse_exact(false, b, 40).rc, 0);
	for (i = 8; i < 24; i++) {	/* fields not checked otherwise */
		b[i] ^= 0x04;
		assert_int_equal(parse_exact(false, b, 40).rc, -3);
		b[i] ^= 0x04;
	}
	/* the payload is not covered */
	b[30] ^= 0xff;
	assert_int_equal(parse_exact(false, b, 40).rc, 0);
}

/**
 * test_ip4_fragments() - MF or a non-zero offset: -2; DF alone is fine
 * @state:	cmocka state, unused
 */
static void test_ip4_fragments(void **state)
{
	static const uint16_t frag[] = { 0x2000, 0x0001, 0x1fff, 0x2001,
					 0x4001, 0x6000 };
	uint8_t b[PKT_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(frag) / sizeof(frag[0]); i++) {
		ip4_build(b, 5, 40, frag[i], IPPROTO_UDP);
		assert_int_equal(parse_exact(false, b, 40).rc, -2);
	}
	ip4_build(b, 5, 40, 0x4000, IPPROTO_UDP);
	assert_int_equal(parse_exact(false, b, 40).rc, 0);
}

/**
 * test_ip4_truncated() - every truncation is rejected, nothing read past
 * @state:	cmocka state, unused
 */
static void test_ip4_truncated(void **state)
{
	uint8_t b[PKT_MAX];
	size_t len;

	(void)state;
	ip4_build(b, 15, 80, 0, IPPROTO_TCP);
	for (len = 0; len < 80; len++)
		assert_int_equal(parse_exact(false, b, len).rc, -1);
	assert_int_equal(parse_exact(false, b, 80).rc, 0);
}

/**
 * assert_v6_meta() - addresses and hop limit of ip6_build() packets
 * @m:		metadata
 * @proto:	expected upper-layer protocol
 */
static void assert_v6_meta(const struct l4_meta *m, uint8_t proto)
{
	struct in6_addr s = unit_a6("2001:db8:1::2"), d = unit_a6("2001:db8:2::7");

	assert_memory_equal(&m->src, &s, 16);
	assert_memory_equal(&m->dst, &d, 16);
	assert_int_equal(m->proto, proto);
	assert_int_equal(m->hop, 62);
	assert_true(m->v6);
}

/**
 * test_ip6_valid() - no extension header; padding trimmed
 * @state:	cmocka state, unused
 */
static void test_ip6_valid(void **state)
{
	uint8_t b[PKT_MAX];
	struct parsed r;

	(void)state;
	memset(b, 0xee, sizeof(b));
	ip6_build(b, 8, IPPROTO_UDP);
	r = parse_exact(true, b, 48);
	assert_int_equal(r.rc, 0);
	assert_v6_meta(&r.m, IPPROTO_UDP);
	assert_int_equal(r.l4off, 40);
	assert_int_equal(r.l4len, 8);

	r = parse_exact(true, b, 60);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.l4len, 8);

	ip6_build(b, 0, IPPROTO_TCP);
	r = parse_exact(true, b, 40);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.l4off, 40);
	assert_int_equal(r.l4len, 0);
}

/**
 * chain_build() - hop-by-hop, routing, destination options, then TCP
 * @b:		buffer
 * @tcp_len:	bytes of TCP after the chain
 *
 * Return: packet length; the chain is 8 + 24 + 16 bytes
 */
static size_t chain_build(uint8_t *b, uint16_t tcp_len)
{
	size_t off = 40;

	ip6_build(b, (uint16_t)(48 + tcp_len), EXT_HBH);
	off += ext_put(b + off, EXT_ROUTING, 1);
	off += ext_put(b + off, EXT_DSTOPTS, 3);
	off += ext_put(b + off, IPPROTO_TCP, 2);
	memset(b + off, 0x99, tcp_len);
	return off + tcp_len;
}

/**
 * test_ip6_ext_chain() - extension headers are skipped to the TCP header
 * @state:	cmocka state, unused
 */
static void test_ip6_ext_chain(void **state)
{
	uint8_t b[PKT_MAX];
	struct parsed r;
	size_t len;

	(void)state;
	len = chain_build(b, 20);
	r = parse_exact(true, b, len);
	assert_int_equal(r.rc, 0);
	assert_v6_meta(&r.m, IPPROTO_TCP);
	assert_int_equal(r.l4off, 88);
	assert_int_equal(r.l4len, 20);
}

/**
 * test_ip6_fragment() - a fragment header, first or later in the chain
 * @state:	cmocka state, unused
 */
static void test_ip6_fragment(void **state)
{
	uint8_t b[PKT_MAX];

	(void)state;
	ip6_build(b, 16, EXT_FRAGMENT);
	ext_put(b + 40, IPPROTO_UDP, 1);
	assert_int_equal(parse_exact(true, b, 56).rc, -2);

	ip6_build(b, 24, EXT_HBH);
	ext_put(b + 40, EXT_FRAGMENT, 1);
	ext_put(b + 48, IPPROTO_UDP, 1);
	assert_int_equal(parse_exact(true, b, 64).rc, -2);
}

/**
 * test_ip6_ext_past_end() - an extension header longer than the payload
 * @state:	cmocka state, unused
 */
static void test_ip6_ext_past_end(void **state)
{
	uint8_t b[PKT_MAX];

	(void)state;
	/* 32 bytes announced, 16 there */
	ip6_build(b, 16, EXT_HBH);
	ext_put(b + 40, IPPROTO_UDP, 4);
	assert_int_equal(parse_exact(true, b, 56).rc, -1);

	/* not even the 8 bytes of the fixed part */
	ip6_build(b, 4, EXT_DSTOPTS);
	assert_int_equal(parse_exact(true, b, 44).rc, -1);
	ip6_build(b, 0, EXT_ROUTING);
	assert_int_equal(parse_exact(true, b, 40).rc, -1);

	/* within the frame, but in its padding, not in the payload */
	ip6_build(b, 8, EXT_HBH);
	ext_put(b + 40, IPPROTO_UDP, 2);
	assert_int_equal(parse_exact(true, b, 64).rc, -1);
}

/**
 * ext_many() - @n destination options headers, then 8 bytes of UDP
 * @b:		buffer
 * @n:		number of extension headers
 *
 * Return: packet length
 */
static size_t ext_many(uint8_t *b, unsigned int n)
{
	size_t off = 40;
	unsigned int i;

	ip6_build(b, (uint16_t)(n * 8 + 8), n ? EXT_DSTOPTS : IPPROTO_UDP);
	for (i = 0; i < n; i++)
		off += ext_put(b + off, i + 1 < n ? EXT_DSTOPTS : IPPROTO_UDP,
			       1);
	memset(b + off, 0, 8);
	return off + 8;
}

/**
 * test_ip6_ext_limit() - up to IP6_MAX_EXT_HDRS (8) headers are walked
 * @state:	cmocka state, unused
 */
static void test_ip6_ext_limit(void **state)
{
	uint8_t b[PKT_MAX];
	struct parsed r;
	unsigned int n;
	size_t len;

	(void)state;
	for (n = 0; n < 8; n++) {
		len = ext_many(b, n);
		r = parse_exact(true, b, len);
		assert_int_equal(r.rc, 0);
		assert_int_equal(r.m.proto, IPPROTO_UDP);
		assert_int_equal(r.l4off, 40 + n * 8);
		assert_int_equal(r.l4len, 8);
	}
	for (n = 9; n < 40; n++) {
		len = ext_many(b, n);
		assert_int_equal(parse_exact(true, b, len).rc, -1);
	}
}

/**
 * test_ip6_eight_ext_hdrs() - exactly IP6_MAX_EXT_HDRS headers are allowed
 * @state:	cmocka state, unused
 */
static void test_ip6_eight_ext_hdrs(void **state)
{
	uint8_t b[PKT_MAX];
	struct parsed r;
	size_t len;

	(void)state;
	len = ext_many(b, 8);
	r = parse_exact(true, b, len);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.m.proto, IPPROTO_UDP);
	assert_int_equal(r.l4off, 104);
	assert_int_equal(r.l4len, 8);
}

/**
 * test_ip6_bad_header() - wrong version, payload length beyond the frame
 * @state:	cmocka state, unused
 */
static void test_ip6_bad_header(void **state)
{
	uint8_t b[PKT_MAX];
	unsigned int v;

	(void)state;
	for (v = 0; v < 16; v++) {
		if (v == 6)
			continue;
		ip6_build(b, 8, IPPROTO_UDP);
		b[0] = (uint8_t)(v << 4);
		assert_int_equal(parse_exact(true, b, 48).rc, -1);
	}
	ip6_build(b, 9, IPPROTO_UDP);
	assert_int_equal(parse_exact(true, b, 48).rc, -1);
	ip6_build(b, 0xffff, IPPROTO_UDP);
	assert_int_equal(parse_exact(true, b, 48).rc, -1);
}

/**
 * test_ip6_truncated() - every truncation of frame or payload length
 * @state:	cmocka state, unused
 */
static void test_ip6_truncated(void **state)
{
	uint8_t b[PKT_MAX];
	size_t len, full, plen;
	struct parsed r;

	(void)state;
	full = chain_build(b, 20);
	for (len = 0; len < full; len++)
		assert_int_equal(parse_exact(true, b, len).rc, -1);

	/* the payload length cut inside the chain, the frame cut with it */
	for (plen = 0; plen < 48 + 20; plen++) {
		b[4] = 0;
		b[5] = (uint8_t)plen;
		r = parse_exact(true, b, 40 + plen);
		if (plen < 48) {
			assert_int_equal(r.rc, -1);
		} else {
			assert_int_equal(r.rc, 0);
			assert_int_equal(r.l4off, 88);
			assert_int_equal(r.l4len, plen - 48);
		}
	}
}

/**
 * meta4() - IPv4 metadata for a checksum test
 * @proto:	protocol
 *
 * Return: the metadata
 */
static struct l4_meta meta4(uint8_t proto)
{
	struct l4_meta m = { 0 };

	m.src = inany_from4(unit_a4("203.0.113.10"));
	m.dst = inany_from4(unit_a4("198.51.100.7"));
	m.proto = proto;
	return m;
}

/**
 * meta6() - IPv6 metadata for a checksum test
 * @proto:	protocol
 *
 * Return: the metadata
 */
static struct l4_meta meta6(uint8_t proto)
{
	struct l4_meta m = { 0 };

	m.src = unit_a6("2001:db8:1::2");
	m.dst = unit_a6("2001:db8:2::7");
	m.proto = proto;
	m.v6 = true;
	return m;
}

/**
 * pseudo_sum() - running sum of the pseudo-header, from its bytes
 * @m:		addresses and protocol
 * @len:	layer-4 length
 *
 * Return: running sum; 0 for ICMP over IPv4, which has no pseudo-header
 */
static uint32_t pseudo_sum(const struct l4_meta *m, size_t len)
{
	uint8_t ph[40];

	if (!m->v6 && m->proto == IPPROTO_ICMP)
		return 0;
	if (!m->v6) {
		memcpy(ph, &m->src.s6_addr[12], 4);
		memcpy(ph + 4, &m->dst.s6_addr[12], 4);
		ph[8] = 0;
		ph[9] = m->proto;
		ph[10] = (uint8_t)(len >> 8);
		ph[11] = len & 0xff;
		return ref_sum(ph, 12, 0);
	}
	memcpy(ph, &m->src, 16);
	memcpy(ph + 16, &m->dst, 16);
	ph[32] = (uint8_t)(len >> 24);
	ph[33] = (len >> 16) & 0xff;
	ph[34] = (len >> 8) & 0xff;
	ph[35] = len & 0xff;
	ph[36] = ph[37] = ph[38] = 0;
	ph[39] = m->proto;
	return ref_sum(ph, 40, 0);
}

/**
 * l4_build() - a layer-4 segment with a right checksum
 * @m:		addresses and protocol
 * @b:		buffer
 * @len:	segment length (header and payload)
 */
static void l4_build(const struct l4_meta *m, uint8_t *b, size_t len)
{
	size_t i, co = ip_l4_csum_offset(m->proto);
	uint16_t c;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(i * 13 + 5);
	if (m->proto == IPPROTO_UDP) {
		b[4] = (uint8_t)(len >> 8);
		b[5] = len & 0xff;
	}
	b[co] = b[co + 1] = 0;
	c = ref_fold(ref_sum(b, len, pseudo_sum(m, len)));
	if (m->proto == IPPROTO_UDP && !c)
		c = 0xffff;
	b[co] = c >> 8;
	b[co + 1] = c & 0xff;
}

/**
 * csum_ok_exact() - ip_l4_csum_ok() on an exact heap copy
 * @m:		addresses and protocol
 * @b:		layer-4 segment
 * @len:	its length
 *
 * Return: what ip_l4_csum_ok() returned
 */
static bool csum_ok_exact(const struct l4_meta *m, const uint8_t *b,
			  size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct pkt p;
	bool ok;

	assert_non_null(copy);
	memcpy(copy, b, len);
	p.data = copy;
	p.len = len;
	ok = ip_l4_csum_ok(m, &p);
	free(copy);
	return ok;
}

/**
 * check_right_and_wrong() - a right checksum passes, any flipped bit fails
 * @m:		addresses and protocol
 * @len:	segment length
 */
static void check_right_and_wrong(const struct l4_meta *m, size_t len)
{
	uint8_t b[PKT_MAX];
	size_t i;

	l4_build(m, b, len);
	assert_true(csum_ok_exact(m, b, len));
	for (i = 0; i < len; i += 7) {
		b[i] ^= 0x20;
		assert_false(csum_ok_exact(m, b, len));
		b[i] ^= 0x20;
	}
}

/**
 * test_csum_udp() - UDP over both families, odd and even lengths
 * @state:	cmocka state, unused
 */
static void test_csum_udp(void **state)
{
	struct l4_meta m4 = meta4(IPPROTO_UDP), m6 = meta6(IPPROTO_UDP);
	size_t len;

	(void)state;
	for (len = 8; len < 80; len += 9) {
		check_right_and_wrong(&m4, len);
		check_right_and_wrong(&m6, len);
	}
}

/**
 * test_csum_udp4_zero() - a zero UDP checksum over IPv4 means none
 * @state:	cmocka state, unused
 */
static void test_csum_udp4_zero(void **state)
{
	struct l4_meta m = meta4(IPPROTO_UDP);
	uint8_t b[64];

	(void)state;
	l4_build(&m, b, 40);
	b[6] = b[7] = 0;
	assert_true(csum_ok_exact(&m, b, 40));
	b[20] ^= 0xff;
	assert_true(csum_ok_exact(&m, b, 40));
}

/**
 * test_csum_udp6_zero() - over IPv6 the UDP checksum is mandatory
 * @state:	cmocka state, unused
 */
static void test_csum_udp6_zero(void **state)
{
	struct l4_meta m = meta6(IPPROTO_UDP);
	uint8_t b[64];

	(void)state;
	l4_build(&m, b, 40);
	assert_int_not_equal(rd16(b + 6), 0xffff);
	b[6] = b[7] = 0;
	assert_false(csum_ok_exact(&m, b, 40));
}

/**
 * udp_zero_sum() - a UDP datagram whose computed checksum is 0
 * @m:		addresses
 * @b:		40 bytes, filled in with the checksum field left 0
 */
static void udp_zero_sum(const struct l4_meta *m, uint8_t *b)
{
	uint16_t fix;

	l4_build(m, b, 40);
	/* choose one payload word so that the sum is all ones */
	b[6] = b[7] = b[20] = b[21] = 0;
	fix = ref_fold(ref_sum(b, 40, pseudo_sum(m, 40)));
	b[20] = fix >> 8;
	b[21] = fix & 0xff;
	assert_int_equal(ref_fold(ref_sum(b, 40, pseudo_sum(m, 40))), 0);
}

/**
 * test_csum_udp_ffff() - a computed checksum of 0 is sent as 0xffff
 * @state:	cmocka state, unused
 */
static void test_csum_udp_ffff(void **state)
{
	struct l4_meta m[2] = { meta4(IPPROTO_UDP), meta6(IPPROTO_UDP) };
	uint8_t b[64];
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		udp_zero_sum(&m[i], b);
		b[6] = b[7] = 0xff;
		assert_true(csum_ok_exact(&m[i], b, 40));
	}
}

/**
 * test_csum_udp6_zero_field_zero_sum() - a zero field is never valid in v6
 * @state:	cmocka state, unused
 *
 * Even when the data sums to all ones, so that 0x0000 and 0xffff would be
 * the same one's complement number: RFC 8200 8.1 says a zero UDP checksum
 * over IPv6 is discarded, and a sender writes 0xffff.
 */
static void test_csum_udp6_zero_field_zero_sum(void **state)
{
	struct l4_meta m = meta6(IPPROTO_UDP);
	uint8_t b[64];

	(void)state;
	udp_zero_sum(&m, b);
	assert_false(csum_ok_exact(&m, b, 40));
}

/**
 * test_csum_tcp() - TCP over both families
 * @state:	cmocka state, unused
 */
static void test_csum_tcp(void **state)
{
	struct l4_meta m4 = meta4(IPPROTO_TCP), m6 = meta6(IPPROTO_TCP);
	size_t len;

	(void)state;
	for (len = 20; len < 200; len += 11) {
		check_right_and_wrong(&m4, len);
		check_right_and_wrong(&m6, len);
	}
}

/**
 * test_csum_tcp_pseudo_header() - the addresses are covered
 * @state:	cmocka state, unused
 */
static void test_csum_tcp_pseudo_header(void **state)
{
	struct l4_meta m4 = meta4(IPPROTO_TCP), m6 = meta6(IPPROTO_TCP);
	uint8_t b[64];

	(void)state;
	l4_build(&m4, b, 40);
	m4.dst = inany_from4(unit_a4("198.51.100.8"));
	assert_false(csum_ok_exact(&m4, b, 40));

	l4_build(&m6, b, 40);
	m6.src = unit_a6("2001:db8:1::3");
	assert_false(csum_ok_exact(&m6, b, 40));
}

/**
 * test_csum_icmp() - ICMP: no pseudo-header; ICMPv6: with one
 * @state:	cmocka state, unused
 */
static void test_csum_icmp(void **state)
{
	struct l4_meta m4 = meta4(IPPROTO_ICMP), m6 = meta6(IPPROTO_ICMPV6_);
	uint8_t b[64];
	size_t len;
	uint16_t c;

	(void)state;
	for (len = 8; len < 64; len += 5) {
		check_right_and_wrong(&m4, len);
		check_right_and_wrong(&m6, len);
	}

	/* ICMPv6 summed without its pseudo-header is wrong */
	l4_build(&m4, b, 32);
	b[2] = b[3] = 0;
	c = ref_fold(ref_sum(b, 32, 0));
	b[2] = c >> 8;
	b[3] = c & 0xff;
	assert_true(csum_ok_exact(&m4, b, 32));
	assert_false(csum_ok_exact(&m6, b, 32));
}

/**
 * main() - run the IP tests
 *
 * Return: number of failed tests
 */
/**
 * check_partial() - a frame left to the guest's checksum offload, finished
 *		     as a virtio device finishes it (virtio 1.2, 5.1.6.2), is
 *		     the frame netshim sums itself, whether its payload is in
 *		     one piece or scattered over buffers
 * @v6:		IPv6, else IPv4
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @l4len:	layer-4 length
 */
static void check_partial(bool v6, uint8_t proto, size_t l4len)
{
	static struct ctx c;
	struct in6_addr src = v6 ? unit_a6("2001:db8:2::1") :
				   inany_from4(unit_a4("203.0.113.1"));
	struct in6_addr dst = v6 ? unit_a6("2001:db8:1::2") :
				   inany_from4(unit_a4("203.0.113.2"));
	size_t l3 = ETH_HLEN_ + (v6 ? 40 : 20), i, at;
	size_t l4hdr = proto == IPPROTO_TCP ? 20 : 8, off, k;
	uint8_t full[ETH_HLEN_ + 40 + 1500], part[sizeof(full)];
	uint8_t hdrs[ETH_HLEN_ + 40 + 20], pay[1500 + 16];
	static const size_t cut[] = { 1, 3, 8, 5, 64, 1, 2 };
	struct link_offload o = { 0 };
	struct link_frame f = { 0 };

	for (i = 0; i < l4len; i++)
		full[l3 + i] = (uint8_t)(i * 7 + l4len);
	memcpy(part, full, sizeof(full));

	c.link.caps.csum = false;
	f.l2 = full;
	f.hlen = l3 + l4hdr;
	f.iov[0].iov_base = full + f.hlen;
	f.iov[0].iov_len = l4len - l4hdr;
	f.niov = 1;
	ip_frame_fill_offload(&c, &f, &src, &dst, proto, l4len, &o);
	assert_int_equal(o.flags, 0);

	/* The same payload scattered over buffers of odd and even lengths,
	 * with room to spare in the last, as the guest's buffers may be
	 */
	memcpy(hdrs, part, l3 + l4hdr);
	f.l2 = hdrs;
	f.niov = 0;
	for (off = 0, k = 0; off < l4len - l4hdr; k++) {
		size_t l = k < sizeof(cut) / sizeof(cut[0]) ? cut[k] : 1500;

		if (l > l4len - l4hdr - off)
			l = l4len - l4hdr - off;
		memcpy(pay + off + k, part + l3 + l4hdr + off, l);
		f.iov[f.niov].iov_base = pay + off + k;
		f.iov[f.niov++].iov_len = l + (off + l == l4len - l4hdr);
		off += l;
	}
	ip_frame_fill_offload(&c, &f, &src, &dst, proto, l4len, &o);
	assert_int_equal(o.flags, 0);
	assert_memory_equal(hdrs, full, l3 + l4hdr);

	c.link.caps.csum = true;
	f.l2 = part;
	f.iov[0].iov_base = part + f.hlen;
	f.iov[0].iov_len = l4len - l4hdr;
	f.niov = 1;
	ip_frame_fill_offload(&c, &f, &src, &dst, proto, l4len, &o);
	assert_int_equal(o.flags, VNET_F_NEEDS_CSUM);
	assert_int_equal(o.csum_start, l3);
	assert_int_equal(o.csum_offset, proto == IPPROTO_TCP ? 16 : 6);
	at = o.csum_start + o.csum_offset;
	{
		uint16_t f = ref_fold(ref_sum(part + o.csum_start,
					      l3 + l4len - o.csum_start, 0));

		/* A UDP checksum of zero is sent as 0xffff (RFC 768) */
		if (proto == IPPROTO_UDP && !f)
			f = 0xffff;
		part[at] = f >> 8;
		part[at + 1] = f & 0xff;
	}
	assert_memory_equal(part, full, l3 + l4len);
}

/**
 * test_frame_partial() - partial checksums, both families, TCP and UDP,
 *			  odd and even lengths
 * @state:	cmocka state, unused
 */
static void test_frame_partial(void **state)
{
	size_t len;

	(void)state;
	for (len = 20; len < 1400; len += 97) {
		check_partial(false, IPPROTO_TCP, len);
		check_partial(true, IPPROTO_TCP, len);
		check_partial(false, IPPROTO_UDP, len);
		check_partial(true, IPPROTO_UDP, len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ip4_valid),
		cmocka_unit_test(test_ip4_options),
		cmocka_unit_test(test_ip4_padding_trimmed),
		cmocka_unit_test(test_ip4_bad_version),
		cmocka_unit_test(test_ip4_short_ihl),
		cmocka_unit_test(test_ip4_total_length),
		cmocka_unit_test(test_ip4_bad_checksum),
		cmocka_unit_test(test_ip4_fragments),
		cmocka_unit_test(test_ip4_truncated),
		cmocka_unit_test(test_ip6_valid),
		cmocka_unit_test(test_ip6_ext_chain),
		cmocka_unit_test(test_ip6_fragment),
		cmocka_unit_test(test_ip6_ext_past_end),
		cmocka_unit_test(test_ip6_ext_limit),
		cmocka_unit_test(test_ip6_eight_ext_hdrs),
		cmocka_unit_test(test_ip6_bad_header),
		cmocka_unit_test(test_ip6_truncated),
		cmocka_unit_test(test_csum_udp),
		cmocka_unit_test(test_csum_udp4_zero),
		cmocka_unit_test(test_csum_udp6_zero),
		cmocka_unit_test(test_csum_udp_ffff),
		cmocka_unit_test(test_csum_udp6_zero_field_zero_sum),
		cmocka_unit_test(test_csum_tcp),
		cmocka_unit_test(test_csum_tcp_pseudo_header),
		cmocka_unit_test(test_csum_icmp),
		cmocka_unit_test(test_frame_partial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
