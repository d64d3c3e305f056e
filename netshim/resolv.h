/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the DNS servers and search domains the guest is given
 */
#ifndef NETSHIM_RESOLV_H
#define NETSHIM_RESOLV_H

#include <netinet/in.h>

#include "conf.h"

int resolv_add_dns(struct conf *c, int af, const struct in_addr *a4,
		   const struct in6_addr *a6);
int resolv_read(struct conf *c, const char *path);

#endif /* NETSHIM_RESOLV_H */
