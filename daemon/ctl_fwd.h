/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - forwarding rules changed at run time (-c, pesto)
 */
#ifndef NETSHIM_CTL_FWD_H
#define NETSHIM_CTL_FWD_H

#include <stddef.h>

#include "netshim/ctlwire.h"
#include "netshim/ctx.h"

int ctl_fwd_init(struct ctx *c);
const struct ctl_table *ctl_fwd_tables(const struct ctx *c, unsigned int *n);
int ctl_fwd_check(const struct ctx *c, struct ctl_table *t, unsigned int n,
		  char *why, size_t size);
int ctl_fwd_apply(struct ctx *c, const struct ctl_table *t, unsigned int n,
		  char *why, size_t size);

#endif /* NETSHIM_CTL_FWD_H */
