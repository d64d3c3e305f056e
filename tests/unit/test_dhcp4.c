// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the DHCPv4 server
 *
 * Client messages are built byte by byte the way udhcpc, dhclient and
 * systemd-networkd lay them out, and replies are checked byte by byte.
 */
#include <stdlib.h>

#include "unit.h"
#include "dhcp/dhcp.h"

#define OPTS		240
#define MSG_MAX		1500

static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t xid[4] = { 0xde, 0xad, 0xbe, 0xef };

/**
 * conf_init() - the configuration every test starts from
 * @c:		configuration, filled in
 */
static void conf_init(struct conf *c)
{
	unit_conf(c);
}

/**
 * ip() - IPv4 address from text, for comparisons
 * @s:		dotted quad
 *
 * Return: the address, network order
 */
static uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

/**
 * msg_start() - BOOTREQUEST header and magic cookie, options left empty
 * @b:		message buffer, at least OPTS bytes
 * @ciaddr:	client address, dotted quad
 * @flags:	BOOTP flags
 *
 * Return: OPTS, where the options begin
 */
static size_t msg_start(uint8_t *b, const char *ciaddr, uint16_t flags)
{
	uint32_t ci = ip(ciaddr);

	memset(b, 0, OPTS);
	b[0] = 1;
	b[1] = 1;
	b[2] = 6;
	memcpy(b + 4, xid, 4);
	b[8] = 0;
	b[9] = 3;
	wr16(b + 10, flags);
	memcpy(b + 12, &ci, 4);
	memcpy(b + 28, mac, 6);
	wr32(b + 236, 0x63825363);
	return OPTS;
}

/**
 * put() - append bytes to a message being built
 * @b:		message
 * @len:	current length, advanced
 * @bytes:	what to append
 * @n:		how many
 */
static void put(uint8_t *b, size_t *len, const void *bytes, size_t n)
{
	memcpy(b + *len, bytes, n);
	*len += n;
}

#define PUT(b, len, ...)						\
	put(b, len, (uint8_t[]){ __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }))

/**
 * udhcpc_opts() - the options busybox udhcpc puts in DISCOVER and REQUEST
 * @b:		message
 * @len:	current length, advanced
 * @type:	DHCP message type
 */
static void udhcpc_opts(uint8_t *b, size_t *len, uint8_t type)
{
	PUT(b, len, 53, 1, type);
	PUT(b, len, 61, 7, 1, 0x52, 0x54, 0x00, 0x12, 0x34, 0x56);
	PUT(b, len, 57, 2, 0x02, 0x40);
	PUT(b, len, 55, 7, 1, 3, 6, 12, 15, 28, 42);
	PUT(b, len, 60, 12, 'u', 'd', 'h', 'c', 'p', ' ', '1', '.', '3', '5',
	    '.', '0');
}

/**
 * find_opt() - find an option in a reply
 * @r:		reply
 * @len:	reply length
 * @code:	option code
 * @olen:	option length, set when found
 *
 * Return: option value, or NULL if the option is not there
 */
static const uint8_t *find_opt(const uint8_t *r, size_t len, uint8_t code,
			       size_t *olen)
{
	size_t off = OPTS;

	while (off < len && r[off] != 255) {
		if (r[off] == 0) {
			off++;
			continue;
		}
		assert_true(off + 2 <= len);
		assert_true(off + 2 + r[off + 1] <= len);
		if (r[off] == code) {
			*olen = r[off + 1];
			return r + off + 2;
		}
		off += 2 + r[off + 1];
	}
	assert_true(off < len);
	return NULL;
}

/**
 * expect_opt() - check an option of a reply byte by byte
 * @r:		reply
 * @len:	reply length
 * @code:	option code
 * @val:	expected value
 * @vlen:	expected length
 */
static void expect_opt(const uint8_t *r, size_t len, uint8_t code,
		       const void *val, size_t vlen)
{
	const uint8_t *v;
	size_t olen;

	v = find_opt(r, len, code, &olen);
	assert_non_null(v);
	assert_int_equal(olen, vlen);
	assert_memory_equal(v, val, vlen);
}

#define EXPECT_OPT(r, len, code, ...)					\
	expect_opt(r, len, code, (uint8_t[]){ __VA_ARGS__ },		\
		   sizeof((uint8_t[]){ __VA_ARGS__ }))

/**
 * expect_no_opt() - check that a reply lacks an option
 * @r:		reply
 * @len:	reply length
 * @code:	option code
 */
