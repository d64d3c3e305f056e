/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - -T, -U: ports of the namespace's loopback to the pod's loopback
 */
#ifndef NETSHIM_FWD_NS_H
#define NETSHIM_FWD_NS_H

#include <stdbool.h>
#include <stdint.h>

#include "netshim/ctx.h"

int fwd_ns_init(struct ctx *c);
struct fwd_listener;

void fwd_ns_accept(struct ctx *c, const struct fwd_listener *l);
void fwd_ns_ready(struct ctx *c, uint32_t idx);
void fwd_ns_udp_input(struct ctx *c, const struct fwd_listener *l);
void fwd_ns_udp_ready(struct ctx *c, uint32_t idx);
void fwd_ns_listener_pool(struct ctx *c, bool udp,
			  struct fwd_listener ***lst, uint32_t **n);
const struct fwd_listener *fwd_ns_listeners(const struct ctx *c, bool udp,
					   uint32_t *n);

#endif /* NETSHIM_FWD_NS_H */
