// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - read the pod's template interface through rtnetlink
 *
 * The guest is handed the pod's own addresses, so at start-up we look at
 * the interface holding the default route (the "template"): its name,
 * MTU, first IPv4 address, first stable global IPv6 address, and the
 * gateways of its default routes.  Only values the command line left
 * unset are filled in; with --config-net, also every address and route
 * through it that the namespace is given (nsconf.c writes them there).
 * Everything here runs once, before the event loop.  The rtnetlink
 * socket, requests and their replies here serve nsconf.c as well.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "netlink.h"

/* Large enough for a dump batch of a busy routing table */
#define NL_BUF_SIZE	32768

/* Highest attribute type kept, over links, addresses and routes */
#define NL_ATTR_MAX	(IFLA_MAX > RTA_MAX ? IFLA_MAX : RTA_MAX)

/**
 * struct nl_route - default route search
 * @family:	AF_INET or AF_INET6
 * @want_ifindex: only routes through this interface, 0 for any
 * @ifindex:	output interface of the route found, 0 if none yet
 * @has_gw:	the route found has a gateway
 * @gw:		its gateway (struct in_addr or struct in6_addr)
 */
struct nl_route {
	int family;
	unsigned int want_ifindex;
	unsigned int ifindex;
	bool has_gw;
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} gw;
};

/**
 * struct nl_addr - address search on one interface
 * @family:	AF_INET or AF_INET6
 * @ifindex:	interface
 * @link_local:	look for its IPv6 link-local address instead
 * @found:	an address was found
 * @prefix:	its prefix length
 * @addr:	the address (struct in_addr or struct in6_addr)
 */
struct nl_addr {
	int family;
	unsigned int ifindex;
	bool link_local;
	bool found;
	int prefix;
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} addr;
};

/**
 * struct nl_attrs - attribute table filled by nl_attr_cb()
 * @max:	highest attribute type kept
 * @tb:		attributes by type, NULL if absent
 */
struct nl_attrs {
	uint16_t max;
	const struct nlattr *tb[NL_ATTR_MAX + 1];
};

/**
 * nl_attr_cb() - keep one attribute, by type, for later validation
 * @attr:	attribute
 * @data:	struct nl_attrs
 *
 * Types beyond what this kernel header knows are skipped: newer kernels
 * add attributes we have no use for.
 *
 * Return: MNL_CB_OK
 */
static int nl_attr_cb(const struct nlattr *attr, void *data)
{
	struct nl_attrs *a = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, a->max) < 0)
		return MNL_CB_OK;
	a->tb[type] = attr;
	return MNL_CB_OK;
}

/**
 * nl_attr_u32() - read a u32 attribute after checking its length
 * @attr:	attribute, may be NULL
 * @val:	value, set only on success
 *
 * Return: true if @attr is present and well-formed
 */
