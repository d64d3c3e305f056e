/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - -t/-u/-T/-U auto: forward the ports the other side listens on
 */
#ifndef NETSHIM_FWD_AUTO_H
#define NETSHIM_FWD_AUTO_H

#include <stdbool.h>
#include <stdint.h>

#include "netshim/ctx.h"

int fwd_auto_init(struct ctx *c);
void fwd_auto_timer(struct ctx *c);
void fwd_auto_ready(struct ctx *c, bool udp, uint32_t idx);
void fwd_auto_ns_ready(struct ctx *c, bool udp, uint32_t idx);
struct portset;
void fwd_auto_set(struct ctx *c, bool udp, bool in_ns,
		  const struct portset *ports);

struct migio;
int fwd_auto_upgrade_save(struct ctx *c, struct migio *io);
int fwd_auto_upgrade_load(struct ctx *c, struct migio *io);
int fwd_auto_udp_by_cookie(struct ctx *c, uint64_t cookie);

#endif /* NETSHIM_FWD_AUTO_H */
