/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - UDP local flows: datagrams relayed socket to socket
 */
#ifndef NETSHIM_UDP_SPLICE_H
#define NETSHIM_UDP_SPLICE_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#include "netshim/ctx.h"

int udp_splice_init(struct ctx *c, unsigned int max);
unsigned int udp_splice_count(const struct ctx *c);
bool udp_splice_take(struct ctx *c, int lfd, bool to_ns,
		     const struct in6_addr *dst, uint16_t port);
bool udp_splice_take_batch(struct ctx *c, int lfd, bool to_ns, uint16_t port);
void udp_splice_ready(struct ctx *c, uint32_t idx);
void udp_splice_timer(struct ctx *c);
void udp_splice_forget(struct ctx *c, int lfd);

struct migio;
int udp_splice_upgrade_save(struct ctx *c, struct migio *io);
int udp_splice_upgrade_load(struct ctx *c, struct migio *io,
			    int (*listener)(struct ctx *c, uint64_t cookie));

#endif /* NETSHIM_UDP_SPLICE_H */