static bool nl_attr_u32(const struct nlattr *attr, uint32_t *val)
{
	if (!attr || mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return false;
	*val = mnl_attr_get_u32(attr);
	return true;
}

/**
 * nl_attr_inaddr() - copy an address attribute after checking its length
 * @attr:	attribute, may be NULL
 * @family:	AF_INET or AF_INET6, giving the expected length
 * @dst:	struct in_addr or struct in6_addr, set only on success
 *
 * Return: true if @attr is present and has the length of @family
 */
static bool nl_attr_inaddr(const struct nlattr *attr, int family, void *dst)
{
	size_t len = family == AF_INET ? sizeof(struct in_addr) :
					 sizeof(struct in6_addr);

	if (!attr || mnl_attr_validate2(attr, MNL_TYPE_BINARY, len) < 0)
		return false;
	memcpy(dst, mnl_attr_get_payload(attr), len);
	return true;
}

/**
 * nl_open() - open and bind an rtnetlink socket
 * @nl:		context to fill
 *
 * Return: 0 on success, -1 with errno set
 */
int nl_open(struct nl_ctx *nl)
{
	nl->sock = mnl_socket_open(NETLINK_ROUTE);
	if (!nl->sock)
		return -1;
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(nl->sock);
		return -1;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = time(NULL);
	return 0;
}

/**
 * nl_put_request() - start a request message in @buf
 * @nl:		context, its sequence number is advanced
 * @buf:	message buffer, at least MNL_SOCKET_BUFFER_SIZE bytes
 * @type:	RTM_GET* message type
 * @flags:	NLM_F_DUMP for a dump, 0 for a single object, NLM_F_CREATE
 *		and the like for a change
 *
 * Requests other than dumps ask for an acknowledgement (NLM_F_ACK) after
 * the reply, as dumps end with NLMSG_DONE: both kinds then end in
 * MNL_CB_STOP and one receive loop serves them.
 *
 * Return: the message header
 */
struct nlmsghdr *nl_put_request(struct nl_ctx *nl, char *buf,
				uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	if ((flags & NLM_F_DUMP) != NLM_F_DUMP)
		nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = ++nl->seq;
	return nlh;
}

/**
 * nl_exchange() - send a netlink request and feed every reply message to a
 *		   callback, until the reply ends
 * @fd:		netlink socket, of any protocol (rtnetlink, sock_diag)
 * @nlh:	request, its sequence number set
 * @portid:	our port id on @fd, 0 to accept any
 * @cb:		callback for each reply message
 * @data:	callback data
 *
 * Return: 0 on success, -1 with errno set (from the kernel's error reply,
 *	   e.g. ENODEV for an unknown interface)
 */
int nl_exchange(int fd, const struct nlmsghdr *nlh, unsigned int portid,
		mnl_cb_t cb, void *data)
{
	char buf[NL_BUF_SIZE];
	ssize_t n;
	int ret;

	if (send(fd, nlh, nlh->nlmsg_len, 0) < 0)
		return -1;
	do {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0) {
			if (n == 0)
				errno = EPROTO;
			return -1;
		}
		ret = mnl_cb_run(buf, n, nlh->nlmsg_seq, portid, cb, data);
	} while (ret > MNL_CB_STOP);

	return ret == MNL_CB_STOP ? 0 : -1;
}

/**
 * nl_run() - send a request on the rtnetlink socket and feed every reply
 *	      message to a callback
 * @nl:		context
 * @nlh:	request
 * @cb:		callback for each reply message
 * @data:	callback data
 *
 * Return: 0 on success, -1 with errno set
 */
int nl_run(struct nl_ctx *nl, const struct nlmsghdr *nlh,
	   mnl_cb_t cb, void *data)
{
	return nl_exchange(mnl_socket_get_fd(nl->sock), nlh, nl->portid, cb,
			   data);
}

/**
 * nl_route_first_hop() - output interface and gateway of a multipath route
 * @attr:	RTA_MULTIPATH attribute
 * @r:		search state: ifindex and gateway set from the first hop
 *
 * IPv6 default routes learnt from several routers come as one multipath
 * route; the first next hop is as good a template as any.
 */
static void nl_route_first_hop(const struct nlattr *attr, struct nl_route *r)
{
	const struct rtnexthop *nh = mnl_attr_get_payload(attr);
	size_t len = mnl_attr_get_payload_len(attr);
	struct nl_attrs a = { .max = RTA_MAX };

	if (len < sizeof(*nh) || nh->rtnh_len < sizeof(*nh) ||
	    nh->rtnh_len > len)
		return;

	if (mnl_attr_parse_payload(RTNH_DATA(nh),
				   nh->rtnh_len - RTNH_LENGTH(0),
				   nl_attr_cb, &a) < 0)
		return;

	r->ifindex = nh->rtnh_ifindex;
	r->has_gw = nl_attr_inaddr(a.tb[RTA_GATEWAY], r->family, &r->gw);
}

/**
 * nl_route_cb() - look for a default route in one RTM_NEWROUTE message
 * @nlh:	message
 * @data:	struct nl_route, search state
 *
 * Return: MNL_CB_OK to go on with the dump, MNL_CB_ERROR if malformed
 */
