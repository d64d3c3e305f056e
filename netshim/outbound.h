/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - source address and interface of outbound sockets (-o,
 * --outbound-if4, --outbound-if6)
 */
#ifndef NETSHIM_OUTBOUND_H
#define NETSHIM_OUTBOUND_H

#include <netinet/in.h>
#include <sys/socket.h>

struct ctx;

int outbound_prepare(const struct ctx *c, int fd,
		     const struct sockaddr_storage *dst, struct in6_addr *src);
int outbound_bind(const struct ctx *c, int fd,
		  const struct sockaddr_storage *dst);

#endif /* NETSHIM_OUTBOUND_H */
