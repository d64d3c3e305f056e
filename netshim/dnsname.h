/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - domain names in DNS wire format, for DHCP, DHCPv6 and NDP
 */
#ifndef NETSHIM_DNSNAME_H
#define NETSHIM_DNSNAME_H

#include <stddef.h>
#include <stdint.h>

#define DNS_NAME_MAX		255
#define DNS_LABEL_MAX		63

size_t dns_name_encode(const char *name, uint8_t *out, size_t size);

#endif /* NETSHIM_DNSNAME_H */
