// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the DHCPv6 server
 *
 * Client messages are built byte by byte the way busybox udhcpc6 and
 * dhclient -6 lay them out, and replies are checked byte by byte.
 */
#include <stdlib.h>

#include "unit.h"
#include "dhcp/dhcp.h"

#define MSG_MAX		1500

static const uint8_t xid[3] = { 0x12, 0x34, 0x56 };
/* DUID-LL of the guest, as udhcpc6 sends it */
static const uint8_t client_id[10] = { 0, 3, 0, 1,
				       0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
/* DUID-LL of netshim: our_mac below */
static const uint8_t server_id[10] = { 0, 3, 0, 1,
				       0x02, 0x6e, 0x73, 0x68, 0x69, 0x6d };
static const uint8_t iaid[4] = { 0x00, 0x12, 0x34, 0x56 };
static const uint8_t addr[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0,
				  0, 0, 0, 0, 0, 0, 0, 2 };

/**
 * conf_init() - the configuration every test starts from
 * @c:		configuration, filled in
 */
static void conf_init(struct conf *c)
{
	unit_conf(c);
	assert_memory_equal(&c->addr6, addr, 16);
	assert_memory_equal(c->our_mac, server_id + 4, 6);
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
	if (n)
		memcpy(b + *len, bytes, n);
	*len += n;
}

/**
 * opt() - append an option to a message being built
 * @b:		message
 * @len:	current length, advanced
 * @code:	option code
 * @val:	option value
 * @vlen:	option length
 */
static void opt(uint8_t *b, size_t *len, uint16_t code, const void *val,
		size_t vlen)
{
	wr16(b + *len, code);
	wr16(b + *len + 2, (uint16_t)vlen);
	*len += 4;
	put(b, len, val, vlen);
}

#define OPT(b, len, code, ...)						\
	opt(b, len, code, (uint8_t[]){ __VA_ARGS__ },			\
	    sizeof((uint8_t[]){ __VA_ARGS__ }))

/**
 * msg_start() - message type and transaction id
 * @b:		message buffer
 * @type:	message type
 *
 * Return: 4, where the options begin
 */
static size_t msg_start(uint8_t *b, uint8_t type)
{
	b[0] = type;
	memcpy(b + 1, xid, 3);
	return 4;
}

/**
 * ia_na() - append an IA_NA, optionally holding one address
 * @b:		message
 * @len:	current length, advanced
 * @id:		IAID
 * @a:		address to put in an IA Address option, or NULL
 */
static void ia_na(uint8_t *b, size_t *len, const uint8_t *id,
		  const uint8_t *a)
{
	uint8_t v[12 + 4 + 24] = { 0 };
	size_t vlen = 12;

	memcpy(v, id, 4);
	if (a) {
		wr16(v + 12, 5);
		wr16(v + 14, 24);
		memcpy(v + 16, a, 16);
		vlen += 28;
	}
	opt(b, len, 3, v, vlen);
}

/**
 * udhcpc6_msg() - a message as busybox udhcpc6 builds it
 * @b:		message buffer
 * @type:	message type
 * @a:		address held in the IA_NA, or NULL
 * @with_server: append our Server Identifier
 *
 * Return: message length
 */
static size_t udhcpc6_msg(uint8_t *b, uint8_t type, const uint8_t *a,
			  bool with_server)
{
	size_t len = msg_start(b, type);

	opt(b, &len, 1, client_id, sizeof(client_id));
	if (with_server)
		opt(b, &len, 2, server_id, sizeof(server_id));
	ia_na(b, &len, iaid, a);
	OPT(b, &len, 6, 0, 23, 0, 24);
	OPT(b, &len, 8, 0, 0);
	return len;
}

/**
 * find_opt() - find an option in an option chain of a reply
 * @chain:	first option
 * @len:	chain length
 * @code:	option code
 * @olen:	option length, set when found
 *
 * Every option of the chain is checked to fit in it.
 *
 * Return: option value, or NULL if the option is not there
 */
static const uint8_t *find_opt(const uint8_t *chain, size_t len,
			       uint16_t code, size_t *olen)
{
	const uint8_t *found = NULL;
	size_t off = 0, l;

	while (off < len) {
		assert_true(off + 4 <= len);
		l = rd16(chain + off + 2);
		assert_true(off + 4 + l <= len);
		if (!found && rd16(chain + off) == code) {
			found = chain + off + 4;
			*olen = l;
		}
		off += 4 + l;
	}
	return found;
}

/**
 * expect_opt() - check an option of a chain byte by byte
 * @chain:	first option
 * @len:	chain length
 * @code:	option code
 * @val:	expected value
 * @vlen:	expected length
 */
static void expect_opt(const uint8_t *chain, size_t len, uint16_t code,
		       const void *val, size_t vlen)
{
	const uint8_t *v;
	size_t olen;

	v = find_opt(chain, len, code, &olen);
	assert_non_null(v);
	assert_int_equal(olen, vlen);
	assert_memory_equal(v, val, vlen);
}

#define EXPECT_OPT(chain, len, code, ...)				\
	expect_opt(chain, len, code, (uint8_t[]){ __VA_ARGS__ },	\
		   sizeof((uint8_t[]){ __VA_ARGS__ }))

/**
 * expect_no_opt() - check that a chain lacks an option
 * @chain:	first option
 * @len:	chain length
 * @code:	option code
 */
static void expect_no_opt(const uint8_t *chain, size_t len, uint16_t code)
{
	size_t olen;

	assert_null(find_opt(chain, len, code, &olen));
}

/**
 * reply() - run the server on a message held in a buffer of its exact size
 * @c:		configuration
 * @b:		message
 * @len:	message length
 * @out:	reply buffer, MSG_MAX bytes
 *
 * The copy lets AddressSanitizer catch any read past the message.
 *
 * Return: reply length
 */
static size_t reply(const struct conf *c, const uint8_t *b, size_t len,
		    uint8_t *out)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct pkt p = { copy, len };
	size_t n;

	assert_non_null(copy);
	memcpy(copy, b, len);
	n = dhcp6_reply(c, &p, out, MSG_MAX);
	free(copy);
	assert_true(n <= MSG_MAX);
	return n;
}

