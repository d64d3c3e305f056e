// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - configure the served namespace through rtnetlink
 *
 * Namespace mode only, once, inside the namespace before the event loop:
 * its loopback up, and with --config-net its tap given the pod's
 * addresses, the routes netlink.c read from the template, the MTU and
 * MAC address, and brought up.  The rtnetlink socket and requests are
 * netlink.c's; this file only writes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "netlink.h"
#include "nsconf.h"

/**
 * nl_link_set() - set an interface's MTU and MAC address, and bring it up
 * @nl:		context
 * @ifindex:	interface
 * @up:		bring it up; false leaves its state as it is
 * @mtu:	MTU, 0 to leave it
 * @mac:	MAC address, NULL to leave it
 *
 * Return: 0 on success, -1 with errno set
 */
static int nl_link_set(struct nl_ctx *nl, unsigned int ifindex, bool up,
		       unsigned int mtu, const uint8_t *mac)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;

	nlh = nl_put_request(nl, buf, RTM_NEWLINK, 0);
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = up ? IFF_UP : 0;
	ifi->ifi_change = up ? IFF_UP : 0;
	if (mtu)
		mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	if (mac)
		mnl_attr_put(nlh, IFLA_ADDRESS, 6, mac);
	return nl_run(nl, nlh, NULL, NULL);
}

/**
 * nl_addr_add() - add an address to an interface
 * @nl:		context
 * @family:	AF_INET or AF_INET6
 * @ifindex:	interface
 * @addr:	struct in_addr or struct in6_addr
 * @prefix:	prefix length
 *
 * IPv6 addresses skip duplicate address detection: they are the pod's,
 * and nobody else is on this link but netshim, which never claims them.
 *
 * Return: 0 on success, -1 with errno set
 */
static int nl_addr_add(struct nl_ctx *nl, int family, unsigned int ifindex,
		       const void *addr, int prefix)
{
	size_t len = family == AF_INET ? sizeof(struct in_addr) :
					 sizeof(struct in6_addr);
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ifaddrmsg *ifa;
	struct nlmsghdr *nlh;

	nlh = nl_put_request(nl, buf, RTM_NEWADDR,
			     NLM_F_CREATE | NLM_F_REPLACE);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = family;
	ifa->ifa_prefixlen = prefix;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, len, addr);
	mnl_attr_put(nlh, IFA_ADDRESS, len, addr);
	if (family == AF_INET6)
		mnl_attr_put_u32(nlh, IFA_FLAGS, IFA_F_NODAD);
	return nl_run(nl, nlh, NULL, NULL);
}

/**
 * nl_route_add() - add a route through an interface, or replace it
 * @nl:		context
 * @ifindex:	output interface
 * @r:		the route: destination (the default route if its length is
 *		0), gateway (:: for a route on the link), metric, protocol
 *
 * Return: 0 on success, -1 with errno set
 */
static int nl_route_add(struct nl_ctx *nl, unsigned int ifindex,
			const struct conf_route *r)
{
	int family = r->v6 ? AF_INET6 : AF_INET;
	size_t len = r->v6 ? sizeof(struct in6_addr) : sizeof(struct in_addr);
	const uint8_t *dst = r->v6 ? r->dst.s6_addr : r->dst.s6_addr + 12;
	const uint8_t *gw = r->v6 ? r->gw.s6_addr : r->gw.s6_addr + 12;
	bool has_gw = r->v6 ? !IN6_IS_ADDR_UNSPECIFIED(&r->gw) :
			      !!memcmp(gw, "\0\0\0\0", 4);
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	/* Replace: the kernel may have learnt one from our RA already */
	nlh = nl_put_request(nl, buf, RTM_NEWROUTE,
			     NLM_F_CREATE | NLM_F_REPLACE);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = family;
	rtm->rtm_dst_len = r->dst_len;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = r->protocol;
	rtm->rtm_scope = has_gw ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
	rtm->rtm_type = RTN_UNICAST;
	if (r->dst_len)
		mnl_attr_put(nlh, RTA_DST, len, dst);
	if (has_gw)
		mnl_attr_put(nlh, RTA_GATEWAY, len, gw);
	if (r->metric)
		mnl_attr_put_u32(nlh, RTA_PRIORITY, r->metric);
	mnl_attr_put_u32(nlh, RTA_OIF, ifindex);
	return nl_run(nl, nlh, NULL, NULL);
}

