// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the guest's addresses, as the guest really uses them
 *
 * The address DHCPv6 hands out is one the guest may never use: most guests
 * configure IPv6 by SLAAC alone (EUI-64, RFC 7217 stable-privacy, RFC 4941
 * temporary addresses), and DHCPv6 guests form a SLAAC address too and may
 * prefer it.  So for IPv6 the guest may speak from any unicast address of
 * the /64 that the router advertisement gives it, or its link-local ones;
 * for IPv4 only from the address DHCPv4 gives it (0.0.0.0 while asking).
 *
 * That is safe because no guest source ever reaches the pod's network: the
 * pod sees only netshim's sockets, with the pod's addresses.  The guest's
 * source only decides where netshim sends the replies of that flow, and a
 * guest can only ever send replies to itself.
 *
 * Inbound connections and datagrams (-t, -u) go to the global address the
 * guest most recently announced (duplicate address detection) or opened a
 * flow from, and to the assigned address until it has done either.  New
 * flows, not every packet: a guest whose temporary address rotated keeps
 * talking on the old one in its open connections, but its choice for
 * anything new, which is what an inbound flow is, is the new one.
 */
#include <string.h>

#include "gaddr.h"
#include "ip.h"
#include "netshim/fwdspec.h"
#include "netshim/inany.h"

#define DHCP4_SERVER_PORT	67

/**
 * gaddr_in_prefix6() - tell whether an address is in the guest's /64
 * @c:		configuration: the guest's assigned address
 * @a:		address
 *
 * Return: true if @a shares the first 64 bits of the assigned address
 */
bool gaddr_in_prefix6(const struct conf *c, const struct in6_addr *a)
{
	return c->v6 && !IN6_IS_ADDR_UNSPECIFIED(&c->addr6) &&
	       !memcmp(a, &c->addr6, GADDR_PREFIX6_LEN / 8);
}

/**
 * gaddr_fwd_target() - tell if a -t or -u rule forwards to an address
 * @c:		configuration
 * @a:		address, v4-mapped for IPv4
 *
 * Such an address is one the guest (or what it routes to) answers from.
 *
 * Return: true if it does
 */
static bool gaddr_fwd_target(const struct conf *c, const struct in6_addr *a)
{
	return fwdspec_is_target(&c->tcp_fwd, a) ||
	       fwdspec_is_target(&c->udp_fwd, a);
}

/**
 * gaddr_copied() - tell if an address is one --config-net gave the
 *		    namespace besides the pod's first one
 * @c:		configuration
 * @a:		address, v4-mapped for IPv4
 *
 * Return: true if it is
 */
static bool gaddr_copied(const struct conf *c, const struct in6_addr *a)
{
	int i;

	for (i = 0; c->config_net && i < c->ns_copy.n_addr; i++)
		if (IN6_ARE_ADDR_EQUAL(&c->ns_copy.addr[i].a, a))
			return true;
	return false;
}

/**
 * gaddr_own6() - tell if an address is one of the guest's in its prefix
 * @c:		configuration
 * @a:		address
 *
 * Return: true for a unicast address of the advertised prefix other than
 * its subnet-router anycast address (RFC 4291 2.6.1)
 */
static bool gaddr_own6(const struct conf *c, const struct in6_addr *a)
{
	static const uint8_t zero_iid[8];

	if (IN6_IS_ADDR_MULTICAST(a) || IN6_IS_ADDR_LOOPBACK(a) ||
	    IN6_IS_ADDR_V4MAPPED(a) || IN6_IS_ADDR_V4COMPAT(a))
		return false;
	return gaddr_in_prefix6(c, a) &&
	       memcmp(a->s6_addr + 8, zero_iid, sizeof(zero_iid));
}

/**
 * gaddr_src6_ok() - tell whether the guest may speak from an IPv6 address
 * @c:		configuration
 * @src:	source address of a guest packet
 * @proto:	its upper-layer protocol
 *
 * Return: true for a unicast address of the advertised prefix other than
 * its subnet-router anycast address, a link-local address, a -t or -u
 * rule's guest address, an address --config-net copied, or the
 * unspecified address for ICMPv6 (duplicate address detection, MLD)
 */
bool gaddr_src6_ok(const struct conf *c, const struct in6_addr *src,
		   uint8_t proto)
{
	if (IN6_IS_ADDR_UNSPECIFIED(src))
		return proto == IPPROTO_ICMPV6_;
	if (IN6_IS_ADDR_LINKLOCAL(src))
		return true;
	return gaddr_own6(c, src) || gaddr_fwd_target(c, src) ||
	       gaddr_copied(c, src);
}

