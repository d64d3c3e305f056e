/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - an upgrade in place: a new netshim takes over from a running one
 */
#ifndef NETSHIM_UPGRADE_H
#define NETSHIM_UPGRADE_H

#include <stdint.h>

#include "netshim/ctx.h"

int upgrade_listen(struct ctx *c);
void upgrade_accept(struct ctx *c);
void upgrade_event(struct ctx *c, uint32_t events);
int upgrade_begin(struct ctx *c);
void upgrade_rules_apply(struct ctx *c);
int upgrade_take(struct ctx *c);
int upgrade_state_read(struct ctx *c, int fd);

#endif /* NETSHIM_UPGRADE_H */
