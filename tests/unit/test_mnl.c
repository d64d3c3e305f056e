// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of static/mnl.c against the system's libmnl
 *
 * The static build links static/mnl.c in place of libmnl, which Debian
 * ships as a shared library only.  It is compiled here under other names
 * (static_mnl_*), beside the real libmnl this test links, and both are
 * given the same inputs: messages built must be byte for byte the same,
 * and parsing well-formed, truncated and random messages must give the
 * same callbacks, return values and errno.  One difference is meant and
 * left out of the comparison: attributes are read up to a message's
 * length, where libmnl reads up to that length rounded up to 4 bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <linux/rtnetlink.h>

#include "unit.h"

#include <libmnl/libmnl.h>

/* static/mnl.c under names of its own: its include of libmnl.h above is
 * already done, so only its definitions take these names
 */
#define mnl_socket_open			static_mnl_socket_open
#define mnl_socket_bind			static_mnl_socket_bind
#define mnl_socket_close		static_mnl_socket_close
#define mnl_socket_get_fd		static_mnl_socket_get_fd
#define mnl_socket_get_portid		static_mnl_socket_get_portid
#define mnl_nlmsg_put_header		static_mnl_nlmsg_put_header
#define mnl_nlmsg_put_extra_header	static_mnl_nlmsg_put_extra_header
#define mnl_nlmsg_get_payload		static_mnl_nlmsg_get_payload
#define mnl_nlmsg_get_payload_len	static_mnl_nlmsg_get_payload_len
#define mnl_nlmsg_ok			static_mnl_nlmsg_ok
#define mnl_nlmsg_next			static_mnl_nlmsg_next
#define mnl_attr_get_type		static_mnl_attr_get_type
#define mnl_attr_get_payload_len	static_mnl_attr_get_payload_len
#define mnl_attr_get_payload		static_mnl_attr_get_payload
#define mnl_attr_get_u32		static_mnl_attr_get_u32
#define mnl_attr_get_str		static_mnl_attr_get_str
#define mnl_attr_put			static_mnl_attr_put
#define mnl_attr_put_u32		static_mnl_attr_put_u32
#define mnl_attr_put_strz		static_mnl_attr_put_strz
#define mnl_attr_type_valid		static_mnl_attr_type_valid
#define mnl_attr_validate2		static_mnl_attr_validate2
#define mnl_attr_validate		static_mnl_attr_validate
#define mnl_attr_ok			static_mnl_attr_ok
#define mnl_attr_next			static_mnl_attr_next
#define mnl_attr_parse_payload		static_mnl_attr_parse_payload
#define mnl_attr_parse			static_mnl_attr_parse
#define mnl_cb_run			static_mnl_cb_run
#include "static/mnl.c"
#undef mnl_socket_open
#undef mnl_socket_bind
#undef mnl_socket_close
#undef mnl_socket_get_fd
#undef mnl_socket_get_portid
#undef mnl_nlmsg_put_header
#undef mnl_nlmsg_put_extra_header
#undef mnl_nlmsg_get_payload
#undef mnl_nlmsg_get_payload_len
#undef mnl_nlmsg_ok
#undef mnl_nlmsg_next
#undef mnl_attr_get_type
#undef mnl_attr_get_payload_len
#undef mnl_attr_get_payload
#undef mnl_attr_get_u32
#undef mnl_attr_get_str
#undef mnl_attr_put
#undef mnl_attr_put_u32
#undef mnl_attr_put_strz
#undef mnl_attr_type_valid
#undef mnl_attr_validate2
#undef mnl_attr_validate
#undef mnl_attr_ok
#undef mnl_attr_next
#undef mnl_attr_parse_payload
#undef mnl_attr_parse
#undef mnl_cb_run

#define BUF_SIZE	4096
#define ROUNDS		20000	/* random messages per test: a second at most */
#define LOG_MAX		64	/* callbacks recorded per parse */

/**
 * struct cb_log - what the callbacks of one parse saw, and how to answer
 * @n:		callbacks so far
 * @at:		offset of each attribute or message in the buffer
 * @type:	its type
 * @stop_at:	callback number that answers MNL_CB_STOP, -1 for none
 * @base:	the buffer, for offsets
 */
struct cb_log {
	int n;
	long at[LOG_MAX];
	unsigned int type[LOG_MAX];
	int stop_at;
	const char *base;
};

