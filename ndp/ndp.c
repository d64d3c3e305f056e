// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - Neighbour Discovery (RFC 4861), SLAAC (RFC 4862), RDNSS and
 * DNSSL (RFC 8106)
 *
 * The guest's only neighbour is netshim, which stands in for the router and
 * for every other host: it advertises itself as the default router, hands out
 * the pod's prefix, and answers neighbour solicitations for any address that
 * is not the guest's own with its own MAC address.
 */
#include <string.h>

#include "netshim/dnsname.h"
#include "ndp.h"

#define ICMP6_RS		133
#define ICMP6_RA		134
#define ICMP6_NS		135
#define ICMP6_NA		136

#define RS_LEN			8	/* options start here */
#define RA_LEN			16
#define NS_LEN			24	/* header and target address */
#define NA_LEN			24
#define NS_PROBE_LEN		32	/* header, target, SLLA option */

#define OPT_SLLA		1
#define OPT_TLLA		2
#define OPT_PREFIX		3
#define OPT_MTU			5
#define OPT_RDNSS		25
#define OPT_DNSSL		31
#define OPT_UNIT		8	/* option lengths count 8-byte units */

#define RA_HOP_LIMIT		64
#define RA_FLAG_MANAGED		0x80
#define RA_FLAG_OTHER		0x40
#define RA_ROUTER_LIFETIME	65535	/* RFC 8319: full field */
#define PREFIX_FLAG_ONLINK	0x80
#define PREFIX_FLAG_AUTO	0x40
#define SLAAC_PREFIX_LEN	64
#define LIFETIME_INFINITE	0xffffffffU

#define NA_FLAG_ROUTER		0x80000000U
#define NA_FLAG_SOLICITED	0x40000000U
#define NA_FLAG_OVERRIDE	0x20000000U

#define IPV6_MIN_MTU		1280
#define IPV6_HDR_LEN		40
/* RFC 6980 forbids fragmented ND messages: keep every RA in one packet */
#define RA_MAX_LEN		(IPV6_MIN_MTU - IPV6_HDR_LEN)


/* ff02::1, where RAs go when the soliciting node has no address yet */
static const struct in6_addr all_nodes = {
	.s6_addr = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 }
};

/**
 * struct ndp_buf - output buffer being filled by the RA builder
 * @data:	first byte
 * @size:	room in @data
 * @len:	bytes written so far
 * @full:	a write did not fit: the message is unusable
 */
struct ndp_buf {
	uint8_t *data;
	size_t size;
	size_t len;
	bool full;
};

/**
 * buf_reserve() - claim zeroed bytes at the end of an output buffer
 * @b:		output buffer
 * @n:		number of bytes
 *
 * Return: pointer to @n zeroed bytes, or NULL (and @b marked full) if they
 *	   do not fit
 */
static uint8_t *buf_reserve(struct ndp_buf *b, size_t n)
{
	uint8_t *p;

	if (b->full || n > b->size - b->len) {
		b->full = true;
		return NULL;
	}
	p = b->data + b->len;
	memset(p, 0, n);
	b->len += n;
	return p;
}

/**
 * ra_put_opt() - claim room for an option and fill in its type and length
 * @b:		output buffer
 * @type:	option type
 * @units:	option length in 8-byte units, headers included
 *
 * Return: pointer to the zeroed option, or NULL if it does not fit
 */
static uint8_t *ra_put_opt(struct ndp_buf *b, uint8_t type, uint8_t units)
{
	uint8_t *p = buf_reserve(b, (size_t)units * OPT_UNIT);

	if (p) {
		p[0] = type;
		p[1] = units;
	}
	return p;
}

/**
 * ra_put_header() - write the fixed part of a Router Advertisement
 * @c:		configuration: whether DHCPv6 answers
 * @b:		output buffer
 */
static void ra_put_header(const struct conf *c, struct ndp_buf *b)
{
	uint8_t *p = buf_reserve(b, RA_LEN);

	if (!p)
		return;
	p[0] = ICMP6_RA;
	p[4] = RA_HOP_LIMIT;
	/* The pod's address comes from DHCPv6 too: make clients ask for it,
	 * unless DHCPv6 does not answer (--no-dhcpv6, or local mode, with
	 * no address to give)
	 */
	if (!c->no_dhcpv6)
		p[5] = RA_FLAG_MANAGED | RA_FLAG_OTHER;
	wr16(p + 6, RA_ROUTER_LIFETIME);
}

