/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - ICMP and ICMPv6: echo through ping sockets, NDP
 */
#ifndef NETSHIM_ICMP_H
#define NETSHIM_ICMP_H

#include "net/flow.h"
#include "net/ip.h"
#include "netshim/ctx.h"
#include "netshim/migio.h"

void icmp_input(struct ctx *c, const struct l4_meta *m, const struct pkt *l4);
void icmp_flow_ready(struct ctx *c, struct flow *f, uint32_t events);
void icmp_ra_timer(struct ctx *c);
void icmp_unreach(struct ctx *c, uint8_t qp, const struct in6_addr *gaddr,
		  const struct in6_addr *raddr, uint8_t proto,
		  const uint8_t l4[8], const uint8_t *data, size_t dlen,
		  bool port);
void icmp_sock_errors(struct ctx *c, const struct flow *f);
void icmp_ndp_probe(struct ctx *c);
int icmp_ping_socket(struct ctx *c, struct flow *f, uint16_t id);
int icmp_migrate_save(struct ctx *c, struct migio *io);
int icmp_migrate_load(struct ctx *c, struct migio *io);

#endif /* NETSHIM_ICMP_H */