static uint32_t rnd_state = 0x2545f491;

/**
 * rnd() - a deterministic pseudo-random number (xorshift32): every run
 *	   tests the same messages
 *
 * Return: the next number
 */
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/**
 * log_cb() - record one callback, and answer as the log says
 * @l:		log
 * @p:		attribute or message
 * @type:	its type
 *
 * Return: MNL_CB_STOP at @l->stop_at, else MNL_CB_OK
 */
static int log_cb(struct cb_log *l, const void *p, unsigned int type)
{
	int i = l->n++;

	if (i < LOG_MAX) {
		l->at[i] = (const char *)p - l->base;
		l->type[i] = type;
	}
	return i == l->stop_at ? MNL_CB_STOP : MNL_CB_OK;
}

/**
 * attr_cb() - attribute callback of the parses
 * @attr:	attribute
 * @data:	struct cb_log
 *
 * Return: as log_cb()
 */
static int attr_cb(const struct nlattr *attr, void *data)
{
	return log_cb(data, attr, attr->nla_type);
}

/**
 * msg_cb() - data message callback of the parses
 * @nlh:	message
 * @data:	struct cb_log
 *
 * Return: as log_cb()
 */
static int msg_cb(const struct nlmsghdr *nlh, void *data)
{
	return log_cb(data, nlh, nlh->nlmsg_type);
}

/**
 * logs_equal() - assert that two parses saw the same
 * @a:		one
 * @b:		the other
 */
static void logs_equal(const struct cb_log *a, const struct cb_log *b)
{
	int i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n && i < LOG_MAX; i++) {
		assert_int_equal(a->at[i], b->at[i]);
		assert_int_equal(a->type[i], b->type[i]);
	}
}

/**
 * fill_attrs() - random attributes, some of them malformed
 * @p:		where
 * @len:	bytes to fill
 */
static void fill_attrs(char *p, size_t len)
{
	size_t off = 0, n, i;

	while (off + sizeof(struct nlattr) <= len) {
		struct nlattr a;
		uint32_t r = rnd();
		size_t plen = r % 24;

		/* Mostly attributes as stated, so that walks go on; now and
		 * then a length of anything, or a value of another length
		 */
		a.nla_len = r % 16 ? sizeof(a) + plen : (uint16_t)rnd();
		a.nla_type = (r >> 8) % 40 | (r & 0x8000 ? NLA_F_NESTED : 0);
		memcpy(p + off, &a, sizeof(a));
		off += sizeof(a);
		n = (r >> 16) % 8 ? MNL_ALIGN(plen) : rnd() % 8;
		for (i = 0; i < n && off < len; i++, off++)
			p[off] = rnd();
	}
	for (; off < len; off++)
		p[off] = rnd();
}

/**
 * test_build() - the putters write the same bytes
 * @state:	unused
 */
static void test_build(void **state)
{
	static char a[BUF_SIZE], b[BUF_SIZE];
	const uint8_t mac[6] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };
	struct nlmsghdr *na, *nb;
	struct ifinfomsg *ia, *ib;
	size_t len;

	(void)state;
	/* libmnl 1.0.4 leaves the padding after an attribute as it was,
	 * static/mnl.c zeroes it: libmnl's is zeroed beforehand, ours not
	 */
	memset(a, 0, sizeof(a));
	memset(b, 0x5a, sizeof(b));
	na = mnl_nlmsg_put_header(a);
	nb = static_mnl_nlmsg_put_header(b);
	na->nlmsg_type = nb->nlmsg_type = RTM_NEWLINK;
	ia = mnl_nlmsg_put_extra_header(na, sizeof(*ia));
	ib = static_mnl_nlmsg_put_extra_header(nb, sizeof(*ib));
	assert_ptr_equal((char *)ia - a, (char *)ib - b);
	ia->ifi_index = ib->ifi_index = 7;
	mnl_attr_put_u32(na, IFLA_MTU, 1500);
	static_mnl_attr_put_u32(nb, IFLA_MTU, 1500);
	mnl_attr_put(na, IFLA_ADDRESS, sizeof(mac), mac);
	static_mnl_attr_put(nb, IFLA_ADDRESS, sizeof(mac), mac);
	mnl_attr_put_strz(na, IFLA_IFNAME, "eth0");
	static_mnl_attr_put_strz(nb, IFLA_IFNAME, "eth0");
	mnl_attr_put(na, IFLA_IFALIAS, 1, "x");
	static_mnl_attr_put(nb, IFLA_IFALIAS, 1, "x");
	mnl_attr_put(na, IFLA_LINK, 0, NULL);
	static_mnl_attr_put(nb, IFLA_LINK, 0, NULL);

	assert_int_equal(na->nlmsg_len, nb->nlmsg_len);
	len = na->nlmsg_len;
	assert_memory_equal(a, b, len);
	assert_int_equal(mnl_nlmsg_get_payload_len(na),
			 static_mnl_nlmsg_get_payload_len(nb));
	assert_ptr_equal((char *)mnl_nlmsg_get_payload(na) - a,
			 (char *)static_mnl_nlmsg_get_payload(nb) - b);
}