/**
 * expect_common() - check type, transaction id and the identifiers
 * @r:		reply
 * @n:		reply length
 * @type:	expected message type
 * @echo_client: whether the Client Identifier is expected
 */
static void expect_common(const uint8_t *r, size_t n, uint8_t type,
			  bool echo_client)
{
	assert_true(n >= 4);
	assert_int_equal(r[0], type);
	assert_memory_equal(r + 1, xid, 3);
	if (echo_client)
		expect_opt(r + 4, n - 4, 1, client_id, sizeof(client_id));
	else
		expect_no_opt(r + 4, n - 4, 1);
	expect_opt(r + 4, n - 4, 2, server_id, sizeof(server_id));
}

/**
 * expect_dns() - check the DNS server and domain search list options
 * @r:		reply
 * @n:		reply length
 */
static void expect_dns(const uint8_t *r, size_t n)
{
	EXPECT_OPT(r + 4, n - 4, 23, 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0,
		   0, 0, 0, 0, 0, 0, 0, 1);
	EXPECT_OPT(r + 4, n - 4, 24, 7, 'n', 'e', 't', 's', 'h', 'i', 'm',
		   4, 't', 'e', 's', 't', 0);
}

/**
 * expect_ia_na() - check the IA_NA of a reply: our address, infinite
 * @r:		reply
 * @n:		reply length
 * @extra:	length of options expected after the IA Address option
 *
 * Return: the options following the IA Address option inside the IA_NA
 */
static const uint8_t *expect_ia_na(const uint8_t *r, size_t n, size_t extra)
{
	const uint8_t *ia;
	size_t len;

	ia = find_opt(r + 4, n - 4, 3, &len);
	assert_non_null(ia);
	assert_int_equal(len, 12 + 28 + extra);
	assert_memory_equal(ia, iaid, 4);
	assert_int_equal(rd32(ia + 4), 0xffffffff);
	assert_int_equal(rd32(ia + 8), 0xffffffff);
	assert_int_equal(rd16(ia + 12), 5);
	assert_int_equal(rd16(ia + 14), 24);
	assert_memory_equal(ia + 16, addr, 16);
	assert_int_equal(rd32(ia + 32), 0xffffffff);
	assert_int_equal(rd32(ia + 36), 0xffffffff);
	return ia + 40;
}

