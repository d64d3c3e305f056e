// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the ARP responder
 *
 * netshim answers ARP for every IPv4 address but the guest's own.  Requests
 * are built byte by byte and handed to arp_reply() in heap buffers of their
 * exact length, so that ASan reports any read past them.
 */
#include <stdlib.h>

#include "unit.h"
#include "net/eth.h"

#define OP_REQUEST	1
#define OP_REPLY	2

static const uint8_t our_mac[6] = { 0x02, 0x6e, 0x73, 0x68, 0x69, 0x6d };
static const uint8_t guest_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t zero_mac[6];
static struct conf conf;

/**
 * conf_setup() - the guest is 203.0.113.10/24 behind gateway 203.0.113.1
 * @state:	cmocka state, unused
 *
 * Return: 0
 */
static int conf_setup(void **state)
{
	(void)state;
	unit_conf(&conf);
	conf.addr4 = unit_a4("203.0.113.10");
	return 0;
}

/**
 * arp_build() - an Ethernet/IPv4 ARP packet
 * @b:		ARP_LEN bytes, filled in
 * @op:		operation
 * @sha:	sender hardware address
 * @spa:	sender protocol address text
 * @tha:	target hardware address
 * @tpa:	target protocol address text
 */
static void arp_build(uint8_t *b, uint16_t op, const uint8_t *sha,
		      const char *spa, const uint8_t *tha, const char *tpa)
{
	struct in_addr s = unit_a4(spa), t = unit_a4(tpa);

	b[0] = 0;
	b[1] = 1;
	b[2] = 0x08;
	b[3] = 0x00;
	b[4] = 6;
	b[5] = 4;
	b[6] = op >> 8;
	b[7] = op & 0xff;
	memcpy(b + 8, sha, 6);
	memcpy(b + 14, &s, 4);
	memcpy(b + 18, tha, 6);
	memcpy(b + 24, &t, 4);
}

/**
 * reply_exact() - arp_reply() on a heap copy of exactly @len bytes
 * @b:		ARP packet
 * @len:	its length
 * @out:	ARP_LEN bytes for the reply
 *
 * Return: what arp_reply() returned
 */
static size_t reply_exact(const uint8_t *b, size_t len, uint8_t *out)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct pkt p;
	size_t r;

	assert_non_null(copy);
	memcpy(copy, b, len);
	p.data = copy;
	p.len = len;
	r = arp_reply(&conf, &p, out);
	free(copy);
	return r;
}

/**
 * request() - the guest asks who has @tpa, from @spa
 * @spa:	sender protocol address text
 * @tpa:	target protocol address text
 * @out:	ARP_LEN bytes for the reply
 *
 * Return: what arp_reply() returned
 */
static size_t request(const char *spa, const char *tpa, uint8_t *out)
{
	uint8_t b[ARP_LEN];

	arp_build(b, OP_REQUEST, guest_mac, spa, zero_mac, tpa);
	return reply_exact(b, sizeof(b), out);
}

/**
 * assert_reply_for() - check every byte of a reply to the guest
 * @out:	reply
 * @who:	address that was asked for
 * @asker:	address of the guest that asked
 */
static void assert_reply_for(const uint8_t *out, const char *who,
			     const char *asker)
{
	uint8_t want[ARP_LEN];

	arp_build(want, OP_REPLY, our_mac, who, guest_mac, asker);
	assert_memory_equal(out, want, ARP_LEN);
}

/**
 * test_request_for_gateway() - the gateway is us: our MAC, right targets
 * @state:	cmocka state, unused
 */
static void test_request_for_gateway(void **state)
{
	static const uint8_t want[ARP_LEN] = {
		0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x02,
		0x02, 0x6e, 0x73, 0x68, 0x69, 0x6d,	/* our MAC */
		203, 0, 113, 1,				/* the gateway */
		0x52, 0x54, 0x00, 0x12, 0x34, 0x56,	/* the guest */
		203, 0, 113, 10,
	};
	uint8_t out[ARP_LEN];

	(void)state;
	memset(out, 0xaa, sizeof(out));
	assert_int_equal(request("203.0.113.10", "203.0.113.1", out), ARP_LEN);
	assert_memory_equal(out, want, ARP_LEN);
}

/**
 * test_request_for_others() - any other address is us too
 * @state:	cmocka state, unused
 *
 * On-link neighbours and off-link addresses alike: the guest sends all its
 * traffic to netshim whatever its routes say.
 */
static void test_request_for_others(void **state)
{
	static const char *const who[] = {
		"203.0.113.2", "203.0.113.77", "198.51.100.5",
	};
	uint8_t out[ARP_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(who) / sizeof(who[0]); i++) {
		memset(out, 0, sizeof(out));
		assert_int_equal(request("203.0.113.10", who[i], out),
				 ARP_LEN);
		assert_reply_for(out, who[i], "203.0.113.10");
	}
}

/**
 * test_request_with_padding() - a request in a padded 46-byte payload
 * @state:	cmocka state, unused
 */
static void test_request_with_padding(void **state)
{
	uint8_t b[46], out[ARP_LEN];

	(void)state;
	memset(b, 0x5a, sizeof(b));
	arp_build(b, OP_REQUEST, guest_mac, "203.0.113.10", zero_mac,
		  "203.0.113.1");
	assert_int_equal(reply_exact(b, sizeof(b), out), ARP_LEN);
	assert_reply_for(out, "203.0.113.1", "203.0.113.10");
}

