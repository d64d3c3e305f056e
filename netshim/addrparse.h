/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - addresses as the command line and resolv.conf write them
 */
#ifndef NETSHIM_ADDRPARSE_H
#define NETSHIM_ADDRPARSE_H

#include <stdbool.h>
#include <netinet/in.h>

int addr_parse(const char *arg, struct in_addr *a4,
	       struct in6_addr *a6);
const char *addr_not_unicast(int af, const struct in_addr *a4,
			     const struct in6_addr *a6);
int addr_parse_unicast(const char *s, struct in_addr *a4,
		       struct in6_addr *a6, const char **e);
bool addr_is_loopback(int af, const struct in_addr *a4,
		      const struct in6_addr *a6);

#endif /* NETSHIM_ADDRPARSE_H */
