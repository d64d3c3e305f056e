/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - UDP: guest flows on connected host sockets, inbound forwarding
 */
#ifndef NETSHIM_UDP_H
#define NETSHIM_UDP_H

#include "net/flow.h"
#include "net/fwd.h"
#include "net/ip.h"
#include "netshim/ctx.h"

int udp_init(struct ctx *c);
void udp_input(struct ctx *c, const struct l4_meta *m, const struct pkt *l4);
int udp_flow_open(struct ctx *c, struct flow *f, uint16_t port);
int udp_listener_fd(const struct ctx *c, const struct in6_addr *gaddr,
		    uint16_t guest_port);
void udp_flow_ready(struct ctx *c, struct flow *f, uint32_t events);
void udp_listener_ready(struct ctx *c, uint32_t idx);
void udp_listener_pool(struct ctx *c, struct fwd_listener ***lst,
		       uint32_t **n);
void udp_listener_input(struct ctx *c, const struct fwd_listener *l);
const struct fwd_listener *udp_fwd_listeners(const struct ctx *c,
					      uint32_t *n);

/* migrate.c */
struct migio;
int udp_migrate_save(struct ctx *c, struct migio *io);
int udp_migrate_load(struct ctx *c, struct migio *io);

#endif /* NETSHIM_UDP_H */