static int nl_route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct nl_attrs a = { .max = RTA_MAX };
	struct nl_route *r = data;
	struct nl_route cand = *r;
	uint32_t table, oif;

	if (r->ifindex)
		return MNL_CB_OK;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm))
		return MNL_CB_ERROR;
	if (rtm->rtm_family != r->family || rtm->rtm_dst_len ||
	    rtm->rtm_type != RTN_UNICAST)
		return MNL_CB_OK;
	if (mnl_attr_parse(nlh, sizeof(*rtm), nl_attr_cb, &a) < 0)
		return MNL_CB_ERROR;

	if (!nl_attr_u32(a.tb[RTA_TABLE], &table))
		table = rtm->rtm_table;
	if (table != RT_TABLE_MAIN)
		return MNL_CB_OK;

	if (nl_attr_u32(a.tb[RTA_OIF], &oif)) {
		cand.ifindex = oif;
		cand.has_gw = nl_attr_inaddr(a.tb[RTA_GATEWAY], r->family,
					     &cand.gw);
	} else if (a.tb[RTA_MULTIPATH]) {
		nl_route_first_hop(a.tb[RTA_MULTIPATH], &cand);
	}

	if (!cand.ifindex ||
	    (r->want_ifindex && cand.ifindex != r->want_ifindex))
		return MNL_CB_OK;
	*r = cand;
	return MNL_CB_OK;
}

/**
 * nl_default_route() - find a default route of the main table
 * @nl:		context
 * @r:		family and want_ifindex in, ifindex and gateway out
 *
 * Return: 0 on success (r->ifindex is 0 if there is none), -1 on error
 */
static int nl_default_route(struct nl_ctx *nl, struct nl_route *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	nlh = nl_put_request(nl, buf, RTM_GETROUTE, NLM_F_DUMP);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = r->family;

	r->ifindex = 0;
	r->has_gw = false;
	return nl_run(nl, nlh, nl_route_cb, r);
}

/**
 * nl_addr_usable() - tell if an address may be handed to the guest
 * @ifa:	address message header
 * @a:		its attributes
 *
 * Temporary (privacy) addresses rotate, deprecated ones are on their
 * way out, tentative ones may yet fail duplicate address detection: the
 * guest would lose its address with them.  Link-local and host scope
 * addresses mean nothing outside the pod.
 *
 * Return: true if usable
 */
static bool nl_addr_usable(const struct ifaddrmsg *ifa,
			   const struct nl_attrs *a)
{
	const uint32_t bad = IFA_F_TEMPORARY | IFA_F_DEPRECATED |
			     IFA_F_TENTATIVE | IFA_F_DADFAILED;
	uint32_t flags;

	if (ifa->ifa_family == AF_INET)
		return true;
	if (ifa->ifa_scope != RT_SCOPE_UNIVERSE)
		return false;
	if (!nl_attr_u32(a->tb[IFA_FLAGS], &flags))
		flags = ifa->ifa_flags;
	return !(flags & bad);
}

/**
 * nl_addr_cb() - take the first usable address from RTM_NEWADDR messages
 * @nlh:	message
 * @data:	struct nl_addr, search state
 *
 * Return: MNL_CB_OK to go on with the dump, MNL_CB_ERROR if malformed
 */
static int nl_addr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct nl_attrs a = { .max = IFA_MAX };
	struct nl_addr *r = data;
	const struct nlattr *attr;

	if (r->found)
		return MNL_CB_OK;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifa))
		return MNL_CB_ERROR;
	if (ifa->ifa_family != r->family || ifa->ifa_index != r->ifindex)
		return MNL_CB_OK;
	if (mnl_attr_parse(nlh, sizeof(*ifa), nl_attr_cb, &a) < 0)
		return MNL_CB_ERROR;
	if (r->link_local ? ifa->ifa_scope != RT_SCOPE_LINK :
			    !nl_addr_usable(ifa, &a))
		return MNL_CB_OK;

	/* On point-to-point links IFA_ADDRESS is the peer's */
	attr = a.tb[IFA_LOCAL] ? a.tb[IFA_LOCAL] : a.tb[IFA_ADDRESS];
	if (!nl_attr_inaddr(attr, r->family, &r->addr))
		return MNL_CB_OK;
	r->prefix = ifa->ifa_prefixlen;
	r->found = true;
	return MNL_CB_OK;
}

