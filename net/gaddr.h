/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the guest's addresses, as the guest really uses them
 */
#ifndef NETSHIM_GADDR_H
#define NETSHIM_GADDR_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#include "netshim/ctx.h"

/* Every IPv6 prefix netshim advertises is a /64: what SLAAC needs */
#define GADDR_PREFIX6_LEN	64

bool gaddr_in_prefix6(const struct conf *c, const struct in6_addr *a);
bool gaddr_src6_ok(const struct conf *c, const struct in6_addr *src,
		   uint8_t proto);
bool gaddr_src4_ok(const struct conf *c, struct in_addr src, uint8_t proto,
		   int dport);
bool gaddr_bcast4(const struct conf *c, struct in_addr a);
void gaddr_seen6(struct ctx *c, const struct in6_addr *a);
void gaddr_seen6_ll(struct ctx *c, const struct in6_addr *a);
struct in6_addr gaddr_inbound(const struct ctx *c, bool v6);
struct in6_addr gaddr_inbound_ll(const struct ctx *c);
void gaddr_reset(struct ctx *c);

#endif /* NETSHIM_GADDR_H */