/* SOLICIT without Rapid Commit: ADVERTISE with the address and DNS */
static void test_solicit(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct conf c;
	size_t n;

	(void)state;
	conf_init(&c);
	n = reply(&c, b, udhcpc6_msg(b, 1, NULL, false), r);
	expect_common(r, n, 2, true);
	expect_ia_na(r, n, 0);
	expect_dns(r, n);
	expect_no_opt(r + 4, n - 4, 14);
	assert_int_equal(n, 4 + 14 + 14 + 44 + 20 + 18);
}

/* SOLICIT with Rapid Commit: REPLY carrying Rapid Commit */
static void test_solicit_rapid(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct conf c;
	size_t len, n, olen;

	(void)state;
	conf_init(&c);
	len = udhcpc6_msg(b, 1, NULL, false);
	opt(b, &len, 14, NULL, 0);
	n = reply(&c, b, len, r);
	expect_common(r, n, 7, true);
	assert_non_null(find_opt(r + 4, n - 4, 14, &olen));
	assert_int_equal(olen, 0);
	expect_ia_na(r, n, 0);
	expect_dns(r, n);
}

/* REQUEST naming us: REPLY with the address */
static void test_request(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct conf c;
	size_t n;

	(void)state;
	conf_init(&c);
	n = reply(&c, b, udhcpc6_msg(b, 3, addr, true), r);
	expect_common(r, n, 7, true);
	expect_ia_na(r, n, 0);
	expect_dns(r, n);
}

/* REQUEST, RENEW, RELEASE naming another server, or none: no answer */
static void test_foreign_server(void **state)
{
	static const uint8_t types[] = { 3, 5, 8, 9 };
	uint8_t b[MSG_MAX], r[MSG_MAX], other[10];
	struct conf c;
	size_t len, i;

	(void)state;
	conf_init(&c);
	memcpy(other, server_id, 10);
	other[9] ^= 1;
	for (i = 0; i < sizeof(types); i++) {
		len = udhcpc6_msg(b, types[i], addr, false);
		assert_int_equal(reply(&c, b, len, r), 0);
		opt(b, &len, 2, other, sizeof(other));
		assert_int_equal(reply(&c, b, len, r), 0);
	}

	/* not even in a SOLICIT or an INFORMATION-REQUEST */
	len = udhcpc6_msg(b, 1, NULL, false);
	opt(b, &len, 2, other, 9);
	assert_int_equal(reply(&c, b, len, r), 0);
	len = msg_start(b, 11);
	opt(b, &len, 2, other, sizeof(other));
	assert_int_equal(reply(&c, b, len, r), 0);
}

/* RENEW holding an old address: ours, plus the old one with no lifetime */
static void test_renew_stale(void **state)
{
	static const uint8_t old[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 2, 0, 0,
					 0, 0, 0, 0, 0, 0, 0, 9 };
	uint8_t b[MSG_MAX], r[MSG_MAX];
	const uint8_t *more;
	struct conf c;
	size_t n;

	(void)state;
	conf_init(&c);
	n = reply(&c, b, udhcpc6_msg(b, 5, old, true), r);
	expect_common(r, n, 7, true);
	more = expect_ia_na(r, n, 28);
	assert_int_equal(rd16(more), 5);
	assert_int_equal(rd16(more + 2), 24);
	assert_memory_equal(more + 4, old, 16);
	assert_int_equal(rd32(more + 20), 0);
	assert_int_equal(rd32(more + 24), 0);

	/* REBIND holding our own address: just that one, no server id */
	n = reply(&c, b, udhcpc6_msg(b, 6, addr, false), r);
	expect_common(r, n, 7, true);
	expect_ia_na(r, n, 0);
}

