/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - sockets of local flows in the served namespace, made inside it
 */
#ifndef NETSHIM_NSSOCK_H
#define NETSHIM_NSSOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

struct ctx;

int nssock_start(struct ctx *c);
int nssock_connect_local(struct ctx *c, bool v6, uint16_t port);
int nssock_udp_local(struct ctx *c, bool v6, uint16_t sport,
		     const struct in6_addr *dst, uint16_t port);
int nssock_listen_lo(struct ctx *c, int type, bool v6, uint16_t port);
void nssock_bufs(int fd);

#endif /* NETSHIM_NSSOCK_H */