/**
 * test_request_target_mac_ignored() - the target MAC of a request is junk
 * @state:	cmocka state, unused
 */
static void test_request_target_mac_ignored(void **state)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t b[ARP_LEN], out[ARP_LEN];

	(void)state;
	arp_build(b, OP_REQUEST, guest_mac, "203.0.113.10", bcast,
		  "203.0.113.1");
	assert_int_equal(reply_exact(b, sizeof(b), out), ARP_LEN);
	assert_reply_for(out, "203.0.113.1", "203.0.113.10");
}

/**
 * test_request_for_guest() - the guest's own address is never claimed
 * @state:	cmocka state, unused
 */
static void test_request_for_guest(void **state)
{
	uint8_t out[ARP_LEN];

	(void)state;
	assert_int_equal(request("203.0.113.20", "203.0.113.10", out), 0);
	assert_int_equal(request("198.51.100.1", "203.0.113.10", out), 0);
}

/**
 * test_gratuitous() - announcements (sender == target) get no answer
 * @state:	cmocka state, unused
 */
static void test_gratuitous(void **state)
{
	uint8_t b[ARP_LEN], out[ARP_LEN];

	(void)state;
	assert_int_equal(request("203.0.113.10", "203.0.113.10", out), 0);
	/* the guest configured with another address */
	assert_int_equal(request("203.0.113.50", "203.0.113.50", out), 0);
	/* gratuitous ARP sent as a reply */
	arp_build(b, OP_REPLY, guest_mac, "203.0.113.10", guest_mac,
		  "203.0.113.10");
	assert_int_equal(reply_exact(b, sizeof(b), out), 0);
}

/**
 * test_probe_for_guest() - RFC 5227 probe for the guest's address: silence
 * @state:	cmocka state, unused
 *
 * An answer would make the guest believe its address is taken.
 */
static void test_probe_for_guest(void **state)
{
	uint8_t out[ARP_LEN];

	(void)state;
	assert_int_equal(request("0.0.0.0", "203.0.113.10", out), 0);
}

/**
 * test_target_unspecified() - nobody owns 0.0.0.0
 * @state:	cmocka state, unused
 */
static void test_target_unspecified(void **state)
{
	uint8_t out[ARP_LEN];

	(void)state;
	assert_int_equal(request("203.0.113.10", "0.0.0.0", out), 0);
	assert_int_equal(request("0.0.0.0", "0.0.0.0", out), 0);
}

/**
 * test_replies_ignored() - ARP replies from the guest are not answered
 * @state:	cmocka state, unused
 */
static void test_replies_ignored(void **state)
{
	uint8_t b[ARP_LEN], out[ARP_LEN];
	uint16_t op;

	(void)state;
	arp_build(b, OP_REPLY, guest_mac, "203.0.113.10", our_mac,
		  "203.0.113.1");
	assert_int_equal(reply_exact(b, sizeof(b), out), 0);
	/* RARP and unknown operations */
	for (op = 0; op < 10; op++) {
		if (op == OP_REQUEST)
			continue;
		arp_build(b, op, guest_mac, "203.0.113.10", zero_mac,
			  "203.0.113.1");
		assert_int_equal(reply_exact(b, sizeof(b), out), 0);
	}
}

/**
 * test_not_ethernet_ipv4() - other hardware and protocol types: no answer
 * @state:	cmocka state, unused
 */
static void test_not_ethernet_ipv4(void **state)
{
	static const struct {
		size_t off;
		uint8_t val;
	} bad[] = {
		{ 1, 6 },	/* htype 6: IEEE 802 */
		{ 0, 1 },	/* htype 0x0101 */
		{ 2, 0x86 },	/* ptype 0x8600 */
		{ 3, 0x06 },	/* ptype 0x0806 */
		{ 4, 8 },	/* hlen 8 */
		{ 4, 0 },
		{ 5, 16 },	/* plen 16 */
		{ 5, 0 },
	};
	uint8_t b[ARP_LEN], out[ARP_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		arp_build(b, OP_REQUEST, guest_mac, "203.0.113.10", zero_mac,
			  "203.0.113.1");
		b[bad[i].off] = bad[i].val;
		assert_int_equal(reply_exact(b, sizeof(b), out), 0);
	}
}

/**
 * test_truncated() - a request cut at any length gets no answer
 * @state:	cmocka state, unused
 */
static void test_truncated(void **state)
{
	uint8_t b[ARP_LEN], out[ARP_LEN];
	size_t len;

	(void)state;
	arp_build(b, OP_REQUEST, guest_mac, "203.0.113.10", zero_mac,
		  "203.0.113.1");
	for (len = 0; len < ARP_LEN; len++)
		assert_int_equal(reply_exact(b, len, out), 0);
	assert_int_equal(reply_exact(b, ARP_LEN, out), ARP_LEN);
}

/**
 * main() - run the ARP tests
 *
 * Return: number of failed tests
 */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_for_gateway),
		cmocka_unit_test(test_request_for_others),
		cmocka_unit_test(test_request_with_padding),
		cmocka_unit_test(test_request_target_mac_ignored),
		cmocka_unit_test(test_request_for_guest),
		cmocka_unit_test(test_gratuitous),
		cmocka_unit_test(test_probe_for_guest),
		cmocka_unit_test(test_target_unspecified),
		cmocka_unit_test(test_replies_ignored),
		cmocka_unit_test(test_not_ethernet_ipv4),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, conf_setup, NULL);
}