/**
 * test_validate() - validation agrees for every type and small length
 * @state:	unused
 */
static void test_validate(void **state)
{
	static char buf[64] __attribute__((aligned(4)));
	struct nlattr *attr = (struct nlattr *)buf;
	int type, len, last, ra, rb, ea, eb;

	(void)state;
	for (type = MNL_TYPE_UNSPEC; type <= MNL_TYPE_MAX; type++) {
		for (len = 0; len <= 20; len++) {
			for (last = 0; last < 2; last++) {
				memset(buf, 'a', sizeof(buf));
				attr->nla_len = MNL_ATTR_HDRLEN + len;
				attr->nla_type = 1;
				if (len && !last)
					buf[MNL_ATTR_HDRLEN + len - 1] = '\0';

				errno = 0;
				ra = mnl_attr_validate(attr, type);
				ea = errno;
				errno = 0;
				rb = static_mnl_attr_validate(attr, type);
				eb = errno;
				assert_int_equal(ra, rb);
				assert_int_equal(ea, eb);

				errno = 0;
				ra = mnl_attr_validate2(attr, type, len % 9);
				ea = errno;
				errno = 0;
				rb = static_mnl_attr_validate2(attr, type,
							       len % 9);
				eb = errno;
				assert_int_equal(ra, rb);
				assert_int_equal(ea, eb);
			}
		}
	}
	for (type = 0; type < 40; type++) {
		attr->nla_type = type | (type & 1 ? NLA_F_NESTED : 0);
		assert_int_equal(mnl_attr_get_type(attr),
				 static_mnl_attr_get_type(attr));
		errno = 0;
		ra = mnl_attr_type_valid(attr, 20);
		ea = errno;
		errno = 0;
		rb = static_mnl_attr_type_valid(attr, 20);
		eb = errno;
		assert_int_equal(ra, rb);
		assert_int_equal(ea, eb);
	}
}

/**
 * test_attr_parse() - attribute walks agree on random attributes
 * @state:	unused
 */
static void test_attr_parse(void **state)
{
	static char buf[BUF_SIZE] __attribute__((aligned(4)));
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct cb_log la, lb;
	unsigned int offset;
	int i, ra, rb;

	(void)state;
	for (i = 0; i < ROUNDS; i++) {
		size_t len = MNL_NLMSG_HDRLEN + rnd() % 200;

		fill_attrs(buf + MNL_NLMSG_HDRLEN, len - MNL_NLMSG_HDRLEN);
		/* Whole messages have 4-byte lengths: see the top */
		nlh->nlmsg_len = MNL_ALIGN(len);
		offset = rnd() % 3 ? 0 : rnd() % 24;

		memset(&la, 0, sizeof(la));
		la.base = buf;
		la.stop_at = rnd() % 4 ? -1 : (int)(rnd() % 6);
		lb = la;
		ra = mnl_attr_parse(nlh, offset, attr_cb, &la);
		rb = static_mnl_attr_parse(nlh, offset, attr_cb, &lb);
		assert_int_equal(ra, rb);
		logs_equal(&la, &lb);

		memset(&la, 0, sizeof(la));
		la.base = buf;
		la.stop_at = -1;
		lb = la;
		len -= MNL_NLMSG_HDRLEN;
		ra = mnl_attr_parse_payload(buf + MNL_NLMSG_HDRLEN, len,
					    attr_cb, &la);
		rb = static_mnl_attr_parse_payload(buf + MNL_NLMSG_HDRLEN,
						   len, attr_cb, &lb);
		assert_int_equal(ra, rb);
		logs_equal(&la, &lb);
	}
}