/**
 * nl_first_addr() - find the first usable address on an interface
 * @nl:		context
 * @r:		family and ifindex in, address and prefix out
 *
 * Return: 0 on success (r->found false if there is none), -1 on error
 */
static int nl_first_addr(struct nl_ctx *nl, struct nl_addr *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ifaddrmsg *ifa;
	struct nlmsghdr *nlh;

	nlh = nl_put_request(nl, buf, RTM_GETADDR, NLM_F_DUMP);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = r->family;

	r->found = false;
	return nl_run(nl, nlh, nl_addr_cb, r);
}

/**
 * nl_link_cb() - read name and MTU from an RTM_NEWLINK message
 * @nlh:	message
 * @data:	struct nl_link, output
 *
 * Return: MNL_CB_OK, MNL_CB_ERROR if malformed
 */
static int nl_link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct nl_attrs a = { .max = IFLA_MAX };
	struct nl_link *l = data;
	const struct nlattr *name;
	uint32_t mtu;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi))
		return MNL_CB_ERROR;
	if (mnl_attr_parse(nlh, sizeof(*ifi), nl_attr_cb, &a) < 0)
		return MNL_CB_ERROR;

	name = a.tb[IFLA_IFNAME];
	if (!name || mnl_attr_validate(name, MNL_TYPE_NUL_STRING) < 0 ||
	    mnl_attr_get_payload_len(name) > IF_NAMESIZE)
		return MNL_CB_ERROR;

	l->ifindex = ifi->ifi_index;
	strcpy(l->name, mnl_attr_get_str(name));
	if (nl_attr_u32(a.tb[IFLA_MTU], &mtu))
		l->mtu = mtu;
	return MNL_CB_OK;
}

/**
 * nl_link() - look an interface up by index, or by name if @ifindex is 0
 * @nl:		context
 * @ifindex:	interface index, or 0
 * @name:	interface name, used if @ifindex is 0
 * @l:		output
 *
 * Return: 0 on success, -1 with errno set (ENODEV: no such interface)
 */
int nl_link(struct nl_ctx *nl, unsigned int ifindex, const char *name,
	    struct nl_link *l)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;

	nlh = nl_put_request(nl, buf, RTM_GETLINK, 0);
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	if (!ifindex)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);

	memset(l, 0, sizeof(*l));
	if (nl_run(nl, nlh, nl_link_cb, l))
		return -1;
	if (!l->ifindex) {
		errno = ENODEV;
		return -1;
	}
	return 0;
}

/**
 * nl_find_template() - pick the template interface
 * @nl:		context
 * @c:		configuration: the -i name if given, v4 and v6 as wanted
 * @l:		the interface, output (l->ifindex 0: no default route)
 *
 * Without -i, the interface of the IPv4 default route is the template,
 * else that of the IPv6 default route.
 *
 * Return: 0 on success, -1 on error, reported
 */
static int nl_find_template(struct nl_ctx *nl, const struct conf *c,
			    struct nl_link *l)
{
	struct nl_route r = { 0 };

	memset(l, 0, sizeof(*l));
	if (*c->ifname) {
		if (!nl_link(nl, 0, c->ifname, l))
			return 0;
		fprintf(stderr, "netshim: invalid --interface value '%s': %s\n",
			c->ifname, strerror(errno));
		return -1;
	}

	r.family = AF_INET;
	if (c->v4 && nl_default_route(nl, &r))
		goto fail;
	if (!r.ifindex && c->v6) {
		r.family = AF_INET6;
		if (nl_default_route(nl, &r))
			goto fail;
	}
	if (!r.ifindex)
		return 0;
	if (!nl_link(nl, r.ifindex, NULL, l))
		return 0;
fail:
	fprintf(stderr, "netshim: reading routes: %s\n", strerror(errno));
	return -1;
}