/**
 * ra_put_slla() - write the Source Link-Layer Address option
 * @c:		configuration: our MAC address
 * @b:		output buffer
 */
static void ra_put_slla(const struct conf *c, struct ndp_buf *b)
{
	uint8_t *p = ra_put_opt(b, OPT_SLLA, 1);

	if (p)
		memcpy(p + 2, c->our_mac, ETH_ALEN_);
}

/**
 * ra_put_mtu() - write the MTU option, if the link MTU is usable for IPv6
 * @c:		configuration: link MTU
 * @b:		output buffer
 */
static void ra_put_mtu(const struct conf *c, struct ndp_buf *b)
{
	uint8_t *p;

	if (c->mtu < IPV6_MIN_MTU)
		return;
	p = ra_put_opt(b, OPT_MTU, 1);
	if (p)
		wr32(p + 4, c->mtu);
}

/**
 * prefix_mask() - clear the host part of an address
 * @addr:	address, 16 bytes, masked in place
 * @bits:	prefix length, 0 to 128
 */
static void prefix_mask(uint8_t *addr, int bits)
{
	int i;

	for (i = 0; i < (int)sizeof(struct in6_addr); i++) {
		int keep = bits - i * 8;

		if (keep <= 0)
			addr[i] = 0;
		else if (keep < 8)
			addr[i] &= (uint8_t)(0xff << (8 - keep));
	}
}

/**
 * ra_put_prefix() - write the Prefix Information option for the guest
 * @c:		configuration: guest address and prefix length
 * @b:		output buffer
 *
 * The prefix is always the /64 holding the guest's address, whatever the
 * pod's own prefix length: SLAAC needs a 64-bit interface identifier, and
 * pods often have a /128 or a longer prefix, which would leave a guest
 * without a DHCPv6 client with no global address at all.  netshim answers
 * for every other address of the /64, so calling it on-link is true.
 */
static void ra_put_prefix(const struct conf *c, struct ndp_buf *b)
{
	uint8_t prefix[sizeof(struct in6_addr)];
	uint8_t *p;

	if (c->prefix6 < 1 || c->prefix6 > 128)
		return;
	p = ra_put_opt(b, OPT_PREFIX, 4);
	if (!p)
		return;

	memcpy(prefix, &c->addr6, sizeof(prefix));
	prefix_mask(prefix, SLAAC_PREFIX_LEN);

	p[2] = SLAAC_PREFIX_LEN;
	p[3] = PREFIX_FLAG_ONLINK | PREFIX_FLAG_AUTO;
	wr32(p + 4, LIFETIME_INFINITE);
	wr32(p + 8, LIFETIME_INFINITE);
	memcpy(p + 16, prefix, sizeof(prefix));
}

/**
 * ra_put_rdnss() - write the Recursive DNS Server option, if we have any
 * @c:		configuration: IPv6 resolvers
 * @b:		output buffer
 */
static void ra_put_rdnss(const struct conf *c, struct ndp_buf *b)
{
	int n = c->n_dns6 > CONF_MAX_DNS ? CONF_MAX_DNS : c->n_dns6;
	size_t addr_len = sizeof(struct in6_addr);
	uint8_t *p;
	int i;

	if (n <= 0)
		return;
	/* Each address takes two 8-byte units, after one of header */
	p = ra_put_opt(b, OPT_RDNSS, (uint8_t)(1 + 2 * n));
	if (!p)
		return;
	wr32(p + 4, LIFETIME_INFINITE);
	for (i = 0; i < n; i++)
		memcpy(p + OPT_UNIT + i * addr_len, &c->dns6[i], addr_len);
}

/**
 * ra_put_dnssl() - write the DNS Search List option, if we have any
 * @c:		configuration: search domains
 * @b:		output buffer
 *
 * Domains that would push the RA past one minimum-MTU packet are left out,
 * as are names that cannot be encoded: a partial list beats a lost RA.
 */
