/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - sockets on the pod's forwarded ports (-t, -u)
 */
#ifndef NETSHIM_FWD_H
#define NETSHIM_FWD_H

#include <stdbool.h>
#include <stdint.h>

#include "netshim/ctx.h"

/**
 * struct fwd_listener - a socket bound to a forwarded pod port
 * @fd:		the socket
 * @guest_port:	port in the guest it forwards to
 * @to_addr:	guest address it forwards to, :: for the guest's own
 * @v6:		IPv6 socket
 * @dual:	IPv6 socket taking IPv4 too (IPV6_V6ONLY off): its IPv4
 *		peers' addresses come v4-mapped
 * @any_port:	takes every forwarded port (sk_lookup): the guest port
 *		follows from each connection's local port, not @guest_port
 */
struct fwd_listener {
	int fd;
	uint16_t guest_port;
	struct in6_addr to_addr;
	bool v6;
	bool dual;
	bool any_port;
};

bool fwd_bind_addr(const char *bind, bool v6, struct in6_addr *a);
int fwd_open_one(struct ctx *c, int type, enum epref_type ref,
		 const struct in6_addr *a, const char *dev, uint16_t port,
		 struct fwd_listener *l, uint32_t idx);
bool fwd_port_lookup(const struct ctx *c, const struct fwd_spec *spec,
		     uint16_t port, uint16_t *to);
int fwd_guest_port(const struct ctx *c, const struct fwd_listener *l, int fd,
		   uint16_t *to, struct in6_addr *to_addr);
bool fwd_inbound_peer(const struct ctx *c, struct in6_addr *raddr);
int fwd_listen(struct ctx *c, const struct fwd_spec *spec, int type,
	       enum epref_type ref, struct fwd_listener **lst, uint32_t *n);
struct portset;
int fwd_lookup_start(struct ctx *c, const struct portset *fwd, int fd4,
		     int fd6);
void fwd_lookup_timer(struct ctx *c);

#endif /* NETSHIM_FWD_H */