/**
 * gaddr_src4_ok() - tell whether the guest may speak from an IPv4 address
 * @c:		configuration
 * @src:	source address of a guest packet
 * @proto:	its protocol
 * @dport:	its UDP destination port, -1 if not UDP or too short to tell
 *
 * Return: true for the guest's address, a -t or -u rule's guest address,
 * an address --config-net copied, or 0.0.0.0 to a DHCP server
 */
bool gaddr_src4_ok(const struct conf *c, struct in_addr src, uint8_t proto,
		   int dport)
{
	struct in6_addr a;

	if (src.s_addr == INADDR_ANY)
		return proto == IPPROTO_UDP && dport == DHCP4_SERVER_PORT;
	if (!c->v4)
		return false;
	if (src.s_addr == c->addr4.s_addr)
		return true;
	a = inany_from4(src);
	return gaddr_fwd_target(c, &a) || gaddr_copied(c, &a);
}

/**
 * gaddr_bcast4() - tell if an IPv4 destination is a broadcast: the limited
 *		    one, or the guest's subnet's
 * @c:		configuration: the guest's address and prefix length
 * @a:		destination
 *
 * Return: true if it is
 */
bool gaddr_bcast4(const struct conf *c, struct in_addr a)
{
	uint32_t host;

	if (a.s_addr == INADDR_BROADCAST)
		return true;
	if (c->prefix4 < 1 || c->prefix4 > 30)
		return false;
	host = 0xffffffffU >> c->prefix4;
	return (ntohl(a.s_addr) & host) == host &&
	       (ntohl(a.s_addr) & ~host) == (ntohl(c->addr4.s_addr) & ~host);
}

/**
 * gaddr_seen6() - note a global address the guest chose for something new
 * @c:		execution context
 * @a:		the source of a flow the guest opens, or its DAD probe's target
 *
 * Link-local and unspecified addresses are not for inbound flows and are
 * ignored, as is anything outside the prefix (a rule's own guest address
 * among them).
 */
void gaddr_seen6(struct ctx *c, const struct in6_addr *a)
{
	if (!gaddr_own6(&c->conf, a))
		return;
	c->gaddr6_seen = *a;
	c->gaddr6_known = true;
}

/**
 * gaddr_inbound() - guest address an inbound connection or datagram goes to
 * @c:		execution context
 * @v6:		IPv6, else IPv4
 *
 * Return: the address (v4-mapped for IPv4)
 */
struct in6_addr gaddr_inbound(const struct ctx *c, bool v6)
{
	if (!v6)
		return inany_from4(c->conf.addr4);
	if (c->gaddr6_known)
		return c->gaddr6_seen;
	/* Local mode: no global address, the one the guest speaks from */
	if (IN6_IS_ADDR_UNSPECIFIED(&c->conf.addr6) && c->gaddr6_ll_known)
		return c->gaddr6_ll;
	return c->conf.addr6;
}

/**
 * gaddr_inbound_ll() - guest address an inbound datagram from netshim's
 *			link-local address goes to
 * @c:		execution context
 *
 * A client of the pod itself reaches the guest from netshim's link-local
 * address (fwd_inbound_peer()).  A guest answering a link-local address
 * answers from its own link-local one (RFC 6724's source address
 * selection, rule 2), so, as passt does, the datagram goes there: its
 * answer then belongs to the same flow.
 *
 * Return: the guest's link-local address, or gaddr_inbound()'s until the
 *	   guest spoke from one
 */
struct in6_addr gaddr_inbound_ll(const struct ctx *c)
{
	return c->gaddr6_ll_known ? c->gaddr6_ll : gaddr_inbound(c, true);
}

/**
 * gaddr_seen6_ll() - note the link-local address the guest speaks from
 * @c:		execution context
 * @a:		a link-local source of the guest's
 *
 * The first one seen, as passt's: inbound flows go to it in local mode,
 * where the guest has no global address, and those from netshim's own
 * link-local address (gaddr_inbound_ll()).
 */
void gaddr_seen6_ll(struct ctx *c, const struct in6_addr *a)
{
	if (c->gaddr6_ll_known)
		return;
	c->gaddr6_ll = *a;
	c->gaddr6_ll_known = true;
}

/**
 * gaddr_reset() - forget what the guest used: a new guest starts afresh
 * @c:		execution context
 */
void gaddr_reset(struct ctx *c)
{
	c->gaddr6_known = false;
	c->gaddr6_ll_known = false;
}
