/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - every forwarded TCP port through one socket (sk_lookup)
 */
#ifndef NETSHIM_SK_LOOKUP_H
#define NETSHIM_SK_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>

#include "netshim/ctx.h"
#include "netshim/portset.h"

int sk_lookup_start(struct ctx *c, const struct portset *fwd, int fd4,
		    int fd6, const struct portset *pod);
void sk_lookup_pod(struct ctx *c, const struct portset *pod);
void sk_lookup_ports(struct ctx *c, const struct portset *fwd);
uint64_t sk_lookup_assigned(const struct ctx *c);

#endif /* NETSHIM_SK_LOOKUP_H */