/**
 * nl_fill_v4() - fill unset IPv4 address, prefix and gateway from the
 *		  template interface
 * @nl:		context
 * @c:		configuration: zero addresses, negative prefix are unset
 *
 * Return: 0 on success, -1 on netlink failure
 */
static int nl_fill_v4(struct nl_ctx *nl, struct conf *c)
{
	struct nl_route r = { .family = AF_INET, .want_ifindex = c->ifindex };
	struct nl_addr a = { .family = AF_INET, .ifindex = c->ifindex };

	if (!c->gw4.s_addr) {
		if (nl_default_route(nl, &r))
			return -1;
		if (r.has_gw)
			c->gw4 = r.gw.v4;
	}
	if (!c->addr4.s_addr || c->prefix4 < 0) {
		if (nl_first_addr(nl, &a))
			return -1;
		if (a.found && !c->addr4.s_addr)
			c->addr4 = a.addr.v4;
		if (a.found && c->prefix4 < 0)
			c->prefix4 = a.prefix;
	}
	return 0;
}

/**
 * nl_fill_v6() - fill unset IPv6 address, prefix and gateway from the
 *		  template interface
 * @nl:		context
 * @c:		configuration: unspecified addresses, negative prefix are
 *		unset
 *
 * Return: 0 on success, -1 on netlink failure
 */
static int nl_fill_v6(struct nl_ctx *nl, struct conf *c)
{
	struct nl_route r = { .family = AF_INET6, .want_ifindex = c->ifindex };
	struct nl_addr a = { .family = AF_INET6, .ifindex = c->ifindex };

	if (IN6_IS_ADDR_UNSPECIFIED(&c->gw6)) {
		if (nl_default_route(nl, &r))
			return -1;
		if (r.has_gw)
			c->gw6 = r.gw.v6;
	}
	if (IN6_IS_ADDR_UNSPECIFIED(&c->addr6) || c->prefix6 < 0) {
		if (nl_first_addr(nl, &a))
			return -1;
		if (a.found && IN6_IS_ADDR_UNSPECIFIED(&c->addr6))
			c->addr6 = a.addr.v6;
		if (a.found && c->prefix6 < 0)
			c->prefix6 = a.prefix;
	}
	/* What passt and pasta speak from when the gateway is global */
	a.link_local = true;
	if (nl_first_addr(nl, &a))
		return -1;
	if (a.found)
		c->tmpl_ll6 = a.addr.v6;
	return 0;
}

/**
 * nl_template() - fill unset configuration from the template interface
 * @c:		configuration.  In: c->ifname (empty: use the interface of
 *		the default route), c->v4 and c->v6 (families to look up),
 *		unset values are zero (addresses, c->mtu) or negative
 *		(prefix lengths).  Out: c->ifname and c->ifindex of the
 *		template (c->ifindex stays 0 if there is no default route),
 *		and every unset value the template has.
 *
 * Return: 0 on success, even if nothing was found; -1 if netlink failed
 *	   or the interface given with -i does not exist (reported on
 *	   stderr)
 */
int nl_template(struct conf *c)
{
	struct nl_ctx nl;
	struct nl_link l;
	int ret = -1;

	if (nl_open(&nl)) {
		fprintf(stderr, "netshim: cannot open netlink socket: %s\n",
			strerror(errno));
		return -1;
	}

	if (nl_find_template(&nl, c, &l))
		goto out;
	ret = 0;
	if (!l.ifindex)
		goto out;

	c->ifindex = l.ifindex;
	memcpy(c->ifname, l.name, sizeof(c->ifname));
	/* The guest's MTU only in namespace mode (conf_mtu()) */
	c->tmpl_mtu = l.mtu;

	if ((c->v4 && nl_fill_v4(&nl, c)) || (c->v6 && nl_fill_v6(&nl, c))) {
		fprintf(stderr, "netshim: reading %s: %s\n", c->ifname,
			strerror(errno));
		ret = -1;
	}
out:
	mnl_socket_close(nl.sock);
	return ret;
}

