/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the pod's own listeners, listed once a tick for every user
 */
#ifndef NETSHIM_PODWATCH_H
#define NETSHIM_PODWATCH_H

#include "portwatch.h"
#include "netshim/ctx.h"

int podwatch_init(struct ctx *c);
void podwatch_own(struct ctx *c, int fd, int type);
void podwatch_disown(struct ctx *c, int fd);
int podwatch_scan(struct ctx *c, int proto, struct portset *out);

#endif /* NETSHIM_PODWATCH_H */
