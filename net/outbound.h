/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - where outbound sockets go (--map-host-loopback), and from which
 * address and interface (-o, --outbound-if4, --outbound-if6)
 */
#ifndef NETSHIM_OUTBOUND_H
#define NETSHIM_OUTBOUND_H

#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

struct ctx;

bool outbound_maps_lo(const struct ctx *c, const struct in6_addr *raddr);
bool outbound_reachable(const struct ctx *c, const struct in6_addr *src,
			const struct in6_addr *dst);
int outbound_sockaddr(const struct ctx *c, const struct in6_addr *raddr,
		      uint16_t rport, struct sockaddr_storage *sa,
		      socklen_t *len);
int outbound_prepare(const struct ctx *c, int fd,
		     const struct sockaddr_storage *dst, struct in6_addr *src);
int outbound_bind(const struct ctx *c, int fd,
		  const struct sockaddr_storage *dst);

#endif /* NETSHIM_OUTBOUND_H */