/**
 * put_msg() - append a message to a reply buffer
 * @buf:	buffer
 * @off:	where, advanced past the message (aligned)
 * @type:	message type
 * @flags:	message flags
 * @seq:	sequence number
 * @pid:	port id
 * @plen:	payload length
 * @err:	for NLMSG_ERROR, the error to put in the payload
 */
static void put_msg(char *buf, size_t *off, uint16_t type, uint16_t flags,
		    uint32_t seq, uint32_t pid, size_t plen, int err)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(buf + *off);
	size_t i;

	nlh->nlmsg_len = MNL_NLMSG_HDRLEN + plen;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = pid;
	for (i = 0; i < plen; i++)
		buf[*off + MNL_NLMSG_HDRLEN + i] = rnd();
	if (type == NLMSG_ERROR && plen >= sizeof(struct nlmsgerr))
		memcpy(buf + *off + MNL_NLMSG_HDRLEN, &err, sizeof(err));
	*off += MNL_ALIGN(nlh->nlmsg_len);
}

/**
 * run_both() - mnl_cb_run() of both, asserted the same
 * @buf:	reply
 * @len:	its length
 * @seq:	sequence number expected
 * @pid:	port id expected
 * @stop_at:	data callback that stops the walk, -1 for none
 */
static void run_both(const char *buf, size_t len, unsigned int seq,
		     unsigned int pid, int stop_at)
{
	struct cb_log la = { .base = buf, .stop_at = stop_at }, lb;
	int ra, rb, ea, eb;

	lb = la;
	errno = 12345;
	ra = mnl_cb_run(buf, len, seq, pid, msg_cb, &la);
	ea = errno;
	errno = 12345;
	rb = static_mnl_cb_run(buf, len, seq, pid, msg_cb, &lb);
	eb = errno;
	assert_int_equal(ra, rb);
	assert_int_equal(ea, eb);
	logs_equal(&la, &lb);
}

/**
 * test_cb_run() - replies of every kind are handled alike: data, done,
 *		   acknowledgements, errors, truncated errors, other sockets'
 *		   and requests' messages, interrupted dumps, no message
 * @state:	unused
 */
static void test_cb_run(void **state)
{
	static const uint16_t types[] = {
		NLMSG_NOOP, NLMSG_ERROR, NLMSG_DONE, NLMSG_OVERRUN, 0, 5,
		NLMSG_MIN_TYPE, RTM_NEWLINK, RTM_NEWADDR, RTM_NEWROUTE,
	};
	static char buf[BUF_SIZE] __attribute__((aligned(4)));
	int i, m, msgs;

	(void)state;
	run_both(buf, 0, 1, 1, -1);
	for (i = 0; i < ROUNDS; i++) {
		unsigned int seq = rnd() % 3, pid = rnd() % 3;
		size_t off = 0;

		msgs = 1 + rnd() % 5;
		for (m = 0; m < msgs && off < BUF_SIZE - 256; m++) {
			uint16_t type = types[rnd() % MNL_ARRAY_SIZE(types)];
			uint16_t flags = rnd() % 16 ? NLM_F_MULTI :
					 NLM_F_DUMP_INTR;
			size_t plen = rnd() % 40;

			put_msg(buf, &off, type, flags,
				rnd() % 8 ? seq : rnd() % 3,
				rnd() % 8 ? pid : rnd() % 3, plen,
				rnd() % 2 ? 0 : -(int)(rnd() % 130));
		}
		/* Sometimes cut short, in a header or a payload */
		if (!(rnd() % 4))
			off -= rnd() % (off + 1);
		run_both(buf, off, seq, pid, rnd() % 4 ? -1 : (int)(rnd() % 3));
	}
}

/**
 * test_socket() - a netlink socket opens, binds to a port id, closes
 * @state:	unused
 */
static void test_socket(void **state)
{
	struct mnl_socket *nl = static_mnl_socket_open(NETLINK_ROUTE);

	(void)state;
	assert_non_null(nl);
	assert_true(static_mnl_socket_get_fd(nl) >= 0);
	assert_int_equal(static_mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID), 0);
	assert_true(static_mnl_socket_get_portid(nl) != 0);
	assert_int_equal(static_mnl_socket_close(nl), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_attr_parse),
		cmocka_unit_test(test_cb_run),
		cmocka_unit_test(test_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