static void ra_put_dnssl(const struct conf *c, struct ndp_buf *b)
{
	int n = c->n_search > CONF_MAX_SEARCH ? CONF_MAX_SEARCH : c->n_search;
	uint8_t names[CONF_MAX_SEARCH * (DNS_NAME_MAX + 1)];
	size_t len = 0, room, units;
	uint8_t *p;
	int i;

	if (n <= 0 || b->len + 2 * OPT_UNIT > RA_MAX_LEN)
		return;
	/* Whole units only, so the zero padding never crosses the limit */
	room = (RA_MAX_LEN - b->len) / OPT_UNIT * OPT_UNIT - OPT_UNIT;
	if (room > sizeof(names))
		room = sizeof(names);

	for (i = 0; i < n; i++) {
		char name[CONF_SEARCH_LEN + 1];

		memcpy(name, c->search[i], CONF_SEARCH_LEN);
		name[CONF_SEARCH_LEN] = '\0';
		len += dns_name_encode(name, names + len, room - len);
	}
	if (!len)
		return;

	units = (OPT_UNIT + len + OPT_UNIT - 1) / OPT_UNIT;
	p = ra_put_opt(b, OPT_DNSSL, (uint8_t)units);
	if (!p)
		return;
	wr32(p + 4, LIFETIME_INFINITE);
	memcpy(p + OPT_UNIT, names, len);
}

/**
 * ndp_ra_build() - build the Router Advertisement netshim sends the guest
 * @c:		configuration: addresses, MTU, resolvers, search domains
 * @out:	output buffer for the ICMPv6 message
 * @size:	room in @out
 *
 * The checksum is left zero: the caller computes it over the IPv6 pseudo
 * header it chooses.
 *
 * Return: length of the message, 0 if IPv6 or router advertisements are
 *	   disabled or @size is too small
 */
size_t ndp_ra_build(const struct conf *c, uint8_t *out, size_t size)
{
	struct ndp_buf b = { .data = out, .size = size };

	if (!c->v6 || c->no_ndp || c->no_ra)
		return 0;

	ra_put_header(c, &b);
	ra_put_slla(c, &b);
	ra_put_mtu(c, &b);
	ra_put_prefix(c, &b);
	ra_put_rdnss(c, &b);
	ra_put_dnssl(c, &b);

	return b.full ? 0 : b.len;
}

/**
 * ndp_opts_valid() - check the option area of a Neighbour Discovery message
 * @opts:	options, up to the end of the message
 * @has_slla:	set if a Source Link-Layer Address option is present
 *
 * RFC 4861 requires silently discarding a message with a zero-length option;
 * an option running past the end of the message is just as malformed.
 *
 * Return: true if every option is well-formed
 */
static bool ndp_opts_valid(const struct pkt *opts, bool *has_slla)
{
	size_t off = 0;

	*has_slla = false;
	while (off < opts->len) {
		const uint8_t *h = pkt_get(opts, off, 2);
		size_t len;

		if (!h || !h[1])
			return false;
		len = (size_t)h[1] * OPT_UNIT;
		if (!pkt_get(opts, off, len))
			return false;
		if (h[0] == OPT_SLLA)
			*has_slla = true;
		off += len;
	}
	return true;
}

/**
 * ndp_msg_valid() - check code, minimum length and options of a message
 * @icmp:	ICMPv6 message
 * @min_len:	minimum length for its type, where options start
 * @has_slla:	set if a Source Link-Layer Address option is present
 *
 * Return: true if the message may be processed
 */
static bool ndp_msg_valid(const struct pkt *icmp, size_t min_len,
			  bool *has_slla)
{
	const uint8_t *h = pkt_get(icmp, 0, min_len);
	struct pkt opts;

	if (!h || h[1] != 0)
		return false;
	return pkt_sub(icmp, min_len, &opts) && ndp_opts_valid(&opts, has_slla);
}

