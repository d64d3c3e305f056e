/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - one address type for both families: IPv4 as v4-mapped IPv6
 */
#ifndef NETSHIM_INANY_H
#define NETSHIM_INANY_H

#include <stdbool.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

/**
 * inany_from4() - IPv4 address as v4-mapped IPv6 address
 * @a:		IPv4 address
 *
 * Return: ::ffff:@a
 */
static inline struct in6_addr inany_from4(struct in_addr a)
{
	struct in6_addr r = { 0 };

	r.s6_addr[10] = r.s6_addr[11] = 0xff;
	memcpy(&r.s6_addr[12], &a, 4);
	return r;
}

/**
 * inany_is4() - is this a v4-mapped address
 * @a:		address
 *
 * Return: true for an IPv4 address
 */
static inline bool inany_is4(const struct in6_addr *a)
{
	return IN6_IS_ADDR_V4MAPPED(a);
}

/**
 * inany_to4() - IPv4 address of a v4-mapped address
 * @a:		v4-mapped address
 *
 * Return: the IPv4 address
 */
static inline struct in_addr inany_to4(const struct in6_addr *a)
{
	struct in_addr r;

	memcpy(&r, &a->s6_addr[12], 4);
	return r;
}

/**
 * inany_is_loopback() - is this a loopback address of either family
 * @a:		address, v4-mapped for IPv4
 *
 * Return: true for 127.0.0.0/8 and ::1
 */
static inline bool inany_is_loopback(const struct in6_addr *a)
{
	if (inany_is4(a))
		return a->s6_addr[12] == 127;
	return IN6_IS_ADDR_LOOPBACK(a);
}

/**
 * inany_eq() - compare two addresses
 * @a:		first
 * @b:		second
 *
 * Return: true if equal
 */
static inline bool inany_eq(const struct in6_addr *a, const struct in6_addr *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/**
 * inany_sockaddr() - socket address for an address and port
 * @sa:		filled in
 * @a:		address, v4-mapped for IPv4
 * @port:	port, host order
 *
 * Return: length of the socket address
 */
static inline socklen_t inany_sockaddr(struct sockaddr_storage *sa,
				       const struct in6_addr *a, uint16_t port)
{
	memset(sa, 0, sizeof(*sa));
	if (inany_is4(a)) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)sa;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		s4->sin_addr = inany_to4(a);
		return sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		s6->sin6_addr = *a;
		return sizeof(*s6);
	}
}

/**
 * inany_from_sockaddr() - address and port of a socket address
 * @sa:		socket address (AF_INET or AF_INET6)
 * @a:		address, filled in (v4-mapped for IPv4)
 * @port:	port, filled in, host order
 */
static inline void inany_from_sockaddr(const struct sockaddr_storage *sa,
				       struct in6_addr *a, uint16_t *port)
{
	if (sa->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		*a = inany_from4(s4->sin_addr);
		*port = ntohs(s4->sin_port);
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		*a = s6->sin6_addr;
		*port = ntohs(s6->sin6_port);
	}
}

#endif /* NETSHIM_INANY_H */