/**
 * nl_route_str() - a route as text, for messages
 * @r:		the route
 * @buf:	output
 * @size:	its size
 *
 * Return: @buf
 */
static const char *nl_route_str(const struct conf_route *r, char *buf,
				size_t size)
{
	int family = r->v6 ? AF_INET6 : AF_INET;
	const void *dst = r->v6 ? (const void *)&r->dst : &r->dst.s6_addr[12];
	const void *gw = r->v6 ? (const void *)&r->gw : &r->gw.s6_addr[12];
	char d[INET6_ADDRSTRLEN], g[INET6_ADDRSTRLEN];

	inet_ntop(family, dst, d, sizeof(d));
	inet_ntop(family, gw, g, sizeof(g));
	snprintf(buf, size, "%s/%u via %s", d, r->dst_len, g);
	return buf;
}

/**
 * nl_in_prefix4() - tell if an IPv4 address is inside a prefix
 * @a:		address
 * @net:	an address of the prefix
 * @len:	prefix length
 *
 * Return: true if it is
 */
static bool nl_in_prefix4(struct in_addr a, struct in_addr net, int len)
{
	uint32_t mask = len ? ~0U << (32 - len) : 0;

	return !((ntohl(a.s_addr) ^ ntohl(net.s_addr)) & mask);
}

/**
 * nl_ns_addrs() - give the tap the pod's address of each family, then the
 *		   others --config-net copies
 * @nl:		context, in the namespace
 * @c:		configuration
 * @ifindex:	the tap
 *
 * The pod's address goes first: the namespace's kernel prefers it as the
 * source of what it sends, as the pod's does.
 *
 * Return: 0 on success, -1 with errno set
 */
static int nl_ns_addrs(struct nl_ctx *nl, const struct conf *c,
		       unsigned int ifindex)
{
	const struct conf_copy *cp = &c->ns_copy;
	struct in6_addr a4 = nl_inany(AF_INET, &c->addr4);
	int i;

	if (c->v4 && nl_addr_add(nl, AF_INET, ifindex, &c->addr4, c->prefix4))
		return -1;
	if (c->v6 && !IN6_IS_ADDR_UNSPECIFIED(&c->addr6) &&
	    nl_addr_add(nl, AF_INET6, ifindex, &c->addr6, c->prefix6))
		return -1;
	for (i = 0; i < cp->n_addr; i++) {
		const struct conf_addr *a = &cp->addr[i];
		bool v4 = IN6_IS_ADDR_V4MAPPED(&a->a);

		if (IN6_ARE_ADDR_EQUAL(&a->a, v4 ? &a4 : &c->addr6))
			continue;
		if (nl_addr_add(nl, v4 ? AF_INET : AF_INET6, ifindex,
				v4 ? (const void *)&a->a.s6_addr[12] : &a->a,
				a->prefix))
			return -1;
	}
	return 0;
}

/**
 * nl_ns_default() - the default route of a family, unless one was copied
 * @nl:		context, in the namespace
 * @c:		configuration
 * @ifindex:	the tap
 * @v6:		IPv6, else IPv4
 *
 * Through the pod's gateway, as pasta: for IPv4 after a route on the link
 * to a gateway outside the address's prefix, as a DHCP client adds for a
 * classless static route to it (RFC 3442).
 *
 * Return: 0 on success, -1 with errno set
 */
static int nl_ns_default(struct nl_ctx *nl, const struct conf *c,
			 unsigned int ifindex, bool v6)
{
	const struct conf_copy *cp = &c->ns_copy;
	struct conf_route r = { .v6 = v6, .protocol = RTPROT_STATIC };
	const struct in_addr any = { 0 };
	int i;

	for (i = 0; i < cp->n_route; i++)
		if (cp->route[i].v6 == v6 && !cp->route[i].dst_len)
			return 0;
	if (v6) {
		r.gw = c->gw6;
		return nl_route_add(nl, ifindex, &r);
	}
	if (!nl_in_prefix4(c->gw4, c->addr4, c->prefix4)) {
		r.dst = nl_inany(AF_INET, &c->gw4);
		r.dst_len = 32;
		r.gw = nl_inany(AF_INET, &any);
		if (nl_route_add(nl, ifindex, &r))
			return -1;
	}
	r.dst = nl_inany(AF_INET, &any);
	r.dst_len = 0;
	r.gw = nl_inany(AF_INET, &c->gw4);
	return nl_route_add(nl, ifindex, &r);
}