static void expect_no_opt(const uint8_t *r, size_t len, uint8_t code)
{
	size_t olen;

	assert_null(find_opt(r, len, code, &olen));
}

/**
 * reply() - run the server on a message held in a buffer of its exact size
 * @c:		configuration
 * @b:		message
 * @len:	message length
 * @out:	reply buffer, MSG_MAX bytes
 * @dest:	destination of the reply
 *
 * The copy lets AddressSanitizer catch any read past the message.
 *
 * Return: reply length
 */
static size_t reply(const struct conf *c, const uint8_t *b, size_t len,
		    uint8_t *out, struct dhcp4_dest *dest)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct pkt p = { copy, len };
	size_t n;

	assert_non_null(copy);
	memcpy(copy, b, len);
	n = dhcp4_reply(c, &p, out, MSG_MAX, dest);
	free(copy);
	assert_true(n <= MSG_MAX);
	return n;
}

/**
 * expect_header() - check the fixed part of a reply
 * @r:		reply
 * @n:		reply length
 * @yiaddr:	expected yiaddr, dotted quad
 * @flags:	expected flags
 */
static void expect_header(const uint8_t *r, size_t n, const char *yiaddr,
			  uint16_t flags)
{
	static const uint8_t zero[10];
	uint32_t yi = ip(yiaddr);

	assert_true(n >= 300);
	assert_int_equal(r[0], 2);
	assert_int_equal(r[1], 1);
	assert_int_equal(r[2], 6);
	assert_memory_equal(r + 4, xid, 4);
	assert_int_equal(rd16(r + 10), flags);
	assert_memory_equal(r + 16, &yi, 4);
	assert_memory_equal(r + 20, zero, 4);
	assert_memory_equal(r + 28, mac, 6);
	assert_memory_equal(r + 34, zero, 10);
	assert_int_equal(rd32(r + 236), 0x63825363);
}

/**
 * expect_config() - check every configuration option of an OFFER or ACK
 * @r:		reply
 * @n:		reply length
 * @lease:	whether a lease time is expected
 */
static void expect_config(const uint8_t *r, size_t n, bool lease)
{
	EXPECT_OPT(r, n, 54, 203, 0, 113, 1);
	if (lease)
		EXPECT_OPT(r, n, 51, 0xff, 0xff, 0xff, 0xff);
	else
		expect_no_opt(r, n, 51);
	EXPECT_OPT(r, n, 1, 255, 255, 255, 0);
	EXPECT_OPT(r, n, 3, 203, 0, 113, 1);
	EXPECT_OPT(r, n, 6, 203, 0, 113, 1);
	EXPECT_OPT(r, n, 15, 'n', 'e', 't', 's', 'h', 'i', 'm', '.',
		   't', 'e', 's', 't');
	EXPECT_OPT(r, n, 119, 7, 'n', 'e', 't', 's', 'h', 'i', 'm',
		   4, 't', 'e', 's', 't', 0);
	EXPECT_OPT(r, n, 26, 0x05, 0xdc);
}

/**
 * discover() - build the DISCOVER busybox udhcpc sends
 * @b:		message buffer
 *
 * Return: message length
 */
static size_t discover(uint8_t *b)
{
	size_t len = msg_start(b, "0.0.0.0", 0);

	udhcpc_opts(b, &len, 1);
	PUT(b, &len, 255);
	return len;
}

/* DISCOVER from udhcpc: OFFER of our address, broadcast, all options */
static void test_discover(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t n;

	(void)state;
	conf_init(&c);
	n = reply(&c, b, discover(b), r, &d);
	expect_header(r, n, "203.0.113.2", 0);
	EXPECT_OPT(r, n, 53, 2);
	expect_config(r, n, true);
	assert_true(n <= 576 - 28);

	assert_true(d.broadcast);
	assert_memory_equal(d.chaddr, mac, 6);
	assert_int_equal(d.yiaddr.s_addr, ip("203.0.113.2"));
}

/* RFC 4039: a DISCOVER with Rapid Commit (80, no data), as dhcpcd and
 * systemd-networkd send it, gets an ACK carrying Rapid Commit and a lease
 * at once; one whose option 80 has data is as if it had none (an OFFER);
 * a plain DISCOVER's OFFER and a REQUEST's ACK carry no option 80
 */