/* CONFIRM: Success when on link, NotOnLink otherwise, silence if empty */
static void test_confirm(void **state)
{
	static const uint8_t off_link[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1,
					      0, 1, 0, 0, 0, 0, 0, 0, 0, 9 };
	static const uint8_t on_link[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1,
					     0, 0, 0, 0, 0, 0, 0, 0, 0, 9 };
	uint8_t b[MSG_MAX], r[MSG_MAX], off_link_60[16];
	struct conf c;
	size_t n;

	(void)state;
	conf_init(&c);
	memcpy(off_link_60, off_link, 16);
	n = reply(&c, b, udhcpc6_msg(b, 4, on_link, false), r);
	expect_common(r, n, 7, true);
	EXPECT_OPT(r + 4, n - 4, 13, 0, 0, 'a', 'l', 'l', ' ', 'o', 'n', ' ',
		   'l', 'i', 'n', 'k');
	expect_no_opt(r + 4, n - 4, 3);

	n = reply(&c, b, udhcpc6_msg(b, 4, off_link, false), r);
	expect_common(r, n, 7, true);
	EXPECT_OPT(r + 4, n - 4, 13, 0, 4, 'n', 'o', 't', ' ', 'o', 'n', ' ',
		   'l', 'i', 'n', 'k');

	/* a /60 takes the off-link address in */
	c.prefix6 = 60;
	n = reply(&c, b, udhcpc6_msg(b, 4, off_link, false), r);
	EXPECT_OPT(r + 4, n - 4, 13, 0, 0, 'a', 'l', 'l', ' ', 'o', 'n', ' ',
		   'l', 'i', 'n', 'k');

	/* ... but not one that differs within the last, partial byte */
	off_link_60[7] = 0x10;
	n = reply(&c, b, udhcpc6_msg(b, 4, off_link_60, false), r);
	EXPECT_OPT(r + 4, n - 4, 13, 0, 4, 'n', 'o', 't', ' ', 'o', 'n', ' ',
		   'l', 'i', 'n', 'k');

	assert_int_equal(reply(&c, b, udhcpc6_msg(b, 4, NULL, false), r), 0);
}

/* INFORMATION-REQUEST: DNS only, with or without a Client Identifier */
static void test_information_request(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct conf c;
	size_t len, n;

	(void)state;
	conf_init(&c);
	len = msg_start(b, 11);
	opt(b, &len, 1, client_id, sizeof(client_id));
	OPT(b, &len, 6, 0, 23, 0, 24);
	n = reply(&c, b, len, r);
	expect_common(r, n, 7, true);
	expect_dns(r, n);
	expect_no_opt(r + 4, n - 4, 3);

	len = msg_start(b, 11);
	OPT(b, &len, 8, 0, 0);
	opt(b, &len, 2, server_id, sizeof(server_id));
	n = reply(&c, b, len, r);
	expect_common(r, n, 7, false);
	expect_dns(r, n);

	/* nothing configured: just the identifiers */
	c.n_dns6 = 0;
	c.n_search = 0;
	n = reply(&c, b, len, r);
	assert_int_equal(n, 4 + 14);
}

/* RELEASE and DECLINE: REPLY with status Success */
static void test_release(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct conf c;
	size_t n;

	(void)state;
	conf_init(&c);
	n = reply(&c, b, udhcpc6_msg(b, 8, addr, true), r);
	expect_common(r, n, 7, true);
	EXPECT_OPT(r + 4, n - 4, 13, 0, 0, 'o', 'k');
	expect_no_opt(r + 4, n - 4, 3);
	n = reply(&c, b, udhcpc6_msg(b, 9, addr, true), r);
	EXPECT_OPT(r + 4, n - 4, 13, 0, 0, 'o', 'k');
}

/* Types a client does not send, relayed messages, no Client Identifier */
static void test_no_answer(void **state)
{
	static const uint8_t types[] = { 0, 2, 7, 10, 12, 13, 14, 255 };
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct conf c;
	size_t len, i;

	(void)state;
	conf_init(&c);
	for (i = 0; i < sizeof(types); i++) {
		len = udhcpc6_msg(b, types[i], addr, true);
		assert_int_equal(reply(&c, b, len, r), 0);
	}

	len = msg_start(b, 1);
	ia_na(b, &len, iaid, NULL);
	assert_int_equal(reply(&c, b, len, r), 0);

	len = msg_start(b, 1);
	opt(b, &len, 1, NULL, 0);
	assert_int_equal(reply(&c, b, len, r), 0);

	len = udhcpc6_msg(b, 1, NULL, false);
	c.v6 = false;
	assert_int_equal(reply(&c, b, len, r), 0);
	conf_init(&c);
	c.no_dhcpv6 = true;
	assert_int_equal(reply(&c, b, len, r), 0);
}