/**
 * struct nl_copy - reading what --config-net copies from the template
 * @c:		configuration: c->ns_copy filled in
 * @left_out:	addresses and routes beyond what c->ns_copy holds
 */
struct nl_copy {
	struct conf *c;
	int left_out;
};

/**
 * nl_copy_family() - tell if --config-net copies a family's addresses or
 *		      routes
 * @c:		configuration
 * @family:	AF_INET or AF_INET6
 * @routes:	routes, else addresses
 *
 * Return: true if it does
 */
static bool nl_copy_family(const struct conf *c, int family, bool routes)
{
	const struct conf_copy *cp = &c->ns_copy;

	if (family == AF_INET)
		return c->v4 && (routes ? cp->routes4 : cp->addrs4);
	if (family == AF_INET6)
		return c->v6 && (routes ? cp->routes6 : cp->addrs6);
	return false;
}

/**
 * nl_inany() - an address of either family as struct in6_addr
 * @family:	AF_INET or AF_INET6
 * @src:	struct in_addr or struct in6_addr
 *
 * Return: the address, v4-mapped for IPv4
 */
struct in6_addr nl_inany(int family, const void *src)
{
	struct in6_addr r = { 0 };

	if (family == AF_INET6) {
		memcpy(&r, src, sizeof(r));
	} else {
		r.s6_addr[10] = r.s6_addr[11] = 0xff;
		memcpy(&r.s6_addr[12], src, 4);
	}
	return r;
}

/**
 * nl_copy_addr_cb() - keep an address of the template, as pasta copies it:
 *		       every one but link-local, deprecated and failed ones
 * @nlh:	RTM_NEWADDR message
 * @data:	struct nl_copy
 *
 * Return: MNL_CB_OK to go on with the dump, MNL_CB_ERROR if malformed
 */
static int nl_copy_addr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct nl_attrs a = { .max = IFA_MAX };
	struct nl_copy *st = data;
	struct conf_copy *cp = &st->c->ns_copy;
	const struct nlattr *attr;
	struct in6_addr addr;
	uint32_t flags;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifa))
		return MNL_CB_ERROR;
	if (ifa->ifa_index != st->c->ifindex ||
	    !nl_copy_family(st->c, ifa->ifa_family, false) ||
	    ifa->ifa_scope == RT_SCOPE_LINK || ifa->ifa_scope == RT_SCOPE_HOST)
		return MNL_CB_OK;
	if (mnl_attr_parse(nlh, sizeof(*ifa), nl_attr_cb, &a) < 0)
		return MNL_CB_ERROR;
	if (!nl_attr_u32(a.tb[IFA_FLAGS], &flags))
		flags = ifa->ifa_flags;
	if (flags & (IFA_F_DEPRECATED | IFA_F_DADFAILED))
		return MNL_CB_OK;
	attr = a.tb[IFA_LOCAL] ? a.tb[IFA_LOCAL] : a.tb[IFA_ADDRESS];
	if (!nl_attr_inaddr(attr, ifa->ifa_family, &addr))
		return MNL_CB_OK;
	if (cp->n_addr >= CONF_COPY_ADDRS) {
		st->left_out++;
		return MNL_CB_OK;
	}
	cp->addr[cp->n_addr].a = nl_inany(ifa->ifa_family, &addr);
	cp->addr[cp->n_addr++].prefix = ifa->ifa_prefixlen;
	return MNL_CB_OK;
}

/**
 * nl_copy_route_cb() - keep a route of the main table through the template
 * @nlh:	RTM_NEWROUTE message
 * @data:	struct nl_copy
 *
 * The kernel's own routes (the prefixes of the addresses) are left out:
 * it makes them again in the namespace for the addresses copied.  A
 * multipath route is copied as its first hop, when that is through the
 * template.
 *
 * Return: MNL_CB_OK to go on with the dump, MNL_CB_ERROR if malformed
 */