static void test_rapid_commit(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len, n, olen;

	(void)state;
	conf_init(&c);
	len = msg_start(b, "0.0.0.0", 0);
	udhcpc_opts(b, &len, 1);
	PUT(b, &len, 80, 0, 255);
	n = reply(&c, b, len, r, &d);
	expect_header(r, n, "203.0.113.2", 0);
	EXPECT_OPT(r, n, 53, 5);
	assert_non_null(find_opt(r, n, 80, &olen));
	assert_int_equal(olen, 0);
	expect_config(r, n, true);
	assert_true(d.broadcast);
	assert_int_equal(d.yiaddr.s_addr, ip("203.0.113.2"));

	len = msg_start(b, "0.0.0.0", 0);
	udhcpc_opts(b, &len, 1);
	PUT(b, &len, 80, 1, 0, 255);
	n = reply(&c, b, len, r, &d);
	EXPECT_OPT(r, n, 53, 2);
	expect_no_opt(r, n, 80);

	n = reply(&c, b, discover(b), r, &d);
	EXPECT_OPT(r, n, 53, 2);
	expect_no_opt(r, n, 80);

	len = msg_start(b, "0.0.0.0", 0);
	udhcpc_opts(b, &len, 3);
	PUT(b, &len, 50, 4, 203, 0, 113, 2, 80, 0, 255);
	n = reply(&c, b, len, r, &d);
	EXPECT_OPT(r, n, 53, 5);
	expect_no_opt(r, n, 80);
}

/* REQUEST in SELECTING state (options 50 and 54): ACK */
static void test_request(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len, n;

	(void)state;
	conf_init(&c);
	len = msg_start(b, "0.0.0.0", 0);
	udhcpc_opts(b, &len, 3);
	PUT(b, &len, 50, 4, 203, 0, 113, 2);
	PUT(b, &len, 54, 4, 203, 0, 113, 1);
	PUT(b, &len, 255);

	n = reply(&c, b, len, r, &d);
	expect_header(r, n, "203.0.113.2", 0);
	EXPECT_OPT(r, n, 53, 5);
	expect_config(r, n, true);
	assert_true(d.broadcast);
}

/* REQUEST for another address (a guest moved to a new pod): NAK */
static void test_request_other_nak(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len, n;

	(void)state;
	conf_init(&c);
	len = msg_start(b, "0.0.0.0", 0);
	udhcpc_opts(b, &len, 3);
	PUT(b, &len, 50, 4, 198, 51, 100, 7);
	PUT(b, &len, 255);

	n = reply(&c, b, len, r, &d);
	expect_header(r, n, "0.0.0.0", 0);
	EXPECT_OPT(r, n, 53, 6);
	EXPECT_OPT(r, n, 54, 203, 0, 113, 1);
	expect_no_opt(r, n, 51);
	expect_no_opt(r, n, 1);
	expect_no_opt(r, n, 3);
	assert_true(d.broadcast);
}

/* REQUEST with neither option 50 nor ciaddr asks for nothing: NAK */
static void test_request_nothing_nak(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len, n;

	(void)state;
	conf_init(&c);
	len = msg_start(b, "0.0.0.0", 0);
	PUT(b, &len, 53, 1, 3, 255);
	n = reply(&c, b, len, r, &d);
	EXPECT_OPT(r, n, 53, 6);
}

/* REQUEST naming another server: the client took its offer, stay quiet */
static void test_request_foreign_server(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len;

	(void)state;
	conf_init(&c);
	len = msg_start(b, "0.0.0.0", 0);
	udhcpc_opts(b, &len, 3);
	PUT(b, &len, 50, 4, 203, 0, 113, 2);
	PUT(b, &len, 54, 4, 198, 51, 100, 1);
	PUT(b, &len, 255);
	assert_int_equal(reply(&c, b, len, r, &d), 0);
}

/* RENEWING: ciaddr set, no option 50, unicast ACK to ciaddr */
static void test_renew_unicast(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len, n;

	(void)state;
	conf_init(&c);
	len = msg_start(b, "203.0.113.2", 0);
	udhcpc_opts(b, &len, 3);
	PUT(b, &len, 255);

	n = reply(&c, b, len, r, &d);
	expect_header(r, n, "203.0.113.2", 0);
	EXPECT_OPT(r, n, 53, 5);
	assert_false(d.broadcast);
	assert_int_equal(d.yiaddr.s_addr, ip("203.0.113.2"));
	assert_memory_equal(d.chaddr, mac, 6);

	/* the broadcast flag asks for broadcast even with an address */
	wr16(b + 10, 0x8000);
	n = reply(&c, b, len, r, &d);
	assert_int_equal(rd16(r + 10), 0x8000);
	assert_true(d.broadcast);
}

