/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - Neighbour Discovery (RFC 4861), SLAAC (RFC 4862), RDNSS and
 * DNSSL (RFC 8106)
 *
 * Pure functions: ICMPv6 messages in, ICMPv6 messages out.  The caller
 * builds the IPv6 header (hop limit 255) and the ICMPv6 checksum.
 */
#ifndef NETSHIM_NDP_H
#define NETSHIM_NDP_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "netshim/conf.h"
#include "netshim/packet.h"

size_t ndp_ra_build(const struct conf *c, uint8_t *out, size_t size);
size_t ndp_reply(const struct conf *c, const struct in6_addr *src,
		 const struct in6_addr *dst, const struct pkt *icmp,
		 uint8_t *out, size_t size, struct in6_addr *reply_dst);
size_t ndp_ns_build(const struct conf *c, const struct in6_addr *target,
		    uint8_t *out, size_t size);
bool ndp_dad_probe(const struct in6_addr *src, const struct in6_addr *dst,
		   const struct pkt *icmp, struct in6_addr *target);

#endif /* NETSHIM_NDP_H */