/**
 * nl_ns_routes() - the routes --config-net copies, then the default ones
 * @nl:		context, in the namespace
 * @c:		configuration
 * @ifindex:	the tap
 *
 * A route through a gateway needs a route to it first: routes are tried
 * again, in rounds, while a round adds some, as the kernel settles their
 * order for us.  One whose gateway stays unreachable is left out, with a
 * warning, as pasta leaves it.
 *
 * Return: 0 on success, -1 on failure (reported on stderr)
 */
static int nl_ns_routes(struct nl_ctx *nl, const struct conf *c,
			unsigned int ifindex)
{
	const struct conf_copy *cp = &c->ns_copy;
	bool done[CONF_COPY_ROUTES] = { false };
	int i, round, added = 1;
	char buf[2 * INET6_ADDRSTRLEN + 16];

	for (round = 0; added && round < cp->n_route; round++) {
		for (added = i = 0; i < cp->n_route; i++) {
			if (done[i])
				continue;
			if (!nl_route_add(nl, ifindex, &cp->route[i])) {
				done[i] = true;
				added++;
			} else if (errno != ENETUNREACH &&
				   errno != EHOSTUNREACH) {
				fprintf(stderr, "netshim: setting up the namespace: route %s: %s\n",
					nl_route_str(&cp->route[i], buf,
						     sizeof(buf)),
					strerror(errno));
				return -1;
			}
		}
	}
	for (i = 0; i < cp->n_route; i++)
		if (!done[i])
			fprintf(stderr, "netshim: route %s of %s not copied: its gateway is unreachable\n",
				nl_route_str(&cp->route[i], buf, sizeof(buf)),
				c->ifname);

	if ((c->v4 && nl_ns_default(nl, c, ifindex, false)) ||
	    (c->v6 && nl_ns_default(nl, c, ifindex, true))) {
		fprintf(stderr, "netshim: setting up the namespace: default route: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/**
 * nl_ns_configure() - bring the namespace's loopback up, and with
 *		       --config-net give its tap the pod's addresses and
 *		       routes, its MTU, and bring it up
 * @c:		configuration: addresses, prefixes, gateways, MTU, families,
 *		config_net, and what it copies from the template
 * @ifname:	the interface (namespace mode's tap)
 * @mac:	MAC address to set, NULL to keep the interface's
 *
 * Runs inside the namespace being set up.  Without --config-net the tap
 * stays down, as pasta leaves it: the namespace's own DHCP client and
 * SLAAC set it up from netshim's answers.
 *
 * Return: 0 on success, -1 on failure (reported on stderr)
 */
int nl_ns_configure(const struct conf *c, const char *ifname,
		    const uint8_t *mac)
{
	const char *what = "cannot open netlink socket";
	struct nl_ctx nl;
	struct nl_link l;
	int ret = -1;

	if (nl_open(&nl))
		goto fail;
	what = "loopback";
	if (nl_link(&nl, 0, "lo", &l) || nl_link_set(&nl, l.ifindex, true,
						      0, NULL))
		goto out;
	what = ifname;
	if (nl_link(&nl, 0, ifname, &l) ||
	    nl_link_set(&nl, l.ifindex, c->config_net,
			c->config_net ? c->mtu : 0, mac))
		goto out;
	ret = 0;
	if (!c->config_net)
		goto out;

	what = "addresses";
	ret = -1;
	if (nl_ns_addrs(&nl, c, l.ifindex))
		goto out;
	/* Reported there: a route that fails is named */
	ret = nl_ns_routes(&nl, c, l.ifindex);
	mnl_socket_close(nl.sock);
	return ret;
out:
	mnl_socket_close(nl.sock);
	if (!ret)
		return 0;
fail:
	fprintf(stderr, "netshim: setting up the namespace: %s: %s\n", what,
		strerror(errno));
	return -1;
}