/* RENEWING an address that is not ours any more: NAK */
static void test_renew_other_nak(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len, n;

	(void)state;
	conf_init(&c);
	len = msg_start(b, "203.0.113.9", 0);
	PUT(b, &len, 53, 1, 3, 255);
	n = reply(&c, b, len, r, &d);
	EXPECT_OPT(r, n, 53, 6);
	assert_true(d.broadcast);
}

/* INFORM: ACK with configuration but no lease, unicast to ciaddr */
static void test_inform(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len, n;

	(void)state;
	conf_init(&c);
	len = msg_start(b, "203.0.113.2", 0);
	PUT(b, &len, 53, 1, 8, 55, 3, 1, 3, 6, 255);

	n = reply(&c, b, len, r, &d);
	expect_header(r, n, "0.0.0.0", 0);
	EXPECT_OPT(r, n, 53, 5);
	expect_config(r, n, false);
	assert_false(d.broadcast);
	assert_int_equal(d.yiaddr.s_addr, ip("203.0.113.2"));
}

/* RELEASE, DECLINE, and server-to-client types get no answer */
static void test_no_answer_types(void **state)
{
	static const uint8_t types[] = { 2, 4, 5, 6, 7, 9, 18, 255 };
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len, i;

	(void)state;
	conf_init(&c);
	for (i = 0; i < sizeof(types); i++) {
		len = msg_start(b, "203.0.113.2", 0);
		PUT(b, &len, 53, 1, types[i], 54, 4, 203, 0, 113, 1, 255);
		assert_int_equal(reply(&c, b, len, r, &d), 0);
	}

	/* plain BOOTP, without a message type */
	len = msg_start(b, "0.0.0.0", 0);
	PUT(b, &len, 255);
	assert_int_equal(reply(&c, b, len, r, &d), 0);

	/* a message type of the wrong length is no message type */
	len = msg_start(b, "0.0.0.0", 0);
	PUT(b, &len, 53, 2, 1, 0, 255);
	assert_int_equal(reply(&c, b, len, r, &d), 0);
}

/* Header fields that make a message something else than a client request */
static void test_bad_header(void **state)
{
	static const size_t field[] = { 0, 1, 2, 236, 237, 238, 239 };
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len, i;

	(void)state;
	conf_init(&c);
	len = discover(b);
	for (i = 0; i < sizeof(field) / sizeof(field[0]); i++) {
		b[field[i]] ^= 0x40;
		assert_int_equal(reply(&c, b, len, r, &d), 0);
		b[field[i]] ^= 0x40;
	}
	assert_true(reply(&c, b, len, r, &d) > 0);
}

/* Every truncation of a DISCOVER loses END: no reply, no read past the end */
static void test_truncated(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len, i;

	(void)state;
	conf_init(&c);
	len = discover(b);
	for (i = 0; i < len; i++)
		assert_int_equal(reply(&c, b, i, r, &d), 0);
	assert_true(reply(&c, b, len, r, &d) > 0);
}

/* An option whose length runs past the end of the message */
static void test_option_overrun(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len;

	(void)state;
	conf_init(&c);
	len = msg_start(b, "0.0.0.0", 0);
	PUT(b, &len, 53, 1, 1, 12, 200, 'g', 'u', 'e', 's', 't', 255);
	assert_int_equal(reply(&c, b, len, r, &d), 0);

	/* an option code as the very last byte, without its length */
	len = msg_start(b, "0.0.0.0", 0);
	PUT(b, &len, 53, 1, 1, 12);
	assert_int_equal(reply(&c, b, len, r, &d), 0);
}

/* Options that end without END */
static void test_missing_end(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len;

	(void)state;
	conf_init(&c);
	len = msg_start(b, "0.0.0.0", 0);
	udhcpc_opts(b, &len, 1);
	assert_int_equal(reply(&c, b, len, r, &d), 0);

	/* PAD up to the end is still no END */
	PUT(b, &len, 0, 0, 0, 0);
	assert_int_equal(reply(&c, b, len, r, &d), 0);
}

