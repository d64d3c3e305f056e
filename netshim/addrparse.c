// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - addresses as the command line and resolv.conf write them
 *
 * Either family in one string, and why an address cannot be a host's:
 * what -a, -g, -D, -o, the forwarding specs and resolv.conf's nameserver
 * lines share.
 */
#include <stddef.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "addrparse.h"

/**
 * addr_parse() - parse an IPv4 or IPv6 address
 * @arg:	text
 * @a4:		set if @arg is IPv4
 * @a6:		set if @arg is IPv6
 *
 * Return: AF_INET, AF_INET6, or 0 if @arg is neither
 */
int addr_parse(const char *arg, struct in_addr *a4,
	       struct in6_addr *a6)
{
	if (inet_pton(AF_INET, arg, a4) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, arg, a6) == 1)
		return AF_INET6;
	return 0;
}

/**
 * addr_not_unicast() - tell why an address cannot be a host's, if it can't
 * @af:		AF_INET or AF_INET6
 * @a4:		IPv4 address, if @af is AF_INET
 * @a6:		IPv6 address, if @af is AF_INET6
 *
 * Return: NULL if usable as a unicast host address, else the reason
 */
const char *addr_not_unicast(int af, const struct in_addr *a4,
			     const struct in6_addr *a6)
{
	if (af == AF_INET) {
		uint32_t h = ntohl(a4->s_addr);

		if (!h || h == INADDR_BROADCAST)
			return "not a unicast address";
		if (IN_MULTICAST(h))
			return "multicast address";
		return NULL;
	}
	if (IN6_IS_ADDR_UNSPECIFIED(a6))
		return "not a unicast address";
	if (IN6_IS_ADDR_MULTICAST(a6))
		return "multicast address";
	return NULL;
}

/**
 * addr_parse_unicast() - parse a unicast address of either family
 * @s:		text
 * @a4:		filled in for IPv4
 * @a6:		filled in for IPv6
 * @e:		filled in: why it is refused, NULL if it is not
 *
 * Return: AF_INET or AF_INET6, 0 if refused
 */
int addr_parse_unicast(const char *s, struct in_addr *a4,
		       struct in6_addr *a6, const char **e)
{
	int af = addr_parse(s, a4, a6);

	*e = af ? addr_not_unicast(af, a4, a6) : "not an IPv4 or IPv6 address";
	return *e ? 0 : af;
}

/**
 * addr_is_loopback() - tell if an address is a loopback one
 * @af:		AF_INET or AF_INET6
 * @a4:		IPv4 address, if @af is AF_INET
 * @a6:		IPv6 address, if @af is AF_INET6
 *
 * Return: true for 127.0.0.0/8 and ::1
 */
bool addr_is_loopback(int af, const struct in_addr *a4,
		      const struct in6_addr *a6)
{
	if (af == AF_INET)
		return (ntohl(a4->s_addr) >> IN_CLASSA_NSHIFT) ==
		       IN_LOOPBACKNET;
	return IN6_IS_ADDR_LOOPBACK(a6);
}