/* IA_PD gets NoPrefixAvail; a second IA_NA NoAddrsAvail; IA_TA nothing */
static void test_other_ias(void **state)
{
	static const uint8_t iaid2[4] = { 9, 9, 9, 9 };
	uint8_t b[MSG_MAX], r[MSG_MAX];
	const uint8_t *v, *end;
	struct conf c;
	size_t len, n, olen;

	(void)state;
	conf_init(&c);
	len = udhcpc6_msg(b, 1, NULL, false);
	ia_na(b, &len, iaid2, NULL);
	OPT(b, &len, 25, 7, 7, 7, 7, 0, 0, 0, 0, 0, 0, 0, 0);
	OPT(b, &len, 4, 5, 5, 5, 5);
	n = reply(&c, b, len, r);
	expect_common(r, n, 2, true);
	expect_ia_na(r, n, 0);
	expect_no_opt(r + 4, n - 4, 4);
	EXPECT_OPT(r + 4, n - 4, 25, 7, 7, 7, 7, 0, 0, 0, 0, 0, 0, 0, 0,
		   0, 13, 0, 13, 0, 6, 'n', 'o', ' ', 'p', 'r', 'e', 'f', 'i',
		   'x', 'e', 's');

	/* the second IA_NA follows the first */
	v = find_opt(r + 4, n - 4, 3, &olen);
	v += olen;
	end = r + n;
	assert_true(v + 4 <= end);
	assert_int_equal(rd16(v), 3);
	EXPECT_OPT(v, (size_t)(end - v), 3, 9, 9, 9, 9, 0, 0, 0, 0, 0, 0, 0, 0,
		   0, 13, 0, 18, 0, 2, 'o', 'n', 'e', ' ', 'a', 'd', 'd', 'r',
		   'e', 's', 's', ' ', 'o', 'n', 'l', 'y');
}

/* Every truncation: no reply, or a well-formed one; never a read past */
static void test_truncated(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	size_t len, i, n, olen;
	struct conf c;

	(void)state;
	conf_init(&c);
	len = udhcpc6_msg(b, 3, addr, true);
	for (i = 0; i < len; i++) {
		n = reply(&c, b, i, r);
		if (!n)
			continue;
		assert_int_equal(r[0], 7);
		assert_memory_equal(r + 1, xid, 3);
		find_opt(r + 4, n - 4, 0xffff, &olen);
	}

	len = udhcpc6_msg(b, 1, NULL, false);
	for (i = 0; i < len; i++) {
		n = reply(&c, b, i, r);
		if (!n)
			continue;
		expect_common(r, n, 2, true);
	}
}

/* Option chains that do not add up */
static void test_bad_chains(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct conf c;
	size_t len, i;

	(void)state;
	conf_init(&c);

	/* an option claiming more than there is */
	len = udhcpc6_msg(b, 1, NULL, false);
	OPT(b, &len, 39, 0, 1, 'x');
	wr16(b + len - 5, 4);
	assert_int_equal(reply(&c, b, len, r), 0);

	/* one to three stray bytes after the last option */
	len = udhcpc6_msg(b, 1, NULL, false);
	memset(b + len, 0, 3);
	for (i = 1; i <= 3; i++)
		assert_int_equal(reply(&c, b, len + i, r), 0);

	/* an IA_NA too short for IAID, T1 and T2 */
	len = msg_start(b, 1);
	opt(b, &len, 1, client_id, sizeof(client_id));
	OPT(b, &len, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0);
	assert_int_equal(reply(&c, b, len, r), 0);

	/* an IA Address running past the end of its IA_NA */
	len = udhcpc6_msg(b, 5, addr, true);
	wr16(b + 4 + 14 + 14 + 12 + 4 + 2, 25);
	assert_int_equal(reply(&c, b, len, r), 0);

	/* an IA_PD whose nested chain is cut */
	len = udhcpc6_msg(b, 1, NULL, false);
	OPT(b, &len, 25, 7, 7, 7, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 26, 0);
	assert_int_equal(reply(&c, b, len, r), 0);
}

/* The caller's buffer bounds the reply; DNS options go first */
static void test_size(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct conf c;
	struct pkt p;
	size_t n;

	(void)state;
	conf_init(&c);
	p.data = b;
	p.len = udhcpc6_msg(b, 1, NULL, false);

	n = dhcp6_reply(&c, &p, r, 4 + 14 + 14 + 44 + 20);
	assert_int_equal(n, 4 + 14 + 14 + 44 + 20);
	expect_common(r, n, 2, true);
	expect_ia_na(r, n, 0);
	expect_no_opt(r + 4, n - 4, 24);

	n = dhcp6_reply(&c, &p, r, 4 + 14 + 14 + 44 + 18);
	expect_no_opt(r + 4, n - 4, 23);
	EXPECT_OPT(r + 4, n - 4, 24, 7, 'n', 'e', 't', 's', 'h', 'i', 'm',
		   4, 't', 'e', 's', 't', 0);

	assert_int_equal(dhcp6_reply(&c, &p, r, 4 + 14 + 14 + 43), 0);
	assert_int_equal(dhcp6_reply(&c, &p, r, 3), 0);
	assert_int_equal(dhcp6_reply(&c, &p, r, 0), 0);
}