/* PAD between options, bytes after END, and overload (52) not followed */
static void test_pad_and_overload(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len, n;

	(void)state;
	conf_init(&c);
	len = msg_start(b, "0.0.0.0", 0);
	/* sname and file would hold a NAK type and garbage if followed */
	memset(b + 44, 0xee, 192);
	b[44] = 53;
	b[45] = 1;
	b[46] = 6;
	PUT(b, &len, 0, 0, 52, 1, 3, 0, 53, 1, 1, 0, 255, 0xaa, 0xbb, 12, 99);

	n = reply(&c, b, len, r, &d);
	EXPECT_OPT(r, n, 53, 2);
	expect_header(r, n, "203.0.113.2", 0);
}

/* Not configured for IPv4, or DHCP disabled: never answer */
static void test_disabled(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len;

	(void)state;
	len = discover(b);
	conf_init(&c);
	c.v4 = false;
	assert_int_equal(reply(&c, b, len, r, &d), 0);
	conf_init(&c);
	c.no_dhcp = true;
	assert_int_equal(reply(&c, b, len, r, &d), 0);
}

/* Several DNS servers and search domains, the RFC 3397 encoding, /32 */
static void test_lists(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t n;

	(void)state;
	conf_init(&c);
	inet_pton(AF_INET, "198.51.100.53", &c.dns4[1]);
	c.n_dns4 = 2;
	strcpy(c.search[0], "ns.svc.cluster.local.");
	strcpy(c.search[1], "bad..name");
	strcpy(c.search[2], "a");
	c.n_search = 3;
	c.prefix4 = 32;

	n = reply(&c, b, discover(b), r, &d);
	EXPECT_OPT(r, n, 6, 203, 0, 113, 1, 198, 51, 100, 53);
	EXPECT_OPT(r, n, 15, 'n', 's', '.', 's', 'v', 'c', '.', 'c', 'l', 'u',
		   's', 't', 'e', 'r', '.', 'l', 'o', 'c', 'a', 'l');
	EXPECT_OPT(r, n, 119, 2, 'n', 's', 3, 's', 'v', 'c',
		   7, 'c', 'l', 'u', 's', 't', 'e', 'r', 5, 'l', 'o', 'c', 'a',
		   'l', 0, 1, 'a', 0);
	EXPECT_OPT(r, n, 1, 255, 255, 255, 255);

	/* no DNS, no search list: those options are left out */
	c.n_dns4 = 0;
	c.n_search = 0;
	c.prefix4 = 0;
	n = reply(&c, b, discover(b), r, &d);
	expect_no_opt(r, n, 6);
	expect_no_opt(r, n, 15);
	expect_no_opt(r, n, 119);
	EXPECT_OPT(r, n, 1, 0, 0, 0, 0);
}

/* The MTU option only carries a valid interface MTU */
static void test_mtu(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t n;

	(void)state;
	conf_init(&c);
	c.mtu = 67;
	n = reply(&c, b, discover(b), r, &d);
	expect_no_opt(r, n, 26);
	c.mtu = 65536;
	n = reply(&c, b, discover(b), r, &d);
	expect_no_opt(r, n, 26);
	c.mtu = 65535;
	n = reply(&c, b, discover(b), r, &d);
	EXPECT_OPT(r, n, 26, 0xff, 0xff);
	c.mtu = 68;
	n = reply(&c, b, discover(b), r, &d);
	EXPECT_OPT(r, n, 26, 0, 68);
}

/* A /32 pod address with an off-link gateway gets classless routes */
static void test_offlink_gateway_routes(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t n;

	(void)state;
	conf_init(&c);
	n = reply(&c, b, discover(b), r, &d);
	expect_no_opt(r, n, 121);	/* gateway on the /24: not needed */

	c.prefix4 = 32;
	c.gw4.s_addr = ip("198.51.100.1");
	n = reply(&c, b, discover(b), r, &d);
	EXPECT_OPT(r, n, 121, 32, 198, 51, 100, 1, 0, 0, 0, 0,
		   0, 198, 51, 100, 1);
	EXPECT_OPT(r, n, 3, 198, 51, 100, 1);
}

/**
 * long_search() - fill the search list with six names of 250 bytes
 * @c:		configuration
 */
static void long_search(struct conf *c)
{
	int i, j;

	for (i = 0; i < CONF_MAX_SEARCH; i++) {
		memset(c->search[i], 0, sizeof(c->search[i]));
		for (j = 0; j < 5; j++)
			memset(c->search[i] + j * 50, 'a' + i, 49);
		for (j = 1; j < 5; j++)
			c->search[i][j * 50 - 1] = '.';
	}
	c->n_search = CONF_MAX_SEARCH;
}