/**
 * ndp_rs_reply() - answer a Router Solicitation with a Router Advertisement
 * @c:		configuration
 * @src:	IPv6 source of the solicitation
 * @icmp:	the solicitation
 * @out:	output buffer for the ICMPv6 reply
 * @size:	room in @out
 * @reply_dst:	IPv6 destination of the reply, filled in
 *
 * Return: length of the reply, 0 if there is none
 */
static size_t ndp_rs_reply(const struct conf *c, const struct in6_addr *src,
			   const struct pkt *icmp, uint8_t *out, size_t size,
			   struct in6_addr *reply_dst)
{
	bool unspec = IN6_IS_ADDR_UNSPECIFIED(src);
	bool has_slla;
	size_t len;

	if (!ndp_msg_valid(icmp, RS_LEN, &has_slla))
		return 0;
	/* RFC 4861 6.1.1: no link-layer address without an IP address */
	if (unspec && has_slla)
		return 0;

	len = ndp_ra_build(c, out, size);
	if (!len)
		return 0;

	*reply_dst = unspec ? all_nodes : *src;
	return len;
}

/**
 * ns_dst_valid() - check where a Neighbour Solicitation was sent
 * @dst:	IPv6 destination of the solicitation
 * @target:	its target address
 *
 * Address resolution goes to the target's solicited-node multicast address,
 * reachability confirmation to the target itself (RFC 4861 7.2.2).
 *
 * Return: true if @dst is one of the two
 */
static bool ns_dst_valid(const struct in6_addr *dst,
			 const struct in6_addr *target)
{
	static const uint8_t snm[13] = {
		0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff
	};

	if (IN6_ARE_ADDR_EQUAL(dst, target))
		return true;
	return !memcmp(dst->s6_addr, snm, sizeof(snm)) &&
	       !memcmp(dst->s6_addr + 13, target->s6_addr + 13, 3);
}

/**
 * ns_target_answered() - tell whether netshim speaks for a solicited target
 * @c:		configuration: the guest's global address
 * @src:	IPv6 source of the solicitation
 * @target:	its target address
 *
 * netshim stands in for every host on the link except the guest itself.
 * The guest's link-local addresses aren't known, but a node only solicits
 * its own address as the source of the query (or during DAD, from ::).
 *
 * Return: true if netshim should advertise @target as its own
 */
static bool ns_target_answered(const struct conf *c,
			       const struct in6_addr *src,
			       const struct in6_addr *target)
{
	/* Answering a DAD probe would make the guest drop its address */
	if (IN6_IS_ADDR_UNSPECIFIED(src) || IN6_IS_ADDR_MULTICAST(src))
		return false;
	if (IN6_IS_ADDR_UNSPECIFIED(target) || IN6_IS_ADDR_MULTICAST(target))
		return false;
	return !IN6_ARE_ADDR_EQUAL(target, &c->addr6) &&
	       !IN6_ARE_ADDR_EQUAL(target, src);
}

/**
 * ndp_ns_reply() - answer a Neighbour Solicitation with an advertisement
 * @c:		configuration
 * @src:	IPv6 source of the solicitation
 * @dst:	IPv6 destination of the solicitation
 * @icmp:	the solicitation
 * @out:	output buffer for the ICMPv6 reply
 * @size:	room in @out
 * @reply_dst:	IPv6 destination of the reply, filled in
 *
 * Return: length of the reply, 0 if there is none
 */
static size_t ndp_ns_reply(const struct conf *c, const struct in6_addr *src,
			   const struct in6_addr *dst, const struct pkt *icmp,
			   uint8_t *out, size_t size,
			   struct in6_addr *reply_dst)
{
	struct in6_addr target;
	bool has_slla;

	if (!ndp_msg_valid(icmp, NS_LEN, &has_slla) ||
	    !pkt_copy(icmp, 8, &target, sizeof(target)))
		return 0;
	if (!ns_target_answered(c, src, &target) ||
	    !ns_dst_valid(dst, &target))
		return 0;
	if (size < NA_LEN + OPT_UNIT)
		return 0;