/* Random corruption of valid messages: any outcome, but within bounds */
static void test_mutations(void **state)
{
	uint8_t b[MSG_MAX], m[MSG_MAX], r[MSG_MAX];
	unsigned int seed = 1;
	size_t len, n, olen;
	struct conf c;
	int i, j;

	(void)state;
	conf_init(&c);
	len = udhcpc6_msg(b, 5, addr, true);
	for (i = 0; i < 20000; i++) {
		memcpy(m, b, len);
		for (j = 0; j < 3; j++)
			m[(size_t)rand_r(&seed) % len] = (uint8_t)rand_r(&seed);
		n = reply(&c, m, len - (size_t)rand_r(&seed) % 8, r);
		if (!n)
			continue;
		assert_true(r[0] == 2 || r[0] == 7);
		find_opt(r + 4, n - 4, 0xffff, &olen);
	}
}

/**
 * fqdn_solicit() - a SOLICIT as dhclient -6 sends it with a Client FQDN
 * @b:		message buffer
 * @flags:	flags of option 39, or -1 for no option 39
 * @ask:	list 39 in the Option Request option
 *
 * Return: message length
 */
static size_t fqdn_solicit(uint8_t *b, int flags, bool ask)
{
	size_t len = msg_start(b, 1);

	opt(b, &len, 1, client_id, sizeof(client_id));
	ia_na(b, &len, iaid, NULL);
	if (ask)
		OPT(b, &len, 6, 0, 23, 0, 24, 0, 39);
	else
		OPT(b, &len, 6, 0, 23, 0, 24);
	if (flags >= 0)
		OPT(b, &len, 39, (uint8_t)flags, 2, 'v', 'm', 0);
	return len;
}

/* RFC 4704: the Client FQDN option with --fqdn, to every client as passt
 * sends it, N set and S clear (no DNS update), O set if the client asked
 * for S
 */
static void test_fqdn(void **state)
{
	uint8_t b[MSG_MAX], r[MSG_MAX];
	struct conf c;
	size_t n;

	(void)state;
	conf_init(&c);
	n = reply(&c, b, fqdn_solicit(b, 0x01, true), r);
	expect_common(r, n, 2, true);
	expect_no_opt(r + 4, n - 4, 39);

	strcpy(c.fqdn, "vm1.netshim.test");
	n = reply(&c, b, fqdn_solicit(b, 0x01, false), r);
	expect_common(r, n, 2, true);
	EXPECT_OPT(r + 4, n - 4, 39, 0x06, 3, 'v', 'm', '1', 7, 'n', 'e',
		   't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0);
	expect_dns(r, n);

	n = reply(&c, b, fqdn_solicit(b, 0x00, false), r);
	EXPECT_OPT(r + 4, n - 4, 39, 0x04, 3, 'v', 'm', '1', 7, 'n', 'e',
		   't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0);

	n = reply(&c, b, fqdn_solicit(b, -1, true), r);
	EXPECT_OPT(r + 4, n - 4, 39, 0x04, 3, 'v', 'm', '1', 7, 'n', 'e',
		   't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0);

	n = reply(&c, b, fqdn_solicit(b, -1, false), r);
	expect_common(r, n, 2, true);
	EXPECT_OPT(r + 4, n - 4, 39, 0x04, 3, 'v', 'm', '1', 7, 'n', 'e',
		   't', 's', 'h', 'i', 'm', 4, 't', 'e', 's', 't', 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_solicit),
		cmocka_unit_test(test_solicit_rapid),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_foreign_server),
		cmocka_unit_test(test_renew_stale),
		cmocka_unit_test(test_confirm),
		cmocka_unit_test(test_information_request),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_no_answer),
		cmocka_unit_test(test_other_ias),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_chains),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_fqdn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
