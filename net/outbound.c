// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - where outbound sockets go, and from which address and
 *	     interface
 *
 * A guest destination is the same address for a socket, but for the
 * --map-host-loopback address, which stands for the pod's loopback, and
 * the gateway's link-local address, which is the gateway's on the pod's
 * interface.
 * The sockets opened for the guest's connections, flows and echo requests
 * leave the pod from the address given with -o and through the interface
 * given with --outbound-if4 or --outbound-if6, per family.  Traffic to the
 * pod's loopback (--map-host-loopback) keeps to it: bound to another
 * interface or address, it could not get there.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>

#include "gaddr.h"
#include "outbound.h"
#include "netshim/ctx.h"
#include "netshim/inany.h"

/**
 * outbound_gw_ll() - tell if a guest destination is the pod's gateway by
 *		      its link-local address
 * @c:		execution context
 * @raddr:	destination as the guest sees it
 *
 * netshim's link-local address is the pod's gateway's when that is
 * link-local, as the pod's default route gives it: the guest's router is
 * the pod's.  The guest's traffic to it goes to that gateway on the pod's
 * interface, as to any of the gateway's addresses (passt does so with
 * --no-map-gw).
 *
 * Return: true if it does
 */
static bool outbound_gw_ll(const struct ctx *c, const struct in6_addr *raddr)
{
	return !inany_is4(raddr) && c->conf.ifindex &&
	       IN6_IS_ADDR_LINKLOCAL(&c->conf.gw6) &&
	       inany_eq(raddr, &c->conf.gw6);
}

/**
 * outbound_sockaddr() - where a guest destination really is
 * @c:		execution context
 * @raddr:	destination as the guest sees it
 * @rport:	destination port
 * @sa:		filled in
 * @len:	filled in
 *
 * The --map-host-loopback address stands for the pod's loopback; the
 * gateway's link-local address is scoped to the pod's interface.
 *
 * Return: 0
 */
int outbound_sockaddr(const struct ctx *c, const struct in6_addr *raddr,
		      uint16_t rport, struct sockaddr_storage *sa,
		      socklen_t *len)
{
	struct in6_addr a = *raddr;

	if (inany_is4(raddr) && c->conf.map_host_lo4 &&
	    inany_to4(raddr).s_addr == c->conf.host_lo4.s_addr) {
		struct in_addr lo = { htonl(INADDR_LOOPBACK) };

		a = inany_from4(lo);
	} else if (!inany_is4(raddr) && c->conf.map_host_lo6 &&
		   inany_eq(raddr, &c->conf.host_lo6)) {
		a = in6addr_loopback;
	} else if (outbound_gw_ll(c, raddr)) {
		*len = inany_sockaddr(sa, &a, rport);
		((struct sockaddr_in6 *)sa)->sin6_scope_id = c->conf.ifindex;
		return 0;
	}
	*len = inany_sockaddr(sa, &a, rport);
	return 0;
}

/**
 * outbound_maps_lo() - tell if a guest destination stands for the pod's
 *			loopback (--map-host-loopback, local mode's gateway)
 * @c:		execution context
 * @raddr:	destination as the guest sees it
 *
 * Return: true if it does: even a link-local one leaves netshim then
 */
bool outbound_maps_lo(const struct ctx *c, const struct in6_addr *raddr)
{
	if (inany_is4(raddr))
		return c->conf.map_host_lo4 &&
		       inany_to4(raddr).s_addr == c->conf.host_lo4.s_addr;
	return c->conf.map_host_lo6 && inany_eq(raddr, &c->conf.host_lo6);
}

/**
 * outbound_reachable() - tell if a guest's packet may leave for the pod
 * @c:		execution context
 * @src:	its source, as the guest sent it
 * @dst:	its destination, as the guest sent it
 *
 * Multicast, broadcast (limited or the guest's subnet's), link-local
 * destinations and sources, and an unspecified IPv4 source have no
 * meaning in the pod: what they are for stays on the guest's link.  A
 * destination standing for the pod's loopback (local mode's fe80::1,
 * --map-gw's link-local gateway) or for the pod's link-local gateway
 * leaves all the same.
 *
 * Return: true if a socket of the pod may carry it
 */
bool outbound_reachable(const struct ctx *c, const struct in6_addr *src,
			const struct in6_addr *dst)
{
	if (inany_is4(dst))
		return inany_to4(src).s_addr != INADDR_ANY &&
		       !IN_MULTICAST(ntohl(inany_to4(dst).s_addr)) &&
		       !gaddr_bcast4(&c->conf, inany_to4(dst));
	if (IN6_IS_ADDR_MULTICAST(dst))
		return false;
	if (IN6_IS_ADDR_LINKLOCAL(dst) || IN6_IS_ADDR_LINKLOCAL(src))
		return outbound_maps_lo(c, dst) || outbound_gw_ll(c, dst);
	return true;
}

/**
 * outbound_to_loopback() - tell if a destination is the pod's loopback
 * @dst:	destination, AF_INET or AF_INET6
 *
 * Return: true for 127.0.0.0/8 and ::1
 */
static bool outbound_to_loopback(const struct sockaddr_storage *dst)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)dst;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)dst;

	if (dst->ss_family == AF_INET)
		return (ntohl(s4->sin_addr.s_addr) >> IN_CLASSA_NSHIFT) ==
		       IN_LOOPBACKNET;
	return IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
}

/**
 * outbound_prepare() - bind a new outbound socket to its interface, and
 *			tell the source address it should have
 * @c:		execution context
 * @fd:		socket, neither bound nor connected yet
 * @dst:	where it will connect, after --map-host-loopback
 * @src:	set to the source address to bind: unspecified for any (as
 *		v4-mapped 0.0.0.0 for IPv4)
 *
 * Since Linux 5.7, SO_BINDTODEVICE needs no capability for a socket not
 * bound to an interface yet, which is the case here.
 *
 * Return: 0 on success, -1 with errno set if the interface is refused
 */
int outbound_prepare(const struct ctx *c, int fd,
		     const struct sockaddr_storage *dst, struct in6_addr *src)
{
	bool v6 = dst->ss_family == AF_INET6;
	const char *dev = v6 ? c->conf.out_if6 : c->conf.out_if4;
	struct in_addr any4 = { INADDR_ANY };

	*src = v6 ? in6addr_any : inany_from4(any4);
	if (outbound_to_loopback(dst))
		return 0;
	if (v6 && c->conf.out6_set)
		*src = c->conf.out6;
	else if (!v6 && c->conf.out4_set)
		*src = inany_from4(c->conf.out4);
	if (*dev &&
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, strlen(dev) + 1))
		return -1;
	return 0;
}

/**
 * outbound_bind() - bind a new outbound socket as -o and --outbound-if ask
 * @c:		execution context
 * @fd:		socket, neither bound nor connected yet
 * @dst:	where it will connect, after --map-host-loopback
 *
 * Without -o for the family, the socket stays unbound: connect() picks
 * the source address and port.
 *
 * Return: 0 on success, -1 with errno set on failure
 */
int outbound_bind(const struct ctx *c, int fd,
		  const struct sockaddr_storage *dst)
{
	struct sockaddr_storage sa;
	struct in6_addr src;
	socklen_t sl;

	if (outbound_prepare(c, fd, dst, &src))
		return -1;
	if ((dst->ss_family == AF_INET6) ? IN6_IS_ADDR_UNSPECIFIED(&src) :
					   !inany_to4(&src).s_addr)
		return 0;
	sl = inany_sockaddr(&sa, &src, 0);
	return bind(fd, (struct sockaddr *)&sa, sl);
}
