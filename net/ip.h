/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - IPv4 and IPv6: validation, dispatch, and headers towards the guest
 */
#ifndef NETSHIM_IP_H
#define NETSHIM_IP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "link/vnet.h"
#include "netshim/ctx.h"
#include "netshim/packet.h"

#define IP4_HLEN	20
#define IP6_HLEN	40
#define IPPROTO_ICMPV6_	58

/**
 * struct l4_meta - what the IP layer learnt about a guest packet
 * @src:	source address (v4-mapped for IPv4)
 * @dst:	destination address (v4-mapped for IPv4)
 * @proto:	layer-4 protocol
 * @hop:	TTL or hop limit
 * @v6:		IPv6 packet
 * @qp:		queue pair its frame came in on (link_in_frame.qp): what
 *		answers it, or its flow, goes back on that one
 */
struct l4_meta {
	struct in6_addr src, dst;
	uint8_t proto;
	uint8_t hop;
	bool v6;
	uint8_t qp;
};

/**
 * ip_l2l3_len() - bytes of Ethernet and IP header in front of layer 4
 * @v6:		IPv6
 *
 * Return: header length
 */
static inline size_t ip_l2l3_len(bool v6)
{
	return ETH_HLEN_ + (v6 ? IP6_HLEN : IP4_HLEN);
}

int ip4_parse(const struct pkt *p, struct l4_meta *m, struct pkt *l4);
int ip6_parse(const struct pkt *p, struct l4_meta *m, struct pkt *l4);
bool ip_l4_csum_ok(const struct l4_meta *m, const struct pkt *l4);
size_t ip_l4_csum_offset(uint8_t proto);
void ip_frame_fill(const struct ctx *c, uint8_t *frame,
		   const struct in6_addr *src, const struct in6_addr *dst,
		   uint8_t proto, size_t l4len, const uint8_t *dst_mac);
struct link_frame;
void ip_frame_fill_offload(const struct ctx *c, const struct link_frame *f,
			   const struct in6_addr *src,
			   const struct in6_addr *dst, uint8_t proto,
			   size_t l4len, struct link_offload *o);
uint8_t *ip_tx_l4(struct ctx *c, uint8_t qp, bool v6, size_t l4max);
void ip_tx_send(struct ctx *c, uint8_t *l4, const struct in6_addr *src,
		const struct in6_addr *dst, uint8_t proto, size_t l4len,
		const uint8_t *dst_mac);

#endif /* NETSHIM_IP_H */