/* Option 57 and the caller's buffer bound the reply; 119 then 15 go */
static void test_max_size(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct pkt p;
	struct conf c;
	size_t len, n, olen;
	const uint8_t *v;

	(void)state;
	conf_init(&c);
	long_search(&c);

	/* udhcpc's option 57 says 576: the 1.5 kB search list cannot fit */
	n = reply(&c, b, discover(b), r, &d);
	assert_true(n <= 576 - 28);
	expect_no_opt(r, n, 119);
	assert_non_null(find_opt(r, n, 15, &olen));
	assert_int_equal(olen, 249);
	EXPECT_OPT(r, n, 51, 0xff, 0xff, 0xff, 0xff);

	/* a client taking 1500 bytes gets 750 bytes of it, split in 255 chunks */
	c.n_search = 3;
	len = msg_start(b, "0.0.0.0", 0);
	PUT(b, &len, 53, 1, 1, 57, 2, 0x05, 0xdc, 255);
	n = reply(&c, b, len, r, &d);
	assert_true(n <= 1500 - 28);
	v = find_opt(r, n, 119, &olen);
	assert_non_null(v);
	assert_int_equal(olen, 255);
	assert_int_equal(v[0], 49);
	assert_int_equal(v[255], 119);
	assert_int_equal(v[256], 255);
	c.n_search = CONF_MAX_SEARCH;

	/* a bogus option 57 under 576 does not shrink the reply below 576 */
	len = msg_start(b, "0.0.0.0", 0);
	PUT(b, &len, 53, 1, 1, 57, 2, 0x00, 0x10, 255);
	n = reply(&c, b, len, r, &d);
	assert_true(n > 300 && n <= 576 - 28);

	/* the caller's buffer: 300 bytes drop both search options */
	p.data = b;
	p.len = discover(b);
	n = dhcp4_reply(&c, &p, r, 300, &d);
	assert_true(n > 0 && n <= 300);
	expect_no_opt(r, n, 119);
	expect_no_opt(r, n, 15);
	EXPECT_OPT(r, n, 26, 0x05, 0xdc);

	/* too small for the essential options: no reply rather than half */
	assert_int_equal(dhcp4_reply(&c, &p, r, 260, &d), 0);
	assert_int_equal(dhcp4_reply(&c, &p, r, 240, &d), 0);
	assert_int_equal(dhcp4_reply(&c, &p, r, 0, &d), 0);
}