static int nl_copy_route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct nl_attrs a = { .max = RTA_MAX };
	struct nl_copy *st = data;
	struct conf_copy *cp = &st->c->ns_copy;
	struct nl_route hop = { 0 };
	struct conf_route *r;
	struct in6_addr dst;
	uint32_t table, oif;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm))
		return MNL_CB_ERROR;
	if (!nl_copy_family(st->c, rtm->rtm_family, true) ||
	    rtm->rtm_type != RTN_UNICAST || rtm->rtm_protocol == RTPROT_KERNEL)
		return MNL_CB_OK;
	if (mnl_attr_parse(nlh, sizeof(*rtm), nl_attr_cb, &a) < 0)
		return MNL_CB_ERROR;
	if (!nl_attr_u32(a.tb[RTA_TABLE], &table))
		table = rtm->rtm_table;
	if (table != RT_TABLE_MAIN)
		return MNL_CB_OK;

	hop.family = rtm->rtm_family;
	if (nl_attr_u32(a.tb[RTA_OIF], &oif)) {
		hop.ifindex = oif;
		hop.has_gw = nl_attr_inaddr(a.tb[RTA_GATEWAY], hop.family,
					    &hop.gw);
	} else if (a.tb[RTA_MULTIPATH]) {
		nl_route_first_hop(a.tb[RTA_MULTIPATH], &hop);
	}
	if (hop.ifindex != st->c->ifindex)
		return MNL_CB_OK;
	memset(&dst, 0, sizeof(dst));
	if (rtm->rtm_dst_len &&
	    !nl_attr_inaddr(a.tb[RTA_DST], hop.family, &dst))
		return MNL_CB_OK;

	if (cp->n_route >= CONF_COPY_ROUTES) {
		st->left_out++;
		return MNL_CB_OK;
	}
	r = &cp->route[cp->n_route++];
	memset(r, 0, sizeof(*r));
	r->v6 = hop.family == AF_INET6;
	r->dst = nl_inany(hop.family, &dst);
	r->dst_len = rtm->rtm_dst_len;
	if (hop.has_gw)
		r->gw = nl_inany(hop.family, &hop.gw);
	r->protocol = rtm->rtm_protocol;
	if (!nl_attr_u32(a.tb[RTA_PRIORITY], &r->metric))
		r->metric = 0;
	return MNL_CB_OK;
}

/**
 * nl_template_copy() - read what --config-net copies from the template:
 *			its addresses and the routes through it
 * @c:		configuration: c->ifindex, c->v4, c->v6 and what to copy
 *		(c->ns_copy's flags) in; c->ns_copy's lists out
 *
 * Return: 0 on success, -1 on failure (reported on stderr)
 */
int nl_template_copy(struct conf *c)
{
	struct nl_copy st = { .c = c };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	struct rtmsg *rtm;
	struct nl_ctx nl;
	int ret;

	c->ns_copy.n_addr = c->ns_copy.n_route = 0;
	if (nl_open(&nl)) {
		fprintf(stderr, "netshim: cannot open netlink socket: %s\n",
			strerror(errno));
		return -1;
	}
	nlh = nl_put_request(&nl, buf, RTM_GETADDR, NLM_F_DUMP);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_UNSPEC;
	ret = nl_run(&nl, nlh, nl_copy_addr_cb, &st);
	if (!ret) {
		nlh = nl_put_request(&nl, buf, RTM_GETROUTE, NLM_F_DUMP);
		rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
		rtm->rtm_family = AF_UNSPEC;
		ret = nl_run(&nl, nlh, nl_copy_route_cb, &st);
	}
	mnl_socket_close(nl.sock);
	if (ret) {
		fprintf(stderr, "netshim: reading the addresses and routes of %s: %s\n",
			c->ifname, strerror(errno));
		return -1;
	}
	if (st.left_out)
		fprintf(stderr, "netshim: %s has more addresses or routes than the %d and %d --config-net copies: %d left out\n",
			c->ifname, CONF_COPY_ADDRS, CONF_COPY_ROUTES,
			st.left_out);
	return 0;
}