	memset(out, 0, NA_LEN + OPT_UNIT);
	out[0] = ICMP6_NA;
	/* Solicited is always right: DAD probes from :: are never answered */
	wr32(out + 4, NA_FLAG_ROUTER | NA_FLAG_SOLICITED | NA_FLAG_OVERRIDE);
	memcpy(out + 8, &target, sizeof(target));
	out[NA_LEN] = OPT_TLLA;
	out[NA_LEN + 1] = 1;
	memcpy(out + NA_LEN + 2, c->our_mac, ETH_ALEN_);

	*reply_dst = *src;
	return NA_LEN + OPT_UNIT;
}

/**
 * ndp_dad_probe() - tell whether a message is a duplicate address detection
 * probe, and for which address
 * @src:	IPv6 source of the message
 * @dst:	IPv6 destination of the message
 * @icmp:	the ICMPv6 message; hop limit and checksum already checked
 * @target:	the address the sender is about to use, filled in
 *
 * RFC 4862 5.4.2: a Neighbour Solicitation from the unspecified address, to
 * the target's solicited-node address, without a source link-layer option.
 * It is how a guest announces a new address before it uses it.
 *
 * Return: true for a well-formed probe
 */
bool ndp_dad_probe(const struct in6_addr *src, const struct in6_addr *dst,
		   const struct pkt *icmp, struct in6_addr *target)
{
	const uint8_t *type = pkt_get(icmp, 0, 1);
	bool has_slla;

	if (!type || *type != ICMP6_NS || !IN6_IS_ADDR_UNSPECIFIED(src))
		return false;
	if (!ndp_msg_valid(icmp, NS_LEN, &has_slla) || has_slla ||
	    !pkt_copy(icmp, 8, target, sizeof(*target)))
		return false;
	return !IN6_IS_ADDR_MULTICAST(target) && ns_dst_valid(dst, target) &&
	       !IN6_ARE_ADDR_EQUAL(dst, target);
}

/**
 * ndp_reply() - answer a Neighbour Discovery message from the guest
 * @c:		configuration
 * @src:	IPv6 source of the message
 * @dst:	IPv6 destination of the message
 * @icmp:	the ICMPv6 message; hop limit and checksum already checked
 * @out:	output buffer for the ICMPv6 reply (checksum left zero)
 * @size:	room in @out
 * @reply_dst:	IPv6 destination of the reply, filled in if there is one
 *
 * Router Solicitations get a Router Advertisement, Neighbour Solicitations
 * for any address but the guest's own get a Neighbour Advertisement with
 * our MAC address.  Everything else, and anything malformed, is ignored.
 *
 * Return: length of the reply, 0 if there is none
 */
size_t ndp_reply(const struct conf *c, const struct in6_addr *src,
		 const struct in6_addr *dst, const struct pkt *icmp,
		 uint8_t *out, size_t size, struct in6_addr *reply_dst)
{
	const uint8_t *type = pkt_get(icmp, 0, 1);

	if (!c->v6 || c->no_ndp || !type)
		return 0;

	switch (*type) {
	case ICMP6_RS:
		return ndp_rs_reply(c, src, icmp, out, size, reply_dst);
	case ICMP6_NS:
		return ndp_ns_reply(c, src, dst, icmp, out, size, reply_dst);
	default:
		return 0;
	}
}

/**
 * ndp_ns_build() - a neighbour solicitation for the guest's MAC address
 * @c:		configuration: our MAC address
 * @target:	the guest's address
 * @out:	ICMPv6 message, checksum left zero
 * @size:	room at @out
 *
 * RFC 4861, 4.3, with the source link-layer address option, as the
 * solicitation comes from our link-local address.
 *
 * Return: length of the message, 0 if NDP is off or @size too small
 */
size_t ndp_ns_build(const struct conf *c, const struct in6_addr *target,
		    uint8_t *out, size_t size)
{
	if (!c->v6 || c->no_ndp || size < NS_PROBE_LEN)
		return 0;
	memset(out, 0, NS_PROBE_LEN);
	out[0] = ICMP6_NS;
	memcpy(out + 8, target, 16);
	out[24] = OPT_SLLA;
	out[25] = 1;			/* units of 8 bytes */
	memcpy(out + 26, c->our_mac, ETH_ALEN_);
	return NS_PROBE_LEN;
}