/* Random corruption of valid messages: any outcome, but within bounds */
static void test_mutations(void **state)
{
	uint8_t b[MSG_MAX], m[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t len, n, k;
	unsigned int seed = 1;
	int i, j;

	(void)state;
	conf_init(&c);
	long_search(&c);
	len = discover(b);
	for (i = 0; i < 20000; i++) {
		memcpy(m, b, len);
		for (j = 0; j < 4; j++) {
			k = OPTS - 8 + (size_t)rand_r(&seed) % (len - OPTS + 8);
			m[k] = (uint8_t)rand_r(&seed);
		}
		n = reply(&c, m, len - (size_t)rand_r(&seed) % 4, r, &d);
		if (!n)
			continue;
		assert_true(n >= 300);
		assert_int_equal(r[0], 2);
		assert_memory_equal(r + 4, xid, 4);
	}
}

/* -H: option 12 to every client, as udhcpc and dhclient ask for it */
static void test_hostname(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t n;

	(void)state;
	conf_init(&c);
	n = reply(&c, b, discover(b), r, &d);
	expect_no_opt(r, n, 12);
	expect_no_opt(r, n, 81);

	strcpy(c.hostname, "vm1");
	n = reply(&c, b, discover(b), r, &d);
	EXPECT_OPT(r, n, 12, 'v', 'm', '1');
	expect_config(r, n, true);
	/* udhcpc neither sent nor asked for option 81: it gets it still */
	strcpy(c.fqdn, "vm1.netshim.test");
	n = reply(&c, b, discover(b), r, &d);
	EXPECT_OPT(r, n, 81, 0x0c, 255, 255, 3, 'v', 'm', '1', 7, 'n', 'e',
		   't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0);
}

/**
 * fqdn_discover() - a DISCOVER with a Client FQDN option, and maybe 81 in
 *		     the parameter request list
 * @b:		message buffer
 * @flags:	flags of option 81, or -1 for no option 81
 * @ask:	list 81 in option 55
 *
 * Return: message length
 */
static size_t fqdn_discover(uint8_t *b, int flags, bool ask)
{
	size_t len = msg_start(b, "0.0.0.0", 0);

	PUT(b, &len, 53, 1, 1);
	if (ask)
		PUT(b, &len, 55, 4, 1, 3, 6, 81);
	else
		PUT(b, &len, 55, 3, 1, 3, 6);
	/* As udhcpc -F vm sends it: wire format, RCODEs 0 */
	if (flags >= 0)
		PUT(b, &len, 81, 7, (uint8_t)flags, 0, 0, 2, 'v', 'm', 0);
	PUT(b, &len, 255);
	return len;
}

/* RFC 4702: the Client FQDN option, to every client as passt sends it,
 * with N set and S clear (netshim updates no DNS record), O set when the
 * client asked for S, RCODEs 255, in the client's encoding
 */
static void test_fqdn(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct dhcp4_dest d;
	struct conf c;
	size_t n, len;

	(void)state;
	conf_init(&c);
	strcpy(c.fqdn, "vm1.netshim.test");

	/* S asked: overridden; E kept */
	n = reply(&c, b, fqdn_discover(b, 0x05, false), r, &d);
	EXPECT_OPT(r, n, 81, 0x0e, 255, 255, 3, 'v', 'm', '1', 7, 'n', 'e',
		   't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0);
	expect_config(r, n, true);

	/* Client updates itself (S clear): no override */
	n = reply(&c, b, fqdn_discover(b, 0x04, false), r, &d);
	EXPECT_OPT(r, n, 81, 0x0c, 255, 255, 3, 'v', 'm', '1', 7, 'n', 'e',
		   't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0);

	/* Deprecated ASCII encoding (E clear): answered in ASCII */
	n = reply(&c, b, fqdn_discover(b, 0x00, false), r, &d);
	EXPECT_OPT(r, n, 81, 0x08, 255, 255, 'v', 'm', '1', '.', 'n', 'e',
		   't', 's', 'h', 'i', 'm', '.', 't', 'e', 's', 't');

	/* Only asked for in option 55: wire format */
	n = reply(&c, b, fqdn_discover(b, -1, true), r, &d);
	EXPECT_OPT(r, n, 81, 0x0c, 255, 255, 3, 'v', 'm', '1', 7, 'n', 'e',
		   't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0);

	/* Neither, as ISC dhclient's default configuration: all the same */
	n = reply(&c, b, fqdn_discover(b, -1, false), r, &d);
	EXPECT_OPT(r, n, 81, 0x0c, 255, 255, 3, 'v', 'm', '1', 7, 'n', 'e',
		   't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0);

	/* A fully qualified name with its final dot: same labels */
	strcpy(c.fqdn, "vm1.netshim.test.");
	n = reply(&c, b, fqdn_discover(b, 0x04, false), r, &d);
	EXPECT_OPT(r, n, 81, 0x0c, 255, 255, 3, 'v', 'm', '1', 7, 'n', 'e',
		   't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0);

	/* A truncated option 81 (no RCODEs) is as if absent: no S to
	 * override, wire format
	 */
	len = msg_start(b, "0.0.0.0", 0);
	PUT(b, &len, 53, 1, 1, 81, 1, 0x05, 255);
	n = reply(&c, b, len, r, &d);
	assert_true(n > 0);
	EXPECT_OPT(r, n, 81, 0x0c, 255, 255, 3, 'v', 'm', '1', 7, 'n', 'e',
		   't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discover),
		cmocka_unit_test(test_offlink_gateway_routes),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_rapid_commit),
		cmocka_unit_test(test_request_other_nak),
		cmocka_unit_test(test_request_nothing_nak),
		cmocka_unit_test(test_request_foreign_server),
		cmocka_unit_test(test_renew_unicast),
		cmocka_unit_test(test_renew_other_nak),
		cmocka_unit_test(test_inform),
		cmocka_unit_test(test_no_answer_types),
		cmocka_unit_test(test_bad_header),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_option_overrun),
		cmocka_unit_test(test_missing_end),
		cmocka_unit_test(test_pad_and_overload),
		cmocka_unit_test(test_disabled),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_mtu),
		cmocka_unit_test(test_max_size),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_hostname),
		cmocka_unit_test(test_fqdn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
